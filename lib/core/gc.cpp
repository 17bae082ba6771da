#include "core/gc.hpp"

#include <gmp.h>

#include <mutex>

namespace quasi {
namespace {
void* gmp_alloc(size_t n) { return gc_alloc_atomic(n); }
void* gmp_realloc(void* p, size_t, size_t n) {
  void* q = GC_REALLOC(p, n);
  if (!q) throw std::bad_alloc();
  return q;
}
// Limbs may still be shared with a heap object that copied the mpz struct: let the collector
// decide when they die.
void gmp_free(void*, size_t) {}
}  // namespace

void gc_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    GC_INIT();
    GC_allow_register_threads();
    mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
  });
}

}  // namespace quasi
