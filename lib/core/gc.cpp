#include "core/gc.hpp"
#include "core/gc_pacing.hpp"
#include "core/gc_threads.hpp"

#include <gc/gc_inline.h>
#include <gc/gc_mark.h>

#include <gmp.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace quasi {
namespace {
constexpr size_t kInitialHeapBytes = size_t(8) << 20;

// GMP's memory is plain malloc memory that GMP frees itself, never collectable memory. GMP
// links its large temporary blocks (TMP_ALLOC beyond the alloca threshold) into a chain through
// a pointer stored at the start of each block, and keeps pointers to blocks inside other blocks
// (mpn_get_str's table of powers, for one). Pointer-free collectable memory lets the collector
// free a block that only another block still points to, and GMP then writes into reused memory
// (the crashes in __gmpn_get_str and __gmp_tmp_reentrant_free). Scanned collectable memory
// would fix that but make the collector scan every limb of every big number as if it held
// pointers. So: GMP allocates and frees its temporaries with malloc, and a number that outlives
// the GMP call is copied into a heap object that holds its limbs inline (numbers.cpp, take_z):
// that object is pointer-free, since the only pointer in it points into itself.
// GMP's allocations count toward the thread's allocated bytes (the memory limit), as the
// collector's do: a primitive whose temporaries are large and result small (gcd, exact-integer-
// sqrt, the powers table of a conversion) was free under the limit. They are only counted here;
// the next allocation or limit check sees the count (throwing from inside GMP would leak).
void* gmp_alloc(size_t n) {
  void* p = std::malloc(n);
  if (!p) throw std::bad_alloc();  // GMP cannot report failure; unwinding leaks its temporaries
  tl_allocated_bytes += n;
  return p;
}
void* gmp_realloc(void* p, size_t old, size_t n) {
  void* q = std::realloc(p, n);
  if (!q) throw std::bad_alloc();
  if (n > old) tl_allocated_bytes += n - old;
  return q;
}
void gmp_free(void* p, size_t) { std::free(p); }
}  // namespace

namespace {
// gc_set_one_thread: set before gc_init, cleared when the collector goes multi-threaded.
std::atomic<bool> g_one_thread{false};
// Set by the collector (under its lock) when the heap has grown past kParallelMarkHeapBytes.
std::atomic<bool> g_heap_large{false};

void GC_CALLBACK on_heap_resize(GC_word heap_bytes) {
  if (heap_bytes >= kParallelMarkHeapBytes) g_heap_large.store(true, std::memory_order_relaxed);
}
}  // namespace

void gc_set_one_thread() {
  if (!GC_is_init_called()) g_one_thread.store(true);
}

bool gc_one_thread() { return g_one_thread.load(std::memory_order_relaxed); }

void gc_heap_check() {
  if (!g_heap_large.load(std::memory_order_relaxed) || !g_one_thread.load(std::memory_order_relaxed)) return;
  // On the one thread, between calls into the collector: nothing else runs in it now.
  GC_set_on_heap_resize(nullptr);
  GC_allow_register_threads();  // takes the lock from now on and starts the marker threads
  g_one_thread.store(false);
}

SmallFreeLists* thread_free_lists() {
  SmallFreeLists*& fl = tl_free_lists;
  if (!fl) {
    fl = static_cast<SmallFreeLists*>(GC_MALLOC_UNCOLLECTABLE(sizeof(SmallFreeLists)));
    if (!fl) throw std::bad_alloc();
  }
  return fl;
}

size_t small_list_bytes(const void* list, size_t words) {
  size_t n = 0;
  for (const void* q = list; q; q = GC_NEXT(const_cast<void*>(q))) n++;
  return n * words * 8;
}

