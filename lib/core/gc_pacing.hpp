// gc_pacing.hpp — how often the collector runs: Boehm's free-space divisor, steered by the share
// of CPU time the collections take.
//
// Boehm collects once the bytes allocated since the last collection reach about the live heap's
// size divided by the divisor (3 by default), so each collection marks the whole live heap again.
// A program with a large, long-lived heap (an Earley chart, a graph, a big tree) then spends most
// of its time marking the same objects. Pacing lowers the divisor while collections take more
// than a fixed share of the CPU time (the heap grows: more room between collections) and raises
// it again while they take little. Invariant: the divisor stays in [kMinDivisor, kMaxDivisor];
// GC_FREE_SPACE_DIVISOR in the environment turns pacing off (the user chose).
#pragma once

#include <cstdint>

namespace quasi {

// The policy's numbers, measured on r7rs-benchmarks graphs/earley/nboyer/paraffins and bench/
// (bench/README.md, "Collector pacing"): above kHighGcShare the divisor drops a step, below
// kLowGcShare it rises a step.
constexpr uint64_t kMinFreeSpaceDivisor = 1, kMaxFreeSpaceDivisor = 3;
constexpr double kHighGcShare = 0.35, kLowGcShare = 0.10;

// The policy alone (no clock, no collector), so tests can drive it.
struct GcPacing {
  double share = 0;  // smoothed share of CPU time spent collecting
  uint64_t divisor = kMaxFreeSpaceDivisor;
  // After a collection that took `collection` seconds of the `cycle` seconds since the previous
  // one ended (both CPU time): the divisor to use from now on.
  uint64_t after_collection(double collection, double cycle);
};

// Installs the collection-event hook. Called once, from gc_init.
void gc_start_pacing();

}  // namespace quasi
