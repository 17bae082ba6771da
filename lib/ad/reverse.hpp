// reverse.hpp — the reverse-mode transformation of core IR (lib/ad/README.md, "Reverse mode").
//
// Owner: ad. make_reverse_maker(src, fvs) builds, from the source of a compiled lambda and the
// variables behind its closure's free slots, the IR of a "maker"
//     (lambda (self fv ...) J)
// whose result J, given the closure and its free values, is the closure's reverse-mode form.
// Invariant: the output keeps the IR invariants (ir/ir.hpp: each Var bound once), and closures
// the transformed code makes are laid out as the compiler lays them out (FreeVariables order),
// because a closure's cotangent is indexed by that layout.
#pragma once

#include <cstddef>
#include <vector>

#include "ir/ir.hpp"

namespace quasi {
struct Vm;
struct Environment;
}  // namespace quasi

namespace quasi::ad {

struct RuleCache;

// `name` names the procedure in error messages. `boxed` (Proto::free_boxed, or null: then the
// assigned variables) says which free slots hold a Box. Raises a Scheme error when the code
// cannot be transformed (set! of a local, call/cc, a define). `quiet` is set when the procedure
// makes no cell operation and calls nothing but primitives and itself: J's pullback, given the
// zero, then returns zeros and moves no cell's adjoint (%ad-j-quiet?).
LambdaNode* make_reverse_maker(Vm& vm, RuleCache& rules, LambdaNode* src, Var** fvs, const bool* boxed,
                               size_t nfv, Value name, bool* quiet);

// Expanded derivative-rule expressions, per text: (lambda (a b r d) expr).
RuleCache* make_rule_cache(Environment* core);
Environment* rules_core(RuleCache& rules);
// ((letrec* ((g (lambda ...)) ...) g) a ...), a named let or a do loop, as (letrec* (...) (g a
// ...)), so that its calls are calls of g; null for a call of another form. The arguments
// cannot see the group's names.
LetNode* named_let_call(CallNode* c);
// The source's own name for its closure: a variable src references that is neither bound in it
// nor one of its free slots fvs (a letrec-bound lambda reads itself from R[0]); null if none.
// *too_deep when the tree was too deep to scan.
Var* self_variable(LambdaNode* src, Var** fvs, size_t nfv, bool* too_deep);

// A scalar rule's partial (%ad-recip E) as "(%ad-over d E)" (d/E, +inf.0 at an exact 0), or null
// when the partial is not that form as a whole. Shared with forward mode (forward.cpp).
const char* over_rule_text(RuleCache& rules, const char* text);
// A rule's expression with a, b, r, d bound to vals[0..3] (only those it reads); null for a rule
// that does not read as an expression.
Node* instantiate_rule(RuleCache& rules, const char* text, Node* const vals[4]);

// Vectors passed to a procedure (lib/ad/README.md, "vector-set! on a vector the code makes"):
// whether the closure f can take its arguments ks as vectors it owns — one clause, those
// parameters only read, written or measured (also by loops in it and by procedures it passes them
// to that can in turn), or returned in tail position (*returns); no boxed free slot.
bool carryable(RuleCache& rules, Value f, const std::vector<size_t>& ks, bool* returns);
// That form of f's source: (let ((w (%ad-own p)) ...) body) returning (vector value w ...) from
// each tail position. Same free variables, in the same order, as src.
LambdaNode* carrying_source(Vm& vm, RuleCache& rules, LambdaNode* src, const std::vector<size_t>& ks, bool returns);
// (%ad-carrying f spec): bit k of spec for each carried argument k < kCarryAliased, and bit
// kCarryAliased when the caller takes the call's value as a possible alias of the vectors.
constexpr int kCarryAliased = 30;

}  // namespace quasi::ad