namespace {
// GC_malloc_many adds a byte to every request (EXTRA_BYTES: with interior pointers recognized, a
// pointer just past an object's end then still keeps that object alive, not the next one), and
// the collector's NORMAL kind leaves the last word of each object unscanned, since that word
// holds at most the extra byte. For an object of an odd number of words that is free: the
// granule's last word is padding either way (a 24-byte record takes 32 bytes). For an even number
// the byte costs a whole granule: 32 bytes for a 16-byte pair, box, flonum or closure without
// free values, 64 for a closure with 4 free values. Those come from a kind of our own (made in
// gc_init: scanned whole, cleared when swept) in exact granules: less memory, and fewer blocks
// for the collector to sweep and rebuild, its per-block cost being most of the allocation cost.
// No code keeps a small object alive only through a pointer past its end (such a pointer would
// now keep the next object alive instead).
int g_exact_kind = -1;

size_t small_granule_bytes(size_t words) { return (words * 8 + 15) & ~size_t(15); }
int small_kind(size_t words) { return words % 2 == 0 ? g_exact_kind : GC_I_NORMAL; }
}  // namespace

size_t small_block_bytes(size_t words) {
  return (kSmallBlockBytes / small_granule_bytes(words)) * words * 8;
}

void* refill_small(size_t words) {
  // The kinds are made by gc_init: a caller that allocates before it (core/gc.hpp asks it not to)
  // still gets a set-up collector. One compare per block of objects.
  if (g_exact_kind < 0) gc_init();
  SmallFreeLists* fl = thread_free_lists();
  void* list = fl->lists[words];
  if (!list) {
    // A block of small objects at a time: make-list and friends see the limits here.
    watch_limits(0);
    GC_generic_malloc_many(small_granule_bytes(words), small_kind(words), &list);
    if (!list) throw std::bad_alloc();
    gc_heap_check();
    // Counting the list is a walk over every object in it (about 5 % of the time of lists.scm,
    // 3 % of cpstak.scm), needed only to hold a memory or time limit to the byte. Without one the
    // count feeds only the watch's every-64-KiB interrupt check, and a block's worth (the list's
    // length when the block was empty, an upper bound otherwise) is good enough.
    tl_allocated_bytes += tl_limits_set ? small_list_bytes(list, words) : small_block_bytes(words);
  }
  fl->lists[words] = GC_NEXT(list);
  GC_NEXT(list) = nullptr;
  return list;
}

int g_info_pair_kind = -1;

// A block at a time, as refill_small: the reader makes one per pair it reads.
void* gc_alloc_info_pair() {
  if (g_info_pair_kind < 0) gc_init();
  note_allocation(32);
  SmallFreeLists* fl = thread_free_lists();
  void* p = fl->info_pairs;
  if (!p) {
    watch_limits(0);
    GC_generic_malloc_many(32, g_info_pair_kind, &p);
    if (!p) throw std::bad_alloc();
    gc_heap_check();
  }
  fl->info_pairs = GC_NEXT(p);
  GC_NEXT(p) = nullptr;
  return p;
}

void gc_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    GC_INIT();
    // Failures reach Scheme as errors (out of memory, object too large); the collector's own
    // warnings would only repeat them on stderr.
    GC_set_warn_proc([](char*, GC_word) {});
    // Length descriptor of 0 bytes plus the object's size (adjust), cleared on reclaim.
    g_exact_kind = int(GC_new_kind(GC_new_free_list(), GC_DS_LENGTH, 1, 1));
    // Car and cdr scanned (16 bytes from the start), the header-shaped word not.
    g_info_pair_kind = int(GC_new_kind(GC_new_free_list(), GC_DS_LENGTH | 16, 0, 1));
    if (g_one_thread.load()) GC_set_on_heap_resize(on_heap_resize);
    else GC_allow_register_threads();
    // Start with room to allocate: a tiny heap collects every few hundred kilobytes, and each
    // collection marks the whole live heap (the prelude's code among it). Not more: Boehm uses
    // all of the heap asked for before its first collection, and the collection window
    // (core/gc_pacing.hpp, 6 MiB at first) is what should pace a small heap.
    if (!getenv("GC_INITIAL_HEAP_SIZE")) GC_expand_hp(kInitialHeapBytes);
    mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
    gc_start_pacing();
  });
}

}  // namespace quasi
