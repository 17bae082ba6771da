// gc_test.cpp — the allocation layer over Boehm GC (core/gc.hpp): what the small-object free
// lists count toward tl_allocated_bytes, their objects' sizes and scanning, and which kinds are
// pointer-free.
#include <catch2/catch.hpp>

#include <gc/gc_inline.h>
#include <gc/gc_mark.h>

#include "core/gc.hpp"
#include "core/object.hpp"

using namespace quasi;

namespace {
// Empties this thread's list of `words`-word objects, so the next small allocation refills it.
void drop_list(size_t words) {
  gc_init();
  thread_free_lists()->lists[words] = nullptr;
}

size_t list_length(size_t words) {
  size_t n = 0;
  for (void* q = thread_free_lists()->lists[words]; q; q = GC_NEXT(q)) n++;
  return n;
}

struct LimitsSet {
  bool prev = tl_limits_set;
  explicit LimitsSet(bool on) { tl_limits_set = on; }
  ~LimitsSet() { tl_limits_set = prev; }
};
}  // namespace

TEST_CASE("gc: a refill counts its list to the byte while limits are set", "[gc][limits]") {
  void* cells[3][4] = {};  // a list of three 4-word objects, linked through their first words
  GC_NEXT(cells[0]) = cells[1];
  GC_NEXT(cells[1]) = cells[2];
  CHECK(small_list_bytes(cells[0], 4) == 3 * 32);
  CHECK(small_list_bytes(nullptr, 4) == 0);
  LimitsSet on(true);
  for (size_t words : {2, 3, 5, 8, 32}) {
    drop_list(words);
    uint64_t before = tl_allocated_bytes;
    gc_alloc_small(words * 8);
    // The object handed out and the ones left on the list, nothing more.
    CHECK(tl_allocated_bytes - before == (1 + list_length(words)) * words * 8);
  }
}

TEST_CASE("gc: without limits a refill counts a block's worth, never less than it hands out", "[gc][limits]") {
  LimitsSet off(false);
  for (size_t words : {2, 3, 5, 8, 32}) {
    drop_list(words);
    uint64_t before = tl_allocated_bytes;
    gc_alloc_small(words * 8);
    uint64_t counted = tl_allocated_bytes - before;
    CHECK(counted == small_block_bytes(words));
    CHECK(counted >= (1 + list_length(words)) * words * 8);
  }
  CHECK(small_block_bytes(3) == 128 * 24);  // 3-word objects: 24 bytes in 32-byte slots
  CHECK(small_block_bytes(2) == 256 * 16);
}

TEST_CASE("gc: objects without pointers come from pointer-free memory", "[gc]") {
  gc_init();
  // The collector must not scan string characters, bignum limbs or bytevector bytes: a word of
  // text or of a number that looks like an address would keep garbage alive.
  auto kind_of = [](Value v) { return GC_get_kind_and_size(v.obj(), nullptr); };
  CHECK(kind_of(make_string_utf8("some characters")) == GC_I_PTRFREE);
  CHECK(kind_of(make_bytevector(64, 0)) == GC_I_PTRFREE);
  CHECK(GC_get_kind_and_size(object_base(cons(kNil, kNil)), nullptr) != GC_I_PTRFREE);
}

namespace {
GC_hidden_pointer watched_link;

// Stores in `slot` the only pointer to a fresh object, and sets watched_link to that object
// (hidden), which the collector clears once the object is unreachable. Out of line, so no
// pointer to it stays in the caller's registers.
[[gnu::noinline]] void store_watched_object(void** slot) {
  void* target = gc_alloc(64);
  *slot = target;
  watched_link = GC_HIDE_POINTER(target);
  GC_general_register_disappearing_link(reinterpret_cast<void**>(&watched_link), target);
}
}  // namespace

TEST_CASE("gc: small objects take exact granules and are scanned to their last word", "[gc]") {
  gc_init();
  // An even number of words fills its granules exactly (a 16-byte box or flonum takes 16 bytes,
  // not the 32 that GC_malloc_many's extra byte would round it to); an odd number keeps the
  // collector's ordinary kind, whose unscanned last word is then the granule's padding.
  for (size_t words : {2, 4, 6, 8}) CHECK(GC_size(gc_alloc_small(words * 8)) == words * 8);
  CHECK(GC_size(gc_alloc_small(24)) == 32);
  // The last word of an exact-size object holds the only pointer to another object, which must
  // survive collections (the ordinary kind does not scan that word: the object would go).
  for (size_t words : {2, 4, 6, 8}) {
    void** holder = static_cast<void**>(gc_alloc_small(words * 8));
    GcRoot root(make_ptr(holder));
    store_watched_object(&holder[words - 1]);
    for (int i = 0; i < 3; i++) GC_gcollect();
    CHECK(watched_link != 0);
    GC_unregister_disappearing_link(reinterpret_cast<void**>(&watched_link));
  }
}
