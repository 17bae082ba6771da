// first_cons.cpp — a process whose first Scheme allocation comes before anything called gc_init
// (core/gc.hpp asks callers to call it first; the embedding API always does): the small-object
// refill sets the collector up itself instead of asking for objects of a kind not made yet.
// Its own executable: every other test binary calls gc_init before its first test.
#include <cstdio>

#include "core/gc.hpp"
#include "core/object.hpp"

using namespace quasi;

int main() {
  Value l = cons(make_fixnum(1), cons(make_fixnum(2), kNil));
  Value b = make_box(l);
  GC_gcollect();
  bool ok = list_length(l) == 2 && car(l) == make_fixnum(1) && b.as<Box>()->value == l;
  std::puts(ok ? "ok" : "wrong list");
  return ok ? 0 : 1;
}
