// gc.hpp — the only door to Boehm GC: allocation of Scheme objects and GC-owned C++ containers.
//
// Invariant: every Scheme object lives in memory from GC_MALLOC (scanned) or GC_MALLOC_ATOMIC
// (holds no pointers). Memory from plain new/malloc is NOT scanned: a Value kept there must sit
// in a gc_vector / GcRoot or the object it names may be collected.
#pragma once

#define GC_THREADS 1
#include <gc/gc.h>
#include <gc/gc_allocator.h>
#include <gc/gc_mark.h>

#include <new>
#include <utility>
#include <vector>

#include "core/alloc_watch.hpp"
#include "core/value.hpp"

namespace quasi {

// Call once per process before anything else (idempotent).
void gc_init();

// Counts the bytes on this thread; an evaluation with limits checks them before a large object
// is allocated (core/alloc_watch.hpp), so a huge one is refused, not made, and once per
// kWatchedBytes of smaller objects (one compare each, not a call per string or vector).
inline void note_allocation(size_t bytes) {
  if (bytes >= kWatchedBytes || tl_allocated_bytes >= tl_watch_at) [[unlikely]] {
    tl_watch_at = tl_allocated_bytes + kWatchedBytes;
    watch_limits(bytes);
  }
  tl_allocated_bytes += bytes;
}

inline void* gc_alloc(size_t bytes) {
  note_allocation(bytes);
  void* p = GC_MALLOC(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}
// For objects without pointers inside (flonums, strings, bytevectors). Memory is NOT zeroed.
inline void* gc_alloc_atomic(size_t bytes) {
  note_allocation(bytes);
  void* p = GC_MALLOC_ATOMIC(bytes);
  if (!p) throw std::bad_alloc();
  return p;
}

// Small objects (pairs, boxes, flonums, small closures) come from per-thread free lists refilled
// a block at a time (GC_generic_malloc_many; gc.cpp says which kind): a pop instead of GC_malloc.
// The lists live in uncollectable (scanned) memory, so objects waiting in them are never reclaimed.
constexpr size_t kSmallObjectWords = 8;
// Continuations (vm/stack.cpp: a few words of stack and a frame or two after a 11-word header)
// take objects of up to this many words from the lists too: GC_malloc's thread-local path costs
// about 50 instructions, and callcc makes two of them per generated element.
constexpr size_t kSmallListWords = 32;
struct SmallFreeLists {
  void* lists[kSmallListWords + 1];  // by size in words
  void* info_pairs;                  // PairInfo cells (gc_alloc_info_pair)
};
// Constant-initialized, so access is a plain TLS load (no wrapper call).
inline thread_local SmallFreeLists* tl_free_lists = nullptr;
void* refill_small(size_t words);
// What a refill adds to tl_allocated_bytes (core/alloc_watch.hpp): the bytes of the objects in
// the new list while an evaluation with a time or memory limit runs (tl_limits_set), else
// small_block_bytes, the bytes of a list made from an empty block of the collector's.
constexpr size_t kSmallBlockBytes = 4096;  // the collector's HBLKSIZE on x86-64
size_t small_list_bytes(const void* list, size_t words);
size_t small_block_bytes(size_t words);
// This thread's lists, made on first use. Their address never changes for the thread's life, so
// machine code may hold it for a run (jit/x64_emit.cpp pops pairs, boxes, closures and flonums
// inline and calls the runtime only when a list is empty).
SmallFreeLists* thread_free_lists();

// Scanned memory of `bytes` (at most kSmallListWords words), zeroed except the first word.
inline void* gc_alloc_small(size_t bytes) {
  size_t words = (bytes + 7) / 8;
  SmallFreeLists* fl = tl_free_lists;
  void* p;
  if (fl && (p = fl->lists[words]) != nullptr) {
    fl->lists[words] = GC_NEXT(p);
    return p;
  }
  return refill_small(words);
}

// Pairs that carry a header-shaped third word (core/object.hpp, PairInfo) are cells of a kind of
// their own: 32 bytes, the first two words scanned, the rest not (no pointer there), zeroed,
// from a per-thread list (SmallFreeLists::info_pairs). gc_is_info_pair(base) asks the collector
// for the kind of a pair's cell (a lookup in its block table: the price of set-car! and of
// reading a pair's location).
void* gc_alloc_info_pair();
extern int g_info_pair_kind;
inline bool gc_is_info_pair(const void* base) { return GC_get_kind_and_size(base, nullptr) == g_info_pair_kind; }

template <class T>
T* gc_alloc_object(Type t, size_t bytes, uint64_t payload = 0) {
  T* o = static_cast<T*>(bytes <= kSmallObjectWords * 8 ? gc_alloc_small(bytes) : gc_alloc(bytes));
  o->header = make_header(t, payload);
  return o;
}

// Constructs a C++ object in collectable, scanned memory. Its destructor never runs, so T must
// not own malloc'd memory (use gc_vector for containers).
template <class T, class... Args>
T* gc_new(Args&&... args) {
  return new (gc_alloc(sizeof(T))) T(std::forward<Args>(args)...);
}

// A std::vector whose buffer is collectable and scanned. Safe inside GC-allocated objects.
template <class T>
using gc_vector = std::vector<T, gc_allocator<T>>;
// A std::vector whose buffer is scanned but owned by an ordinary C++ object (freed by it).
template <class T>
using root_vector = std::vector<T, traceable_allocator<T>>;

// For containers that live on the C stack or inside GC memory: storage from GC_MALLOC (scanned),
// never freed by hand; the collector reclaims it once the container is gone. Much cheaper than
// traceable_allocator (no lock, no free). Not for containers inside malloc'd objects: the
// collector could not see their storage.
template <class T>
struct scratch_allocator {
  using value_type = T;
  scratch_allocator() = default;
  template <class U>
  scratch_allocator(const scratch_allocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(gc_alloc(n * sizeof(T))); }
  void deallocate(T*, size_t) {}
  template <class U>
  bool operator==(const scratch_allocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const scratch_allocator<U>&) const { return false; }
};

// A single GC root for C++ code that must keep a Value alive outside the stack.
class GcRoot {
 public:
  explicit GcRoot(Value v = kUnspecified) : slot_(static_cast<Value*>(GC_MALLOC_UNCOLLECTABLE(sizeof(Value)))) {
    *slot_ = v;
  }
  ~GcRoot() { GC_FREE(slot_); }
  GcRoot(const GcRoot& o) : GcRoot(o.get()) {}
  GcRoot& operator=(const GcRoot& o) { *slot_ = o.get(); return *this; }
  Value get() const { return *slot_; }
  void set(Value v) { *slot_ = v; }

 private:
  Value* slot_;
};

}  // namespace quasi
