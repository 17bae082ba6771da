// pair_test.cpp — pairs as headerless two-word cells (core/value.hpp, core/object.hpp): the tag
// invariants, the PairInfo kind for located and literal pairs, and that a tagged pair (an
// interior pointer to its cell) keeps the cell alive from the heap and from the C stack.
// (From the VM stack: tests/scheme/pairs-test.scm, whose deep recursion collects with pairs
// held only in frames.)
#include <catch2/catch.hpp>

#include <gc/gc_mark.h>

#include "core/gc.hpp"
#include "core/object.hpp"

using namespace quasi;

TEST_CASE("pairs: the tag, the cell and the other types", "[pair]") {
  gc_init();
  Value p = cons(make_fixnum(1), make_fixnum(2));
  CHECK((p.bits & 7) == Value::kPairTag);
  CHECK(is_pair(p));
  CHECK(has_type(p, Type::Pair));
  CHECK(!p.is_ptr());
  CHECK(is_object(p));
  CHECK(object_type(p) == Type::Pair);
  void* base = object_base(p);
  CHECK(reinterpret_cast<uintptr_t>(base) % 16 == 0);
  CHECK(GC_base(base) == base);
  CHECK(GC_size(base) == 16);  // two words, no header, no extra granule
  CHECK(static_cast<Value*>(base)[0] == make_fixnum(1));
  CHECK(static_cast<Value*>(base)[1] == make_fixnum(2));
  CHECK(car(p) == make_fixnum(1));
  CHECK(cdr(p) == make_fixnum(2));
  CHECK(pair_info(p) == nullptr);
  CHECK(!pair_immutable(p));
  CHECK(!pair_srcloc(p).known());
  // Nothing else is a pair, and a pair is no other type.
  Value v = make_vector(2, kFalse);
  for (Value x : {make_fixnum(4), make_fixnum(-1), make_char(U'a'), kNil, kFalse, kTrue, kUnspecified, kEof, v,
                  make_flonum(1.5), intern("p")}) {
    CHECK(!is_pair(x));
    CHECK(!has_type(x, Type::Pair));
  }
  CHECK(!has_type(p, Type::Vector));
  CHECK(!has_type(p, Type::Flonum));
  CHECK(is_object(v));
  CHECK(object_type(v) == Type::Vector);
  CHECK(object_base(v) == v.obj());
}

TEST_CASE("pairs: located and literal pairs are PairInfo cells", "[pair]") {
  gc_init();
  SrcLoc loc{intern_source_file("pair_test.scm"), 12, 5};
  Value at = cons_at(kNil, kNil, loc);
  REQUIRE(pair_info(at) != nullptr);
  CHECK(GC_size(object_base(at)) == 32);
  CHECK(pair_srcloc(at).line == 12);
  CHECK(pair_srcloc(at).col == 5);
  CHECK(!pair_immutable(at));
  set_pair_srcloc(at, SrcLoc{loc.file, 7, 2});
  CHECK(pair_srcloc(at).line == 7);
  // Without a location cons_at makes a plain pair; set_pair_srcloc has nowhere to put one.
  Value plain = cons_at(kNil, kNil, SrcLoc{});
  CHECK(pair_info(plain) == nullptr);
  set_pair_srcloc(plain, loc);
  CHECK(!pair_srcloc(plain).known());
  Value lit = cons_immutable(make_fixnum(1), kNil, loc);
  CHECK(pair_immutable(lit));
  CHECK(is_immutable_object(lit));
  CHECK(pair_srcloc(lit).line == 12);
  CHECK(!is_immutable_object(at));
}

namespace {
GC_hidden_pointer watched_cell;

// A fresh pair (a PairInfo one when `info`) whose cell is watched: watched_cell is cleared once
// nothing reaches it. Out of line, so no untagged pointer to the cell stays in a register.
[[gnu::noinline]] Value watched_pair(bool info, Value car) {
  Value p = info ? cons_at(car, kNil, SrcLoc{1, 1, 1}) : cons(car, kNil);
  watched_cell = GC_HIDE_POINTER(object_base(p));
  GC_general_register_disappearing_link(reinterpret_cast<void**>(&watched_cell), object_base(p));
  return p;
}
[[gnu::noinline]] void store_watched_pair(Value* slot, bool info) { *slot = watched_pair(info, make_fixnum(42)); }
[[gnu::noinline]] void collect() {
  for (int i = 0; i < 3; i++) GC_gcollect();
}
[[gnu::noinline]] bool survives_on_c_stack(bool info) {
  volatile uint64_t tagged = watched_pair(info, make_fixnum(7)).bits;  // the only reference
  collect();
  bool alive = watched_cell != 0 && car(Value{tagged}) == make_fixnum(7);
  GC_unregister_disappearing_link(reinterpret_cast<void**>(&watched_cell));
  return alive;
}
}  // namespace

TEST_CASE("pairs: a tagged pair keeps its cell alive, and only while it is reachable", "[pair][gc]") {
  gc_init();
  for (bool info : {false, true}) {
    // From the heap: the only reference is the tagged word in a scanned object.
    Value* holder = static_cast<Value*>(gc_alloc(8 * sizeof(Value)));
    GcRoot root(make_ptr(holder));
    store_watched_pair(&holder[3], info);
    collect();
    CHECK(watched_cell != 0);
    CHECK(car(holder[3]) == make_fixnum(42));
    // Dropped: the cell is reclaimed (so the check above can fail).
    holder[3] = kFalse;
    collect();
    CHECK(watched_cell == 0);
    // From the C stack.
    CHECK(survives_on_c_stack(info));
  }
}
