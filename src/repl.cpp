// repl.cpp — the read-eval-print loop: line input (libedit on a terminal, plain lines from a
// pipe), multi-line entries, meta-commands, Ctrl-C handling and error reports.
//
// Ctrl-C has three meanings, chosen by the SIGINT handler from two flags:
//   - while Scheme code runs (an EvaluationScope is alive): ask the engine to stop
//     (Engine::interrupt is async-signal-safe); the evaluation fails with an interrupt error
//     and the loop goes on;
//   - while libedit waits at a prompt: abandon the entry being typed;
//   - otherwise, on a terminal (between prompt and evaluation, or while the REPL shuts down):
//     nothing — an interactive session is never killed by a Ctrl-C that lands in a gap;
//   - otherwise (a pipe feeding the REPL, a script): the default action, ending the process.
#include "repl.hpp"

#include <editline/readline.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <clocale>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

namespace quasi::cli {

// ---------------------------------------------------------------- error reports

void print_error(std::ostream& out, const Error& error) {
  std::cout.flush();  // what the program printed before failing comes first
  out << error.what() << '\n';
  const std::vector<std::string>& trace = error.backtrace();
  const size_t shown = std::min(trace.size(), static_cast<size_t>(kMaxBacktraceLines));
  for (size_t i = 0; i < shown; ++i) out << "  in " << trace[i] << '\n';
  if (trace.size() > shown) out << "  ... " << (trace.size() - shown) << " more\n";
  out.flush();
}

// ---------------------------------------------------------------- Ctrl-C

namespace {

Engine* g_engine = nullptr;                   // set once, before the handler is installed
volatile sig_atomic_t g_evaluating = 0;       // an EvaluationScope is alive
volatile sig_atomic_t g_at_prompt = 0;        // libedit is waiting for a line
volatile sig_atomic_t g_prompt_interrupted = 0;
volatile sig_atomic_t g_eval_interrupted = 0;  // Ctrl-C reached the current evaluation
volatile sig_atomic_t g_on_terminal = 0;       // the REPL reads from a terminal

// Only async-signal-safe calls in here: Engine::interrupt, signal, raise.
void on_sigint(int) {
  if (g_evaluating) {
    g_eval_interrupted = 1;
    g_engine->interrupt();
  } else if (g_at_prompt) {
    g_prompt_interrupted = 1;  // readline() returns null; the reader sees the flag
  } else if (!g_on_terminal) {
    signal(SIGINT, SIG_DFL);
    raise(SIGINT);
  }
}

}  // namespace

void install_interrupt_handler(Engine& engine) {
  g_engine = &engine;
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocked read at the prompt must return EINTR
  sigaction(SIGINT, &action, nullptr);
}

EvaluationScope::EvaluationScope() {
  g_eval_interrupted = 0;
  g_evaluating = 1;
}
EvaluationScope::~EvaluationScope() { g_evaluating = 0; }

// ---------------------------------------------------------------- line input

namespace {

constexpr const char* kPrompt = "quasi> ";
constexpr const char* kContinuationPrompt = "  ...> ";
constexpr int kHistoryLength = 1000;

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
  virtual void remember(const std::string& entry) {}
  virtual bool interactive() const = 0;
};

// Standard input that is not a terminal: plain lines, no prompts, no history.
class StreamReader final : public LineReader {
 public:
  ReadResult read(const char*) override {
    std::string line;
    if (!std::getline(std::cin, line)) return {ReadStatus::kEnd, {}};
    return {ReadStatus::kLine, std::move(line)};
  }
  bool interactive() const override { return false; }
};

// Tab completion: meta-command names after a leading comma (Scheme names need an engine
// query the public header does not offer yet).
char* complete_meta_command(const char* text, int state);
char** complete(const char* text, int start, int) {
  rl_attempted_completion_over = 1;  // never fall back to file names
  if (start == 0 && text[0] == ',') return rl_completion_matches(text, complete_meta_command);
  return nullptr;
}

// A terminal: libedit line editing with a persistent history.
class EditLineReader final : public LineReader {
 public:
  EditLineReader() {
    std::setlocale(LC_CTYPE, "");  // libedit decodes multibyte input by the locale
    rl_readline_name = "quasi";
    rl_catch_signals = 0;  // our SIGINT handler decides; libedit must not reinstall its own
    rl_attempted_completion_function = complete;
    using_history();
    stifle_history(kHistoryLength);
    if (const char* home = std::getenv("HOME"); home && *home) {
      history_path_ = std::string(home) + "/.quasi_history";
      read_history(history_path_.c_str());  // best effort: a missing file is normal
    }
  }

