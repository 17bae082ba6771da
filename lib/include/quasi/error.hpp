// error.hpp — the exceptions through which Scheme errors and (exit) reach C++. Part of the
// public API (included by quasi.hpp); also used inside the engine, which cannot include
// quasi.hpp because the public Value handle and the engine's Value word share a name.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace quasi {

// A Scheme error that reached C++.
class Error : public std::runtime_error {
 public:
  Error(const std::string& full_text, std::string message, std::string location,
        std::vector<std::string> backtrace);
  // The error text without location: "car: expected a pair, got 42".
  const std::string& message() const { return message_; }
  // "file:line:col" of the failing call, or "".
  const std::string& location() const { return location_; }
  // Scheme procedure names, innermost first.
  const std::vector<std::string>& backtrace() const { return backtrace_; }

 private:
  std::string message_, location_;
  std::vector<std::string> backtrace_;
};

// Thrown when Scheme code calls (exit n).
class Exit : public std::exception {
 public:
  explicit Exit(int status) : status_(status) {}
  int status() const { return status_; }
  const char* what() const noexcept override { return "exit"; }

 private:
  int status_;
};

}  // namespace quasi
