// system.hpp — process-level requests raised by builtins and handled by the engine.
#pragma once

namespace quasi {

// Thrown (as a C++ exception, not a Scheme condition) by `exit` and `emergency-exit`. The engine
// catches it at the top: for `exit` it runs the outstanding dynamic-wind `after` thunks, calls
// flush_standard_ports() and ends the program with `status`; for `emergency-exit`
// (emergency == true) it ends the program at once, without unwinding or flushing.
// Status: no argument or #t -> 0, #f -> 1, an exact integer -> that integer, anything else -> 0.
struct ExitRequest {
  int status = 0;
  bool emergency = false;
};

}  // namespace quasi