  ReadResult read(const char* prompt) override {
    g_prompt_interrupted = 0;
    g_at_prompt = 1;
    char* raw = readline(prompt);
    g_at_prompt = 0;
    if (raw == nullptr) {
      if (g_prompt_interrupted) {
        g_prompt_interrupted = 0;
        std::fputs("^C\n", stdout);
        std::fflush(stdout);
        return {ReadStatus::kInterrupted, {}};
      }
      std::fputs("\n", stdout);  // leave the terminal on a fresh line after Ctrl-D
      std::fflush(stdout);
      return {ReadStatus::kEnd, {}};
    }
    std::string line(raw);
    std::free(raw);
    return {ReadStatus::kLine, std::move(line)};
  }

  void remember(const std::string& entry) override {
    add_history(entry.c_str());
    // Written after every entry so a killed session keeps its history; failures are ignored.
    if (!history_path_.empty()) write_history(history_path_.c_str());
  }

  bool interactive() const override { return true; }

 private:
  std::string history_path_;
};

// ---------------------------------------------------------------- the loop

std::string_view trim(std::string_view s) {
  const char* space = " \t\r\n\f\v";
  size_t begin = s.find_first_not_of(space);
  if (begin == std::string_view::npos) return {};
  size_t end = s.find_last_not_of(space);
  return s.substr(begin, end - begin + 1);
}

class Repl;

// What a meta-command takes after its name.
enum class MetaArg {
  kNone,  // nothing
  kText,  // the rest of the line
  kExpr,  // a Scheme expression, continued over further lines while incomplete
};

struct MetaCommand {
  const char* name;   // typed after the comma
  const char* alias;  // a short form, or ""
  MetaArg arg;
  const char* arg_name;  // shown by ,help
  const char* help;
  void (Repl::*run)(std::string_view arg);
};

class Repl {
 public:
  Repl(Engine& engine, LineReader& reader) : engine_(engine), reader_(reader) {}

  int run();

  // Meta-commands (see kMetaCommands).
  void cmd_help(std::string_view);
  void cmd_time(std::string_view expr);
  void cmd_load(std::string_view file);
  void cmd_quit(std::string_view);
  void cmd_ir(std::string_view expr) { print_ir(expr, "expand"); }
  void cmd_optimize(std::string_view expr) { print_ir(expr, "all"); }
  void cmd_residual(std::string_view expr) { evaluate("(print-residual " + std::string(expr) + ")"); }
  // Machine code of a procedure (compiled first if it was not yet), as asmjit lists it.
  void cmd_disasm(std::string_view expr) {
    evaluate("(let ((p " + std::string(expr) + ")) (jit-compile! p) (display (jit-disassemble p)))");
  }

 private:
  // Reads further lines onto `text` while it ends inside a datum. False when Ctrl-C abandoned
  // the entry. End of input stops the reading and leaves `text` as it is (evaluating it then
  // reports the unfinished datum).
  bool complete_entry(std::string& text);
  void meta_command(std::string_view line);
  // Evaluates `code`, prints its value (unless unspecified) or the error.
  void evaluate(std::string_view code);
  // Reports an error that ended an evaluation or a load.
  void report(const Error& error);
  // Prints the core IR of `code` after optimizer pass `pass` (Engine::dump_ir).
  void print_ir(std::string_view code, std::string_view pass);

