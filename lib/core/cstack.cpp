#include "core/cstack.hpp"

#include <pthread.h>

#include <algorithm>
#include <cstdint>

namespace quasi {

namespace {

constexpr size_t kStackReserve = 256 * 1024;  // bytes of C stack kept free

// Lowest usable stack address of this thread (0 when unknown).
uintptr_t stack_limit() {
  static thread_local uintptr_t limit = 0;
  static thread_local bool known = false;
  if (!known) {
    known = true;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* addr = nullptr;
      size_t size = 0;
      if (pthread_attr_getstack(&attr, &addr, &size) == 0 && size < (size_t(1) << 36))
        limit = reinterpret_cast<uintptr_t>(addr) + std::min(kStackReserve, size / 4);
      pthread_attr_destroy(&attr);
    }
  }
  return limit;
}

}  // namespace

bool stack_exhausted() {
  char probe;
  return reinterpret_cast<uintptr_t>(&probe) < stack_limit();
}

}  // namespace quasi
