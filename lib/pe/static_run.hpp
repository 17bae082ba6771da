// static_run.hpp — static computation at full speed: a call whose callee and arguments are all
// static runs on the real evaluator (compiled code, the JIT) instead of being interpreted by the
// specializer, so (specialize f 25) for a static (fib 25) costs what (fib 25) costs.
//
// Invariant: a static run is only made when it cannot be told apart from running the call later,
// at run time: the callee and every procedure it can reach are PURE CODE (primitives without
// effects — `raise` and `error` allowed —, closures compiled from IR whose code assigns no global,
// reads no global that is not a procedure, and captures only frozen data and pure code), and the
// arguments are plain frozen data or pure code. A result is used only when it is plain frozen data
// (no procedure, no fresh mutable object, no uninterned symbol: those have an identity a later
// call would not share). A run that raises, or runs out of its step budget, leaves the call
// residual (it raises, or runs, at run time if reached); the rest of the request goes on.
#pragma once

#include <unordered_map>
#include <vector>

#include "pe/internal.hpp"

namespace quasi::pe {

enum class RunOutcome : uint8_t {
  kValue,     // *out is plain frozen data: the call's value
  kRaised,    // the call raises: it stays residual
  kBudget,    // out of steps: it stays residual
  kUnusable,  // returned something with an identity (a fresh pair, a procedure): specialize instead
};

class StaticRunner {
 public:
  StaticRunner(Vm& vm, PeState& st, uint64_t steps_per_run = kStaticRunSteps)
      : vm_(vm), st_(st), steps_per_run_(steps_per_run) {}

  // Whether calling `proc` can only compute (see the invariant). `written` are the globals the
  // residual code assigns (never assumed). On success the user globals whose procedures were
  // assumed are appended to `cells` (dependencies of the residual code).
  bool pure_code(Value proc, const FrozenCache& written, gc_vector<Value>& cells);
  // The same for code that is not a procedure yet: the lambda the specializer builds around one
  // of its closures (its static free variables as parameters).
  bool pure_tree(Node* tree, const FrozenCache& written, gc_vector<Value>& cells);
  // Plain frozen data (numbers, characters, booleans, interned symbols, literal strings, pairs
  // and vectors of such), within kStaticDataItems objects.
  // Verdicts are cached per request (frozen data does not change).
  bool plain_data(Value v);
  // Runs (proc args...) under the budgets.
  RunOutcome run(Value proc, const std::vector<Value>& args, Value* out);
  uint64_t steps_used() const { return used_; }

 private:
  bool scan(Node* tree, Value proc, const FrozenCache& written, std::vector<uint64_t>& assumed);
  Vm& vm_;
  PeState& st_;
  uint64_t steps_per_run_;
  uint64_t used_ = 0;
  // Verdicts per closure (bits) for this request: 1 pure, 2 not. Unknown lambdas are scanned.
  std::unordered_map<uint64_t, int> verdict_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> cells_of_;  // closure -> user cells assumed
  FrozenCache plain_;   // pairs and vectors found plain (their contents too)
  FrozenCache frozen_;  // is_frozen_deep's cache
};

}  // namespace quasi::pe
