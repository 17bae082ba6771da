// oracle.hpp — a second oracle for the generator: the same programs run by another Scheme.
//
// Every way Quasi runs a program can agree and still be wrong (a primitive's meaning, a number's
// exactness). So the generated programs also run in Guile 3 (when installed; `guile` on the path
// or $QUASI_GEN_GUILE), and its outcomes are compared with Quasi's interpreter.
//
// Both sides run the same text: a prelude in portable R7RS, then one `(oracle-run ...)` per call.
// What is compared is a canonical datum of each outcome (oracle-canon below), so the two printers
// may differ (1e300 / 1.0e300, #\x0 / #\nul): flonums become exact rationals or a tag, characters,
// strings and symbols become code points. What R7RS leaves to the implementation is taken out:
// an error is compared as "an error was raised", not by its message or irritants (the program's
// own calls to error-object-message / -irritants read constants), and a call is left out of the
// comparison when one side raised an error and the other did not (R7RS's "it is an error" lets
// an implementation raise or not; `--oracle-strict` keeps them to see what differs). Two outcomes
// also agree when they differ only in flonums within a relative 1e-13 (libm's log, atan ...), or
// where Quasi's number is exact and the other's is inexact with the same value ((log 1) => 0).
// Traces that differ only in the order of their elements agree too: R7RS leaves the order of a
// call's operands open (Quasi evaluates left to right, Guile often right to left).
// Every guard of the program gets an else clause that re-raises from the guard's own dynamic
// environment: Guile's native re-raise does not return to the raise's (dynamic-wind thunks do not
// run again) where R7RS says it does and Quasi does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "generator.hpp"

namespace quasi_gen {

struct OracleMismatch {
  size_t program = 0;  // index into the batch
  size_t tuple = 0;
  std::string call;    // the call (source)
  std::string quasi;   // canonical outcomes
  std::string other;
};

class Oracle {
 public:
  // The Guile command to use, or "" when none is installed.
  static std::string find_guile();

  Oracle(std::string command, bool strict) : command_(std::move(command)), strict_(strict) {}

  // Runs every call of every program both ways (Guile in one process for the batch) and returns
  // where the canonical outcomes differ. `error` is set when the other Scheme could not run the
  // batch at all (then nothing is compared).
  std::vector<OracleMismatch> compare(const std::vector<Program>& programs, std::string* error);

  // Calls compared in total, and left out because only one side raised an error; of those
  // compared, the ones that agreed but for flonums a few ulps apart (the two libms), or where
  // Quasi's result was exact and the other's the same value inexact (both allowed by R7RS).
  // And the ones whose traces differ only in order (operands are evaluated in an unspecified order).
  // Calls not given to the other Scheme because Quasi stopped one of the program's calls at its
  // time limit (a program that does not terminate).
  uint64_t compared = 0, left_out = 0, rounding = 0, more_exact = 0, order = 0, not_terminating = 0;

 private:
  std::string command_;
  bool strict_;
};

}  // namespace quasi_gen
