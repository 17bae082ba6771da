// ir_util.hpp — facts about IR nodes and values that several passes need: which calls certainly
// reach a primitive, which constants may be read at compile time, which expressions can be
// dropped, and copying a subtree with fresh variables.
#pragma once

#include <cstdint>

#include "ir/ir.hpp"
#include "ir/functor.hpp"

namespace quasi {

struct Environment;

// The primitive `fn` certainly denotes when called, or null: a GlobalRef to a cell owned by the
// core environment whose value is a Primitive. User code cannot `set!` such a cell (it is
// imported) and a user `define` of the same name makes a new cell, so the reference can never
// reach anything else.
Primitive* known_primitive(Node* fn, Environment* core);
// For a Call through a known primitive or a PrimCall: the primitive and its operands.
Primitive* called_primitive(Node* call, Environment* core, const gc_vector<Node*>** args);
// The primitive bound to `name` in the core environment, or null.
Primitive* core_primitive(Environment* core, const char* name);
inline bool arity_ok(const Primitive* p, size_t argc) {
  return int64_t(argc) >= p->min_args && (p->max_args < 0 || int64_t(argc) <= p->max_args);
}

// A constant whose contents cannot change, so a primitive may read it at compile time: numbers,
// characters, booleans, symbols, '(), and strings, pairs, vectors and bytevectors marked
// kImmutable (the expander freezes quoted data and literals).
bool is_immutable_constant(Value v);

// Evaluating `n` has no effect, cannot raise and cannot fail to terminate, so it may be dropped
// when its value is unused: constants, variable references (globals only when bound), lambdas,
// and calls of kPure primitives without kMayRaise on such operands.
bool is_pure(Node* n, Environment* core);

// A sequence of `exprs` (nested sequences spliced); the single expression itself when only one.
Node* make_seq(const gc_vector<Node*>& exprs, SrcLoc loc);

// Number of nodes in `n`, counting stops a little past `limit`.
size_t node_size(Node* n, size_t limit);

// A copy of `n` in which every variable bound inside `n` is replaced by a fresh Var (same name,
// same `assigned`), so the copy can live beside the original. Variables bound outside `n` are
// shared. Returns null when the tree is too deep to copy.
Node* copy_with_fresh_vars(Node* n);

}  // namespace quasi
