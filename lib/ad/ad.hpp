// ad.hpp — automatic differentiation by source transformation (lib/ad/README.md).
//
// Owner: ad. `%ad-j` turns a procedure into its reverse-mode form J(f): a procedure of the same
// arguments returning (value . pullback), where the pullback maps the value's cotangent to
// (dself . dargs) — the cotangent of f itself (its free variables) and one per argument. The
// user procedures (grad, value-and-grad, vjp) are Scheme (scheme/prelude/70-ad.scm).
// Invariant: J(f) computes f's value exactly as f does; where a derivative cannot be computed
// the transformed code raises an error naming the procedure and the operation.
#pragma once

#include <vector>

#include "core/value.hpp"

namespace quasi {
struct Environment;
struct Vm;
struct LambdaNode;
struct Var;
void register_ad_primitives(Environment* env);  // ad/runtime.cpp: %ad-j, %ad-jprim-n

// J of a closure the partial evaluator made (pe/specializer.cpp), which has no compiled layout of
// its own: the maker (lambda (self fv ...) J) for closures of `lam`, compiled and cached per
// lambda, with the free values it takes in `fvs` (closure_layout, ir/free_vars.hpp: the order in which the
// code that made the closure sends the closure's cotangent to its free variables). `self` is the
// letrec variable bound to lam, or null. `ad_j` is the %ad-j primitive. Raises the Scheme error
// of a transformation that refuses.
Value ad_maker_for_lambda(Vm& vm, Value ad_j, LambdaNode* lam, Var* self, std::vector<Var*>& fvs);
}  // namespace quasi
