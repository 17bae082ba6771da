#include "core/gc.hpp"

#include <gmp.h>

#include <cstdlib>
#include <mutex>

namespace quasi {
namespace {
constexpr size_t kInitialHeapBytes = size_t(16) << 20;

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

void* refill_small(size_t words) {
  SmallFreeLists*& fl = tl_free_lists;
  if (!fl) {
    fl = static_cast<SmallFreeLists*>(GC_MALLOC_UNCOLLECTABLE(sizeof(SmallFreeLists)));
    if (!fl) throw std::bad_alloc();
  }
  void* list = fl->lists[words];
  if (!list) list = GC_malloc_many(words * 8);
  if (!list) throw std::bad_alloc();
  fl->lists[words] = GC_NEXT(list);
  GC_NEXT(list) = nullptr;
  return list;
}

void gc_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    GC_INIT();
    // Failures reach Scheme as errors (out of memory, object too large); the collector's own
    // warnings would only repeat them on stderr.
    GC_set_warn_proc([](char*, GC_word) {});
    GC_allow_register_threads();
    // Start with room to allocate: a tiny heap collects every few hundred kilobytes, and each
    // collection marks the whole live heap (the prelude's code among it).
    if (!getenv("GC_INITIAL_HEAP_SIZE")) GC_expand_hp(kInitialHeapBytes);
    mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
  });
}

}  // namespace quasi
