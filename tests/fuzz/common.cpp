// common.cpp — sanitizer defaults for the fuzz targets and fail().
#include "common.hpp"

#include <cstdio>
#include <cstdlib>

// LeakSanitizer cannot see Boehm GC's roots, and fake stack frames for use-after-return hide
// pointers from the collector's conservative stack scan (the same settings as .ci/run's ASan run).
extern "C" const char* __asan_default_options() {
  return "detect_leaks=0:detect_stack_use_after_return=0:allocator_may_return_null=1";
}
extern "C" const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }

namespace quasi_fuzz {

void fail(const std::string& what, std::string_view input) {
  std::fprintf(stderr, "\n==== fuzz invariant broken: %s\n==== input (%zu bytes):\n%.*s\n====\n", what.c_str(),
               input.size(), static_cast<int>(input.size()), input.data());
  std::abort();
}

}  // namespace quasi_fuzz
