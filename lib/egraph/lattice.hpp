// lattice.hpp — the numeric type lattice an analysis keeps per e-class: what kind of number every
// value of the class is. It is what licenses a rewrite that is only sound for some numbers (the
// eqsat pass's `(/ (* a 2) 2)` → `a` needs `a` exact); kUnknown licenses nothing.
//
// Information order: kUnknown < kNumber < {kExact, kFlonum}. All nodes of a class have the same
// value, so what any node proves holds for the class: merging is refine(), the join in this order
// (more information wins). kExact and kFlonum together cannot both be right; a sound make() never
// produces them for one class, and refine keeps the first so merging stays a semilattice join.
#pragma once

#include <cstdint>

#include "egraph/egraph.hpp"

namespace quasi::egraph {

enum class NumKind : uint8_t { kUnknown, kNumber, kExact, kFlonum };

inline const char* num_kind_name(NumKind k) {
  switch (k) {
    case NumKind::kUnknown: return "unknown";
    case NumKind::kNumber: return "number";
    case NumKind::kExact: return "exact-integer";
    case NumKind::kFlonum: return "flonum";
  }
  return "unknown";
}

inline bool is_number_kind(NumKind k) { return k != NumKind::kUnknown; }

// The join in information order, into `into`.
inline DidMerge refine(NumKind& into, NumKind from) {
  auto rank = [](NumKind k) { return k == NumKind::kUnknown ? 0 : k == NumKind::kNumber ? 1 : 2; };
  NumKind joined = into;
  if (rank(from) > rank(into)) joined = from;
  DidMerge d{joined != into, joined != from};
  into = joined;
  return d;
}

// What the value of `a OP b` is for Scheme's + - * on numbers of kinds a and b: exact op exact is
// exact, a flonum with any real is a flonum (inexact contagion), otherwise just a number.
inline NumKind contagion(NumKind a, NumKind b) {
  if (a == NumKind::kExact && b == NumKind::kExact) return NumKind::kExact;
  if ((a == NumKind::kFlonum && is_number_kind(b)) || (b == NumKind::kFlonum && is_number_kind(a)))
    return NumKind::kFlonum;
  if (is_number_kind(a) && is_number_kind(b)) return NumKind::kNumber;
  return NumKind::kUnknown;
}

}  // namespace quasi::egraph
