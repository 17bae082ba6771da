// cstack.hpp — how much C stack this thread has left.
//
// Owner: ir (moved from the expander so every recursive walk, at any layer, can ask). Invariant:
// a recursive C++ walk over unbounded data (IR, syntax, datums) stops — with a clean error or a
// fallback — when stack_exhausted() turns true, long before the real end of the stack.
#pragma once

namespace quasi {

// True when the C stack of this thread is nearly used up (recursive walks then stop).
bool stack_exhausted();

}  // namespace quasi
