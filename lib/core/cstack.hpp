// cstack.hpp — how much C stack this thread has left.
//
// Owner: ir (moved from the expander so every recursive walk, at any layer, can ask). Invariant:
// a recursive C++ walk over unbounded data (IR, syntax, datums) stops — with a clean error or a
// fallback — when stack_exhausted() turns true, long before the real end of the stack.
#pragma once

#include <cstdint>

namespace quasi {

// Lowest usable stack address of this thread, found on first use (0 until then, 1 when unknown).
// Inline and constant-initialized: every node of every walk asks, so the question is a TLS load
// and a compare, not a call.
inline thread_local uintptr_t tl_stack_limit = 0;
uintptr_t find_stack_limit();  // sets tl_stack_limit

// True when the C stack of this thread is nearly used up (recursive walks then stop).
inline bool stack_exhausted() {
  char probe;
  uintptr_t limit = tl_stack_limit;
  if (!limit) [[unlikely]]
    limit = find_stack_limit();
  return reinterpret_cast<uintptr_t>(&probe) < limit;
}

}  // namespace quasi
