// forward.hpp — the forward-mode transformation of core IR (lib/ad/README.md, "Forward mode").
//
// Owner: ad. make_forward_maker(src, fvs, mask) builds, from the source of a compiled lambda of
// fixed arity, the IR of a maker
//     (lambda (self fv ...) F)
// where F takes each parameter k followed, when bit k of `mask` is set, by its tangent, and
// returns (value . tangent): the value exactly as the source computes it, and the directional
// derivative along the given tangents. Straight tangent code: each primitive's tangent is built
// from its DerivativeRule's partials, a loop of the source (a letrec group called only by name)
// stays a loop whose procedures take tangents for their active parameters, a call in tail
// position stays a tail call, and nothing is recorded for a later sweep (no tape, no pullback).
// Invariant: the result is null — the caller then uses reverse mode — for any code outside that
// subset (a lambda that is not a loop, set!, a call of a procedure held by a local variable with
// a value being differentiated, a primitive without a rule whose result may be a number, ...), so
// a forward form never sees a value whose derivative it cannot account for: every procedure it
// meets is a constant of the differentiation, and each level of nesting is distinct code.
// The zero tangent is the exact 0; tangent accessors of pairs and vectors read 0 from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "ir/ir.hpp"

namespace quasi::ad {

struct RuleCache;

// Whether the procedure f (a global's value at transformation time) has a forward form for the
// tangent mask `mask`, called with n arguments (made and cached by the caller, runtime.cpp).
// Called for each global the code calls with a value being differentiated.
using ForwardCallee = std::function<bool(Value f, uint64_t mask, size_t n)>;

// Bits of a mask: parameters 0 .. kMaxForwardParams-1.
constexpr size_t kMaxForwardParams = 60;

// *returns_number: every value the procedure returns is a number (made by arithmetic or a numeric
// constant; a loop's value when all of its are).
LambdaNode* make_forward_maker(RuleCache& rules, LambdaNode* src, Var** fvs, const bool* boxed, size_t nfv,
                               uint64_t mask, const ForwardCallee& callee, bool* returns_number);

}  // namespace quasi::ad
