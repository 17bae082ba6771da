// pe.hpp — the online partial evaluator behind `specialize` (lib/pe/README.md has the design).
//
//   specialize(vm, st, f, fixed)  a procedure equivalent to f with the parameters at the fixed
//                                 positions bound to the given values: f's code specialized to
//                                 them (residual code compiled by the VM's compiler). Memoized per
//                                 engine: the same f with equal? (frozen) / eq? (mutable) values
//                                 returns the same procedure object while it is valid.
//   residual_of(st, p)            the residual code of a procedure `specialize` made, as a datum.
//   stats_alist(st)               counters: specializations, cache hits, budget exhaustions, ...
//   explanation_of(st, p)         what the request generalized or gave up, where and why.
//
// Invariant: a specialized procedure always computes what f computes on the same arguments
// (values, errors, effects in the same order and number). If a user global the residual code
// assumed is assigned or redefined, the procedure is invalidated: it then calls f itself, and the
// cache forgets it so the next `specialize` sees the new definition.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/object.hpp"
#include "pe/budgets.hpp"

namespace quasi {
struct Vm;
struct Environment;
struct LambdaNode;
struct Var;
}  // namespace quasi

namespace quasi::pe {

struct PeState;

PeState* make_state();

// `fixed` is sorted by position; `who` names the Scheme procedure in error messages.
Value specialize(Vm& vm, PeState& st, Value proc, const std::vector<std::pair<int64_t, Value>>& fixed,
                 const char* who, const Options& options = Options{});
Value residual_of(PeState& st, Value proc, const char* who);
// What the request that made `proc` generalized, left residual or gave up: a list of alists
// ((action . a) (reason . r) (procedure . name) (location . "file:line:col") (detail . "...")
// (count . n)), oldest first.
Value explanation_of(PeState& st, Value proc, const char* who);
Value stats_alist(PeState& st);

// (%ad-j c) of a closure the evaluator made (it has no compiled layout): lib/ad, which sits above
// this layer, installs the maker of J for closures of a lambda (ad/ad.hpp, ad_maker_for_lambda).
// Without it such a request falls back.
using AdMakerHook = Value (*)(Vm& vm, Value ad_j, LambdaNode* lam, Var* self, std::vector<Var*>& fvs);
void set_ad_maker_hook(AdMakerHook hook);
// (%ad-j-quiet? j) of a J the evaluator made from a maker (ad_j_closure): whether j's lambda is
// the J of a quiet procedure (ad/reverse.hpp), which lib/ad records. Without it: not known (#f).
using AdQuietHook = bool (*)(Value ad_j, LambdaNode* j);
void set_ad_quiet_hook(AdQuietHook hook);

}  // namespace quasi::pe

namespace quasi {
void register_pe_primitives(Environment* env);  // pe/api.cpp: specialize, residual, ...

}  // namespace quasi