  Engine& engine_;
  LineReader& reader_;
  bool end_of_input_ = false;
  std::optional<int> exit_status_;
};

// One line per command; ,help lists them in this order.
const MetaCommand kMetaCommands[] = {
    {"help", "h", MetaArg::kNone, "", "list these commands", &Repl::cmd_help},
    {"time", "", MetaArg::kExpr, "EXPR", "evaluate EXPR, print its value and the wall time",
     &Repl::cmd_time},
    {"load", "", MetaArg::kText, "FILE", "load a source file", &Repl::cmd_load},
    {"quit", "q", MetaArg::kNone, "", "leave the REPL (so does Ctrl-D)", &Repl::cmd_quit},
    {"ir", "", MetaArg::kExpr, "EXPR", "print EXPR's core IR as the expander makes it", &Repl::cmd_ir},
    {"optimize", "", MetaArg::kExpr, "EXPR", "print EXPR's core IR after the optimizer", &Repl::cmd_optimize},
    {"residual", "", MetaArg::kExpr, "EXPR", "pretty-print the residual code of a specialized procedure", &Repl::cmd_residual},
    {"disasm", "", MetaArg::kExpr, "PROC", "compile PROC to machine code if needed and list it", &Repl::cmd_disasm},
};

const MetaCommand* find_meta_command(std::string_view name) {
  for (const MetaCommand& c : kMetaCommands)
    if (name == c.name || (*c.alias && name == c.alias)) return &c;
  return nullptr;
}

char* complete_meta_command(const char* text, int state) {
  static size_t next;
  if (state == 0) next = 0;
  std::string_view prefix = std::string_view(text).substr(1);  // after the comma
  while (next < std::size(kMetaCommands)) {
    std::string_view name = kMetaCommands[next++].name;
    if (name.substr(0, prefix.size()) == prefix) return strdup(("," + std::string(name)).c_str());
  }
  return nullptr;
}

int Repl::run() {
  if (reader_.interactive()) {
    std::cout << "Quasi " << version() << " -- ,help lists commands, Ctrl-D exits\n";
  }
  while (!exit_status_ && !end_of_input_) {
    ReadResult first = reader_.read(kPrompt);
    if (first.status == ReadStatus::kEnd) break;
    if (first.status == ReadStatus::kInterrupted) continue;

    std::string_view head = trim(first.line);
    if (!head.empty() && head.front() == ',') {
      meta_command(head.substr(1));
      continue;
    }
    std::string entry = std::move(first.line);
    if (!complete_entry(entry)) continue;
    if (trim(entry).empty()) continue;
    reader_.remember(entry);
    evaluate(entry);
  }
  std::cout.flush();
  return exit_status_.value_or(0);
}

bool Repl::complete_entry(std::string& text) {
  while (engine_.input_incomplete(text)) {
    ReadResult more = reader_.read(kContinuationPrompt);
    if (more.status == ReadStatus::kInterrupted) return false;
    if (more.status == ReadStatus::kEnd) {
      end_of_input_ = true;
      return true;
    }
    text += '\n';
    text += more.line;
  }
  return true;
}

void Repl::meta_command(std::string_view line) {
  size_t name_end = line.find_first_of(" \t");
  std::string_view name = line.substr(0, name_end);
  std::string arg(name_end == std::string_view::npos ? std::string_view{}
                                                     : trim(line.substr(name_end)));
  const MetaCommand* command = find_meta_command(name);
  if (command == nullptr) {
    std::cerr << "unknown command ," << name << " (try ,help)\n";
    return;
  }
  if (command->arg == MetaArg::kExpr && !complete_entry(arg)) return;
  if (command->arg != MetaArg::kNone && trim(arg).empty()) {
    std::cerr << "usage: ," << command->name << ' ' << command->arg_name << '\n';
    return;
  }
  reader_.remember("," + std::string(line.substr(0, name_end)) + (arg.empty() ? "" : " " + arg));
  (this->*command->run)(arg);
}

void Repl::evaluate(std::string_view code) {
  try {
    Value result;
    {
      EvaluationScope scope;
      result = engine_.eval(code, "<repl>");
    }
    if (!result.is_unspecified()) std::cout << result.to_string() << '\n';
    std::cout.flush();
  } catch (const Exit& e) {
    exit_status_ = e.status();
  } catch (const Error& e) {
    report(e);
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "error: " << e.what() << '\n';
  }
}

void Repl::report(const Error& error) {
  // The terminal has echoed "^C" after whatever the program printed: start a fresh line.
  if (g_eval_interrupted && reader_.interactive()) std::cerr << '\n';
  print_error(std::cerr, error);
}

void Repl::cmd_help(std::string_view) {
  std::cout << "Meta-commands (at the start of a line):\n";
  for (const MetaCommand& c : kMetaCommands) {
    std::string usage = "," + std::string(c.name);
    if (*c.arg_name) usage += " " + std::string(c.arg_name);
    if (*c.alias) usage += "  ," + std::string(c.alias);
    std::cout << "  " << std::left << std::setw(16) << usage << ' ' << c.help << '\n';
  }
  std::cout << "Anything else is Scheme code; an entry continues over several lines until\n"
               "its datums are complete. Ctrl-C interrupts a running evaluation.\n";
  std::cout.flush();
}

void Repl::cmd_time(std::string_view expr) {
  auto start = std::chrono::steady_clock::now();
  evaluate(expr);
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  std::cout << "; " << std::fixed << std::setprecision(3) << elapsed.count() << " s elapsed\n"
            << std::defaultfloat;
  std::cout.flush();
}

void Repl::cmd_load(std::string_view file) {
  std::string path(file);
  if (path.size() >= 2 && path.front() == '"' && path.back() == '"')
    path = path.substr(1, path.size() - 2);
  try {
    EvaluationScope scope;
    engine_.load(path);
  } catch (const Exit& e) {
    exit_status_ = e.status();
  } catch (const Error& e) {
    report(e);
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "error: " << e.what() << '\n';
  }
}

void Repl::cmd_quit(std::string_view) { exit_status_ = 0; }

void Repl::print_ir(std::string_view code, std::string_view pass) {
  try {
    std::cout << engine_.dump_ir(code, pass);
    std::cout.flush();
  } catch (const Error& e) {
    report(e);
  }
}

}  // namespace

int run_repl(Engine& engine) {
  install_interrupt_handler(engine);
  if (isatty(STDIN_FILENO)) {
    g_on_terminal = 1;
    EditLineReader reader;
    return Repl(engine, reader).run();
  }
  StreamReader reader;
  return Repl(engine, reader).run();
}

}  // namespace quasi::cli
