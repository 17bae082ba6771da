// gc_threads.hpp — whether the collector runs single-threaded: a process that uses it from one
// thread only (the quasi executable) says so before gc_init, and the collector then runs without
// its lock and without its parallel marker threads until the heap passes kParallelMarkHeapBytes,
// when that thread switches it to its multi-threaded mode (GC_allow_register_threads, which also
// starts the markers). A small heap is marked faster by one thread than by two that must meet at
// every collection, and start-up creates no thread for the collector.
//
// Invariant: while gc_one_thread() is true, no thread but the one that ran gc_init calls into
// the collector (attach_thread in engine.cpp refuses others).
#pragma once

#include <cstddef>

namespace quasi {

// Before gc_init; no effect after it.
void gc_set_one_thread();
bool gc_one_thread();
constexpr size_t kParallelMarkHeapBytes = size_t(32) << 20;
// At allocation slow paths (core/gc.cpp: refill_small) on the one thread, outside the
// collector: goes multi-threaded once the heap has passed kParallelMarkHeapBytes.
void gc_heap_check();

}  // namespace quasi
