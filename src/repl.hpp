// repl.hpp — the interactive loop of the `quasi` executable and the error report it shares
// with script mode.
//
// Everything here is built on the public header alone (quasi/quasi.hpp): if the REPL needs
// something the header does not offer, the header is what grows.
#pragma once

#include <iosfwd>

#include "quasi/quasi.hpp"

namespace quasi::cli {

// The most backtrace lines an error report prints; the rest are summarised in one line.
inline constexpr int kMaxBacktraceLines = 10;

// Writes an uncaught error the way the top level reports it:
//   file:line:col: error: message
//     in (inner-procedure arg ...) at file:line:col
//     in (outer-procedure arg ...) at file:line:col
//     ... N more frames
// Frames of Quasi's own prelude procedures are left out unless `verbose`.
void print_error(std::ostream& out, const Error& error, bool verbose = false);
// One frame as a call: "(name arg ...)"; and as a backtrace line.
std::string frame_call(const Error::Frame& frame);
void print_frame(std::ostream& out, const Error::Frame& frame);

// Installs the SIGINT handler used while Scheme code runs: Ctrl-C then calls
// engine.interrupt(), and the evaluation fails with an interrupt error. At a prompt of an
// interactive REPL, Ctrl-C clears the line instead; anywhere else it ends the process as usual.
// Call before running anything; `engine` must outlive every later evaluation.
void install_interrupt_handler(Engine& engine);

// Marks the stretch during which Ctrl-C interrupts Scheme code instead of its default action.
class EvaluationScope {
 public:
  EvaluationScope();
  ~EvaluationScope();
  EvaluationScope(const EvaluationScope&) = delete;
  EvaluationScope& operator=(const EvaluationScope&) = delete;
};

struct ReplOptions {
  // Print prompts even when standard input is not a terminal (a session served on a socket,
  // an editor driving the REPL through a pipe): `quasi --interactive`.
  bool prompts = false;
  // Error reports show the frames of the prelude's own procedures too: --verbose-backtrace.
  bool verbose_backtrace = false;
};

// Runs the read-eval-print loop on standard input until end of input, `,quit` or (exit n).
// With a terminal on stdin it uses libedit (prompts, line editing, completion, history in
// ~/.quasi_history); otherwise it reads plain lines and prints no prompts (unless
// options.prompts), but still prints every result, so `echo '(+ 1 2)' | quasi` prints 3.
// Returns the process exit status.
int run_repl(Engine& engine, const ReplOptions& options = {});

}  // namespace quasi::cli
