// ad.hpp — automatic differentiation by source transformation (lib/ad/README.md).
//
// Owner: ad. `%ad-j` turns a procedure into its reverse-mode form J(f): a procedure of the same
// arguments returning (value . pullback), where the pullback maps the value's cotangent to
// (dself . dargs) — the cotangent of f itself (its free variables) and one per argument. The
// user procedures (grad, value-and-grad, vjp) are Scheme (scheme/prelude/70-ad.scm).
// Invariant: J(f) computes f's value exactly as f does; where a derivative cannot be computed
// the transformed code raises an error naming the procedure and the operation.
#pragma once

namespace quasi {
struct Environment;
void register_ad_primitives(Environment* env);  // ad/runtime.cpp: %ad-j, %ad-jprim-n
}  // namespace quasi
