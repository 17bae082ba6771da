// error.hpp — the exceptions through which Scheme errors and (exit) reach C++, and through which
// C++ code raises Scheme errors. Part of the public API (included by quasi.hpp); also used inside
// the engine, which cannot include quasi.hpp because the public Value handle and the engine's
// Value word share a name.
#pragma once

#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace quasi {

// A Scheme error that reached C++, or an error C++ code raises for Scheme.
//
// Thrown by Engine::eval, load, call, get... when Scheme code raises and no Scheme handler takes
// it, when a resource limit stops an evaluation (kind "limit"), and by Value conversions that do
// not fit (kind "type" or "range"). Thrown *inside* a function registered with Engine::define, it
// becomes a Scheme error object that Scheme code can `guard`: kind "error" unless given, message
// "name: <message>" where name is the registered function's.
class Error : public std::runtime_error {
 public:
  // One Scheme procedure active when the error was raised.
  struct Frame {
    std::string procedure;               // its name, or "" when anonymous
    std::string location;                // "file:line:col" it was at (the failing call, or the
                                         // call it made to the frame above), or ""
    std::vector<std::string> arguments;  // its parameters' values, written (bounded in number
                                         // and length)
    std::vector<std::string> parameters;  // their names, one per argument ("" when unknown)
    bool internal = false;               // a procedure of Quasi's own Scheme prelude
    // When the last argument is a rest list: its elements, written, as the call passed them
    // (bounded like `arguments`; `rest_more` when some were left out).
    bool has_rest = false;
    std::vector<std::string> rest;
    bool rest_more = false;
  };

  // An error raised by C++ code. `kind` as below.
  explicit Error(const std::string& message, std::string kind = "error");
  // Made by the engine. `what` is the full report: "file:line:col: error: message irritant ...".
  Error(const std::string& what, std::string kind, std::string message,
        std::vector<std::string> irritants, std::string location,
        std::vector<std::string> backtrace, std::shared_ptr<void> payload = nullptr,
        std::vector<Frame> frames = {}, size_t frame_count = 0);

  // The error object's kind: "error" (from `error`), "type", "arity", "range", "unbound",
  // "syntax", "read", "file", "divide-by-zero", "interrupt", "limit", ..., or "raise" when a
  // non-error object was raised.
  const std::string& kind() const { return kind_; }
  // The message with the name of the failing procedure and without irritants:
  // "car: expected a pair, got 42", "vector-ref: index out of range: 10", "bad input".
  const std::string& message() const { return message_; }
  // The irritants, each in `write` form: (error "bad input" 42 "x") gives {"42", "\"x\""}.
  const std::vector<std::string>& irritants() const { return irritants_; }
  // "file:line:col" of the failing call, or "".
  const std::string& location() const { return location_; }
  // Scheme procedure names, innermost first.
  const std::vector<std::string>& backtrace() const { return backtrace_; }
  // The innermost frames (at most 64), innermost first, with locations and arguments.
  const std::vector<Frame>& frames() const { return frames_; }
  // How many Scheme frames were active in all (frames() may list fewer).
  size_t frame_count() const { return frame_count_; }

  // Internal: the raised Scheme object, kept alive while the exception exists (see
  // quasi::error_object in quasi.hpp for the public way to reach it).
  const std::shared_ptr<void>& payload() const { return payload_; }

 private:
  std::string kind_, message_, location_;
  std::vector<std::string> irritants_, backtrace_;
  std::shared_ptr<void> payload_;
  std::vector<Frame> frames_;
  size_t frame_count_ = 0;
};

// Thrown when Scheme code calls (exit n) or (emergency-exit n). A function registered with
// Engine::define may throw it to end the program the same way.
class Exit : public std::exception {
 public:
  explicit Exit(int status) : status_(status) {}
  int status() const { return status_; }
  const char* what() const noexcept override { return "exit"; }

 private:
  int status_;
};

}  // namespace quasi
