// quasi.hpp — the one public header of the Quasi engine. Nothing of the internals (values,
// GC, GMP, asmjit) leaks through it; the `quasi` executable is built against it alone.
//
//   quasi::Engine engine;
//   quasi::Value v = engine.eval("(+ 1 2)");
//   std::cout << v.to_string();            // 3
//
// Errors raised by Scheme code reach C++ as quasi::Error; `(exit n)` reaches it as quasi::Exit.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "quasi/error.hpp"

namespace quasi {

class Engine;
struct EngineState;

// A Scheme value held by C++. The object it names stays alive as long as the handle exists.
class Value {
 public:
  Value();
  ~Value();
  Value(const Value& other);
  Value& operator=(const Value& other);

  // `write` form. Multiple values (from `values`) print one per line; nothing for none.
  std::string to_string() const;
  // `display` form.
  std::string to_display_string() const;
  bool is_unspecified() const;  // also true for zero values
  bool is_number() const;
  bool is_string() const;
  bool is_procedure() const;
  bool is_true() const;  // everything but #f
  int64_t as_int() const;     // throws quasi::Error when not an exact integer in range
  double as_double() const;   // any real number
  std::string as_string() const;  // a Scheme string's contents (UTF-8)

  // Internal: the raw word.
  explicit Value(uint64_t raw);
  uint64_t raw() const;

 private:
  uint64_t* slot_;  // a GC root owned by this handle
};

class Engine {
 public:
  Engine();
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Reads and evaluates every form of `code`; returns the value of the last one.
  // `source_name` appears in error locations ("<string>", "<repl>", a file name).
  Value eval(std::string_view code, std::string_view source_name = "<string>");
  // Loads a source file (a program: it may start with `import`).
  Value load(const std::string& path);
  // True when `code` ends inside an unfinished datum (REPL continuation lines).
  bool input_incomplete(std::string_view code) const;
  // What (command-line) returns: program name first.
  void set_command_line(const std::vector<std::string>& args);
  // Asks a running evaluation to stop with an 'interrupt error. Async-signal-safe.
  void interrupt();

  EngineState& state() { return *state_; }

 private:
  std::unique_ptr<EngineState> state_;
};

// Version of the engine, "major.minor.patch".
const char* version();

}  // namespace quasi
