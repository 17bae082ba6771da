// alloc_watch.hpp — what one thread has allocated, and the check an evaluation with limits hangs
// on it, so that a single long primitive call (make-list, string-append, a big number, equal? on a
// huge structure, a runaway macro expansion) sees the evaluation's time, memory and interrupt
// limits, and a huge object is refused before it is allocated.
//
// Owner: rel. Invariants: tl_allocated_bytes grows by the size of every object from gc.hpp's
// allocation functions on this thread (small objects a free-list block at a time: exactly while
// tl_limits_set, else by a block's worth per refill, which may count more than the list holds), so an
// engine's memory limit counts its own thread only, never another engine's. The watch is called
// before every allocation of kWatchedBytes or more (with its size), before the first allocation
// after each further kWatchedBytes of smaller ones, at every refill of a small-object free list,
// and from long C++ loops through limit_tick(); only on a thread whose
// evaluation installed one (vm/vm.hpp: LimitScope). It may throw (the limit's error).
#pragma once

#include <cstddef>
#include <cstdint>

namespace quasi {

inline thread_local uint64_t tl_allocated_bytes = 0;
// The count at which the next object smaller than kWatchedBytes calls the watch (gc.hpp).
inline thread_local uint64_t tl_watch_at = 0;

// `who` names the procedure doing the work when the caller knows it (null otherwise); `steps`
// is work to add to the evaluation's step count (macro expansion: charge_steps).
using AllocWatch = void (*)(size_t upcoming_bytes, const char* who, uint64_t steps);
inline thread_local AllocWatch tl_alloc_watch = nullptr;

// True while the watch belongs to an evaluation with a time or memory limit: work that can be
// done in checked steps at some cost (big-number conversions, expt) is done so only then.
inline thread_local bool tl_limits_set = false;

constexpr size_t kWatchedBytes = size_t(64) << 10;

// Before work that will allocate `bytes` (or take time in proportion): checks the limits now.
inline void watch_limits(size_t bytes, const char* who = nullptr) {
  if (AllocWatch w = tl_alloc_watch) w(bytes, who, 0);
}

// Work done outside the VM that the step limit should see (macro expansion), then the limits.
inline void charge_steps(uint64_t steps, const char* who = nullptr) {
  if (AllocWatch w = tl_alloc_watch) w(0, who, steps);
}

// For loops in C++ that neither allocate nor return to the VM for long (equal?, hashing, list
// walks): every kTickPeriod calls, checks the limits.
constexpr int32_t kTickPeriod = 1 << 14;
inline thread_local int32_t tl_tick_countdown = kTickPeriod;
inline void limit_tick(const char* who = nullptr) {
  if (--tl_tick_countdown <= 0) {
    tl_tick_countdown = kTickPeriod;
    watch_limits(0, who);
  }
}

}  // namespace quasi
