// limits.hpp — every limit and default of the e-graph engine, in one place (as lib/pe/budgets.hpp
// is for the partial evaluator). A Runner stops at the first limit it reaches and says which one
// (StopReason); reaching a limit never breaks the e-graph: it stays congruent and usable.
#pragma once

#include <cstddef>
#include <cstdint>

namespace quasi::egraph {

// The Runner's defaults are egg's (egg::Runner::default): 30 iterations, 10,000 e-nodes, 5 s.
constexpr size_t kDefaultIterLimit = 30;
constexpr size_t kDefaultNodeLimit = 10000;
constexpr double kDefaultTimeLimitSeconds = 5.0;

// Backoff scheduler (egg's BackoffScheduler): a rule whose matches in one iteration exceed its
// budget (kDefaultMatchLimit << times banned) is banned for kDefaultBanLength << times banned
// iterations. A run is not reported saturated while a rule is banned.
constexpr size_t kDefaultMatchLimit = 1000;
constexpr size_t kDefaultBanLength = 5;

// The applier adds at most this many nodes for one match before it checks the node limit again:
// a single rule applied to many matches cannot overshoot the node limit by more than its matches.
// Time is checked every kTimeCheckInterval matches applied or classes searched.
constexpr size_t kTimeCheckInterval = 256;

// Extraction: costs are doubles; a class without a finite-cost node (only cycles) has none.
constexpr double kInfiniteCost = 1e300;

}  // namespace quasi::egraph
