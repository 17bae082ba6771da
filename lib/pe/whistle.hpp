// whistle.hpp — the partial evaluator's termination test for specialized helpers: homeomorphic
// embedding of helper keys (Higman, Kruskal; Sørensen and Glück's supercompiler whistle).
//
// A helper key is a tuple of slots, each the static skeleton of one argument (specializer.hpp,
// KeyItem): partially static pairs, vectors and closures with their fields, frozen data, holes
// for dynamic values. Key A is EMBEDDED in key B when every
// slot of A embeds in the same slot of B, where a tree a embeds in b if
//   - both are atoms and a "is no bigger than" b (below), or
//   - a embeds in one of b's children (diving), or
//   - a and b have the same constructor (pair, vector of one length, closure of one lambda) and
//     each child of a embeds in the same child of b (coupling).
// Atoms: holes embed in holes; characters, booleans, symbols, '(), identities (mutable
// static objects) and frozen pairs and vectors (program text, a pattern: taken whole) only in
// themselves; integers in integers of the same sign and at least the same magnitude once their
// magnitude reaches kEmbedIntegerFloor (below it, only in themselves: bounded indices such as a
// pattern position stay apart; a loop counter under dynamic control — Entry::counted — from 0
// on); other numbers in any number of their kind; strings like
// integers, by length. Frozen data is atomic because during one request it comes from a finite
// set (the literals and static arguments: static runs and folds yield only data frozen before
// the request), so it never grows; taken apart, a piece of program text would embed in every
// larger piece holding it — an interpreter's loop body in the expressions of its own arms — and
// the whistle would generalize the program away.
//
// Embedding is a well-quasi-order on the keys that occur in practice: every infinite sequence of
// keys has an earlier key embedded in a later one, so a chain of nested helpers of one clause
// that never repeats a key is cut after finitely many steps (frozen data is a finite alphabet);
// bounded data (an interpreter's program points, the suffixes of a static pattern) stays static
// however large, while data that grows (a list being built, a counter past the floor) is
// generalized at once.
#pragma once

#include <cstdint>
#include <functional>

#include "pe/specializer.hpp"

namespace quasi::pe {

// Magnitude from which integers compare by size (smaller ones are distinct atoms).
constexpr int64_t kEmbedIntegerFloor = 64;
// Pairs of subtrees compared per test; past it the keys count as embedded (the whistle blows:
// generalizing is always safe).
constexpr int64_t kEmbedWork = 50000;

// `arity(lam)`: how many free-variable items follow a kClosure item of that lambda.
// `a_counted`: per item of a, a loop counter under dynamic control (Entry::counted; may be
// null): such an integer embeds in any integer of its sign (0: of either) and at least its magnitude,
// with no floor — a counter compared with a dynamic bound grows until that bound, which no
// static decision knows, so keeping it static only peels iterations (the chain of variants up
// to the floor was most of the time of specializing a flowchart interpreter: pe-flow).
bool key_embedded(const gc_vector<KeyItem>& a, const gc_vector<uint32_t>& a_slots,
                  const gc_vector<KeyItem>& b, const gc_vector<uint32_t>& b_slots,
                  const std::function<size_t(LambdaNode*)>& arity, const std::vector<bool>* a_counted = nullptr);

// The rigid atoms of a key, sorted: atoms that embed only in themselves (symbols, characters,
// booleans, '(), identities, frozen data, integers below kEmbedIntegerFloor, short strings). An
// embedding maps distinct leaves to distinct leaves and a rigid atom only to an equal one, so a
// key whose rigid atoms are not a sub-multiset of another's does not embed in it — a test that
// costs a sort instead of the product of the keys' sizes. False (and `out` meaningless) when
// the key's data is too large to list. Items marked in `counted` (Entry::counted) are not rigid.
bool rigid_atoms(const gc_vector<KeyItem>& key, gc_vector<uint64_t>& out, const std::vector<bool>& counted = {});

}  // namespace quasi::pe
