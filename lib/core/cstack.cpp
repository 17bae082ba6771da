#include "core/cstack.hpp"

#include <pthread.h>

#include <algorithm>
#include <cstdint>

namespace quasi {

namespace {

constexpr size_t kStackReserve = 256 * 1024;  // bytes of C stack kept free

}  // namespace

uintptr_t find_stack_limit() {
  uintptr_t limit = 1;  // unknown: never exhausted
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0 && size < (size_t(1) << 36))
      limit = reinterpret_cast<uintptr_t>(addr) + std::min(kStackReserve, size / 4);
    pthread_attr_destroy(&attr);
  }
  tl_stack_limit = limit;
  return limit;
}

}  // namespace quasi
