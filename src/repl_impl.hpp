// repl_impl.hpp — the REPL's internals shared by src/repl*.cpp: line input, the session state and
// the table of meta-commands.
//
// Output discipline: results and everything Scheme prints go through the engine's ports (so the
// engine knows whether the cursor is at the start of a line, and a session on a socket prints
// there); the REPL's own messages go to std::cout / std::cerr after a fresh line, flushed at once.
#pragma once

#include <csignal>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "quasi/quasi.hpp"
#include "repl.hpp"

namespace quasi::cli {

// ---- line input ----

enum class ReadStatus { kLine, kInterrupted, kEnd };

struct ReadResult {
  ReadStatus status;
  std::string line;
};

class LineReader {
 public:
  virtual ~LineReader() = default;
  virtual ReadResult read(const char* prompt) = 0;
  // Records a complete entry in the history (no-op without one).
  virtual void remember(const std::string&) {}
  // Prompts are printed and Ctrl-C is ignored between entries.
  virtual bool interactive() const = 0;
};

// libedit on a terminal (completion: repl_complete.cpp).
std::unique_ptr<LineReader> make_terminal_reader(Engine& engine);
// Plain lines from standard input; with `prompts`, prints them (a session on a socket).
std::unique_ptr<LineReader> make_stream_reader(bool prompts);


std::string_view trim(std::string_view s);

// ---- the session ----

class Repl;

// What a meta-command takes after its name.
enum class MetaArg {
  kNone,  // nothing
  kText,  // the rest of the line (possibly empty)
  kExpr,  // a Scheme expression, continued over further lines while incomplete
};

struct MetaCommand {
  const char* name;   // typed after the comma
  const char* alias;  // a short form, or ""
  MetaArg arg;
  const char* arg_name;  // shown by ,help; "" when the argument is optional
  const char* help;
  void (Repl::*run)(std::string_view arg);
};

// The meta-commands, in the order ,help lists them; their names, for completion.
std::span<const MetaCommand> meta_commands();
std::vector<std::string> meta_command_names();

// Printing limits and other ,set-table settings.
struct Settings {
  std::optional<int64_t> print_length = 1000;  // elements per list or vector; nullopt: all
  std::optional<int64_t> print_depth = 100;    // nesting levels
  std::optional<int64_t> width;                // columns; nullopt: the terminal's, or 79
};

class Repl {
 public:
  Repl(Engine& engine, LineReader& reader, const ReplOptions& options);
  int run();

  // Meta-commands (kMetaCommands in repl.cpp lists them with their help).
  void cmd_help(std::string_view);
  void cmd_time(std::string_view expr);
  void cmd_load(std::string_view file);
  void cmd_quit(std::string_view);
  void cmd_set(std::string_view arg);
  void cmd_ir(std::string_view expr);
  void cmd_optimize(std::string_view expr);
  void cmd_residual(std::string_view expr);
  void cmd_explain(std::string_view expr);
  void cmd_disasm(std::string_view expr);
  // repl_debug.cpp
  void cmd_bt(std::string_view);
  void cmd_frame(std::string_view arg);
  void cmd_locals(std::string_view);
  // repl_inspect.cpp
  void cmd_describe(std::string_view name);
  void cmd_apropos(std::string_view text);
  void cmd_doc(std::string_view name);
  void cmd_expand(std::string_view expr);
  void cmd_gc(std::string_view);
  void cmd_profile(std::string_view expr);
  void cmd_trace(std::string_view names);
  void cmd_untrace(std::string_view names);

 private:
  // Reads further lines onto `text` while it ends inside a datum. False when Ctrl-C abandoned
  // the entry. End of input stops the reading and leaves `text` as it is (evaluating it then
  // reports the unfinished datum).
  bool complete_entry(std::string& text);
  void meta_command(std::string_view line);
  // Evaluates `code`, printing the value of each of its forms; false after an error (reported).
  bool evaluate(std::string_view code);
  // Runs `body` (a call into the engine) as an evaluation: Ctrl-C interrupts it, and an error or
  // (exit) is handled. False when it failed.
  template <class F>
  bool guarded(F body);
  void print_value(const Value& v);
  // Reports an error that ended an evaluation.
  void report(const Error& error);
  // Starts the REPL's own output on a fresh line.
  void fresh_lines();
  int64_t width() const;
  void print_ir(std::string_view code, std::string_view pass);
  // A field of (procedure-information proc): name, kind, arity, parameters, location, documentation.
  Value procedure_field(const Value& proc, const char* key);
  // A command that cannot do what was asked: "error: message" on stderr.
  void command_error(const std::string& message);
  // The error ,bt ,frame and ,locals inspect; false (reported) when there is none.
  void remember_error(const Error& error);
  bool have_frames();

  Engine& engine_;
  LineReader& reader_;
  ReplOptions options_;
  Settings settings_;
  Value print_proc_, fresh_lines_proc_;
  // Built-ins the commands use, taken before any user code runs (a user may redefine the names).
  struct {
    Value procedure_information, jit_compile, jit_disassemble, documentation, gc_stats, profile;
  } builtins_;
  std::optional<Error> last_error_;
  size_t frame_ = 0;  // selected by ,frame
  // ,trace: the original value of each traced global.
  std::map<std::string, Value> traced_;
  Value make_tracer_;
  Value profile_both_;  // (lambda (profile thunk) ...): profile's two values as a list
  bool end_of_input_ = false;
  std::optional<int> exit_status_;
};

template <class F>
bool Repl::guarded(F body) {
  try {
    EvaluationScope scope;
    body();
    return true;
  } catch (const Exit& e) {
    exit_status_ = e.status();
  } catch (const Error& e) {
    report(e);
  } catch (const std::exception& e) {
    fresh_lines();
    std::cerr << "error: " << e.what() << std::endl;
  }
  return false;
}

}  // namespace quasi::cli
