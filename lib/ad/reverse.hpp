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

}  // namespace quasi::ad
