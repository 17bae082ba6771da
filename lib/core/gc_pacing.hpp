// gc_pacing.hpp — how often the collector runs: Boehm's free-space divisor and the collection
// window's floor, both steered by the share of CPU time the collections take.
//
// Boehm collects once the bytes allocated since the last collection reach about the live heap's
// size divided by the divisor (3 by default), so each collection marks the whole live heap again.
// A program with a large, long-lived heap (an Earley chart, a graph, a big tree) then spends most
// of its time marking the same objects. Pacing lowers the divisor while collections take more
// than a fixed share of the CPU time (the heap grows: more room between collections) and raises
// it again while they take little.
//
// A small live heap is paced by the window instead: Boehm collects no sooner than `window` bytes
// after the previous collection (GC_set_min_bytes_allocd), whatever the divisor says. A small
// window keeps the memory being allocated in the cache: every block handed out again was last
// touched one window ago (lists.scm, callcc.scm, mandel.scm run 10-15 % faster with 6 MiB than
// with 16 MiB). But each collection also marks the prelude's data (about 0.5 MiB, 0.3-0.6 ms),
// which a program allocating large objects (strings.scm) pays for every few megabytes; while
// collections take much of the time and the live heap is small next to the window, it doubles.
//
// Invariants: the divisor stays in [kMinFreeSpaceDivisor, kMaxFreeSpaceDivisor], the window in
// [kMinWindowBytes, kMaxWindowBytes]; GC_FREE_SPACE_DIVISOR in the environment turns pacing off
// (the user chose).
#pragma once

#include <cstddef>
#include <cstdint>

namespace quasi {

// The policy's numbers, measured on r7rs-benchmarks graphs/earley/nboyer/paraffins and bench/
// (bench/README.md, "Collector pacing"): above kHighGcShare the divisor drops a step, below
// kLowGcShare it rises a step.
constexpr uint64_t kMinFreeSpaceDivisor = 1, kMaxFreeSpaceDivisor = 3;
constexpr double kHighGcShare = 0.35, kLowGcShare = 0.10;
// The window's range (bench/README.md, "Collector pacing"): the floor about the size of the
// cache that pays on lists.scm, the ceiling twice the 16 MiB initial heap used before.
constexpr size_t kMinWindowBytes = size_t(6) << 20, kMaxWindowBytes = size_t(32) << 20;

// The policy alone (no clock, no collector), so tests can drive it.
struct GcPacing {
  double share = 0;  // smoothed share of CPU time spent collecting
  uint64_t divisor = kMaxFreeSpaceDivisor;
  size_t window = kMinWindowBytes;
  // After a collection that took `collection` seconds of the `cycle` seconds since the previous
  // one ended (both CPU time), leaving `in_use` bytes of the heap in blocks that hold objects:
  // the divisor to use from now on (`window` is updated too). The window widens only while
  // the heap in use is under half of it: then the window, not the live heap, sets the length
  // of a cycle (Boehm's own trigger is about twice the live heap over the divisor). Once the
  // heap in use reaches half the window, the window halves at each collection down to its
  // floor: a large live heap is paced by the divisor alone, so its peak RSS does not grow by a
  // window widened while it was small.
  uint64_t after_collection(double collection, double cycle, size_t in_use = 0);
};

// Installs the collection-event hook. Called once, from gc_init.
void gc_start_pacing();

}  // namespace quasi
