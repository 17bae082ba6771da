// util.hpp — facts about IR nodes and values several passes need (calls that certainly reach a
// primitive, constants readable at compile time, droppable expressions) and copying with fresh
// variables. Invariant: every answer is conservative — when unsure, "certainly"/"may drop" is no.
#pragma once

#include <cstdint>
#include <unordered_set>

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

// Frozen values: their contents can never change, so a transformation may read them now.
// SHALLOW: the object itself — numbers, characters, booleans, symbols, '(), and strings, pairs,
// vectors and bytevectors marked kImmutable (the expander freezes quoted data and literals
// deeply, so a literal's elements are frozen too). Procedures are not (fold-constants never
// sees them as constants).
bool is_frozen_shallow(Value v);
// DEEP: every object reachable through pairs and vectors is frozen shallowly, and procedures
// and continuations count as frozen (only their identity is ever used). What the partial
// evaluator may read or compare with equal?. `cache` (may be null) remembers objects already
// proved frozen.
using FrozenCache = std::unordered_set<uint64_t, std::hash<uint64_t>, std::equal_to<uint64_t>,
                                       traceable_allocator<uint64_t>>;
bool is_frozen_deep(Value v, FrozenCache* cache);

// A primitive whose call, with the right number of arguments, has no effect and cannot raise:
// kPure without kMayRaise, kHasEffects or kVmSpecial (the shallow half of is_pure).
bool quiet_primitive(const Primitive* p);

// Evaluating `n` has no effect, cannot raise and cannot fail to terminate, so it may be dropped
// when its value is unused: constants, variable references (globals only when bound), lambdas,
// and calls of quiet primitives with the right number of such operands, and if/let/begin of
// such expressions (DEEP: it looks into subexpressions, up to a fixed depth).
bool is_pure(Node* n, Environment* core);
// Evaluating `n` calls nothing but pure primitives, which may raise: no closure, continuation,
// effectful or control primitive (apply, call/cc, eval, ...), and assigns nothing. So no other
// code runs meanwhile: no continuation is captured inside it, no closure is called (a handler of
// its raise cannot return into it: errors are not continuable). Lambdas are made, not called.
// DEEP like is_pure, and "no" past the same depth. (The letrec forms: eval/expander.cpp's
// inits-first shape, the compiler's checks of reads before initialization.)
bool only_pure_primitive_calls(Node* n, Environment* core);

// The order a call evaluates its operator in (R7RS 4.1.3 leaves it open), kept by everything
// that evaluates or rewrites calls (the compiler, the partial evaluator, the AD transform), so an
// unbound operator and an operand that raises raise the same error in every mode: a global
// operator is read after the operands (its load then sits in the call's basic block, where the
// JIT inlines the primitive it holds or calls a known procedure directly, even when an operand
// calls: (remainder (+ a (f x)) m)); any other operator is evaluated before them. `fn` is the
// call's operator node (null: a primitive known at compile time, nothing to read).
inline bool operator_read_last(const Node* fn) { return fn && fn->kind == NodeKind::GlobalRef; }

// A sequence of `exprs` (nested sequences spliced); the single expression itself when only one.
Node* make_seq(const gc_vector<Node*>& exprs, SrcLoc loc);

// Number of nodes in `n`, counting stops a little past `limit`.
size_t node_size(Node* n, size_t limit);

// A copy of `n` in which every variable bound inside `n` is replaced by a fresh Var (same name,
// same `assigned`), so the copy can live beside the original. Variables bound outside `n` are
// shared. Returns null when the tree is too deep to copy.
Node* copy_with_fresh_vars(Node* n);

}  // namespace quasi
