// repl.cpp — the read-eval-print loop: Ctrl-C handling, line input (libedit on a terminal, plain
// lines from a pipe), multi-line entries, printing and the meta-command table.
//
// Ctrl-C has these meanings, chosen by the SIGINT handler from two flags:
//   - while Scheme code runs (an EvaluationScope is alive): ask the engine to stop
//     (Engine::interrupt is async-signal-safe); the evaluation fails with an interrupt error
//     and the loop goes on. A read blocked on the terminal returns EINTR (the handler is
//     installed without SA_RESTART) and the port raises the interrupt error at once;
//   - while libedit waits at a prompt: abandon the entry being typed;
//   - otherwise, on a terminal (between prompt and evaluation, or while the REPL shuts down):
//     nothing — an interactive session is never killed by a Ctrl-C that lands in a gap;
//   - otherwise (a pipe feeding the REPL, a script): the default action, ending the process.
#include "repl.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include "repl_impl.hpp"
#include "repl_scheme.hpp"

namespace quasi::cli {

// ---------------------------------------------------------------- Ctrl-C

namespace {

Engine* g_engine = nullptr;                   // set once, before the handler is installed
volatile sig_atomic_t g_evaluating = 0;       // an EvaluationScope is alive
volatile sig_atomic_t g_eval_interrupted = 0;  // Ctrl-C reached the current evaluation
volatile sig_atomic_t g_on_terminal = 0;       // the REPL reads from a terminal

}  // namespace

volatile sig_atomic_t g_at_prompt = 0;         // libedit is waiting for a line
volatile sig_atomic_t g_prompt_interrupted = 0;

namespace {

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
  action.sa_flags = 0;  // no SA_RESTART: a blocked read (prompt or Scheme) must return EINTR
  sigaction(SIGINT, &action, nullptr);
}

EvaluationScope::EvaluationScope() {
  g_eval_interrupted = 0;
  g_evaluating = 1;
}
EvaluationScope::~EvaluationScope() { g_evaluating = 0; }

// ---------------------------------------------------------------- line input

std::string_view trim(std::string_view s) {
  const char* space = " \t\r\n\f\v";
  size_t begin = s.find_first_not_of(space);
  if (begin == std::string_view::npos) return {};
  size_t end = s.find_last_not_of(space);
  return s.substr(begin, end - begin + 1);
}

namespace {

constexpr const char* kPrompt = "quasi> ";
constexpr const char* kContinuationPrompt = "  ...> ";
constexpr int64_t kDefaultWidth = 79;

// Standard input that is not a terminal: plain lines, no history.
class StreamReader final : public LineReader {
 public:
  explicit StreamReader(bool prompts) : prompts_(prompts) {}
  ReadResult read(const char* prompt) override {
    if (prompts_) {
      std::cout << prompt << std::flush;
    }
    std::string line;
    if (!std::getline(std::cin, line)) return {ReadStatus::kEnd, {}};
    return {ReadStatus::kLine, std::move(line)};
  }
  bool interactive() const override { return prompts_; }

 private:
  bool prompts_;
};

}  // namespace

std::unique_ptr<LineReader> make_stream_reader(bool prompts) { return std::make_unique<StreamReader>(prompts); }

// ---------------------------------------------------------------- meta-commands

namespace {

// One line per command; ,help lists them in this order.
const MetaCommand kMetaCommands[] = {
    {"help", "h", MetaArg::kNone, "", "list these commands", &Repl::cmd_help},
    {"time", "", MetaArg::kExpr, "EXPR", "evaluate EXPR, print its value and the wall time", &Repl::cmd_time},
    {"load", "", MetaArg::kText, "FILE", "load a source file", &Repl::cmd_load},
    {"set", "", MetaArg::kText, "[NAME VALUE]",
     "show or change a setting: print-length, print-depth, width (a number, or off)", &Repl::cmd_set},
    {"ir", "", MetaArg::kExpr, "EXPR", "print EXPR's core IR as the expander makes it", &Repl::cmd_ir},
    {"optimize", "", MetaArg::kExpr, "EXPR", "print EXPR's core IR after the optimizer", &Repl::cmd_optimize},
    {"residual", "", MetaArg::kExpr, "EXPR", "pretty-print the residual code of a specialized procedure",
     &Repl::cmd_residual},
    {"explain", "", MetaArg::kExpr, "EXPR",
     "what specialize generalized or gave up for a specialized procedure, where and why", &Repl::cmd_explain},
    {"disasm", "", MetaArg::kExpr, "PROC", "compile PROC to machine code if needed and list it", &Repl::cmd_disasm},
    {"describe", "d", MetaArg::kText, "NAME", "what NAME is: kind, arity, parameters, location, documentation",
     &Repl::cmd_describe},
    {"doc", "", MetaArg::kText, "NAME", "the documentation line of a built-in", &Repl::cmd_doc},
    {"apropos", "a", MetaArg::kText, "TEXT", "the bound names that contain TEXT", &Repl::cmd_apropos},
    {"expand", "", MetaArg::kExpr, "EXPR", "EXPR with every macro expanded, as Scheme", &Repl::cmd_expand},
    {"trace", "", MetaArg::kText, "[NAME ...]",
     "print each call and return of the procedures NAME ...; alone: list what is traced", &Repl::cmd_trace},
    {"untrace", "", MetaArg::kText, "[NAME ...]", "stop tracing NAME ... (alone: everything)", &Repl::cmd_untrace},
    {"bt", "backtrace", MetaArg::kNone, "", "the frames of the last error, innermost first", &Repl::cmd_bt},
    {"frame", "", MetaArg::kText, "[N]", "select frame N of the last error (and show it)", &Repl::cmd_frame},
    {"locals", "", MetaArg::kNone, "", "the parameters of the selected frame, by name", &Repl::cmd_locals},
    {"profile", "", MetaArg::kExpr, "EXPR",
     "evaluate EXPR under the statistical profiler; list where the time went", &Repl::cmd_profile},
    {"gc", "", MetaArg::kNone, "", "collect garbage and print heap statistics", &Repl::cmd_gc},
    {"quit", "q", MetaArg::kNone, "", "leave the REPL (so does Ctrl-D)", &Repl::cmd_quit},
};

const MetaCommand* find_meta_command(std::string_view name) {
  for (const MetaCommand& c : kMetaCommands)
    if (name == c.name || (*c.alias && name == c.alias)) return &c;
  return nullptr;
}

}  // namespace

std::span<const MetaCommand> meta_commands() { return kMetaCommands; }

std::vector<std::string> meta_command_names() {
  std::vector<std::string> names;
  for (const MetaCommand& c : kMetaCommands) names.emplace_back(c.name);
  return names;
}

// ---------------------------------------------------------------- the loop

Repl::Repl(Engine& engine, LineReader& reader, const ReplOptions& options)
    : engine_(engine), reader_(reader), options_(options) {
  print_proc_ = engine_.eval(scheme::kPrint, "<repl-support>");
  fresh_lines_proc_ = engine_.eval(scheme::kFreshLines, "<repl-support>");
  builtins_.procedure_information = engine_.get("procedure-information");
  builtins_.jit_compile = engine_.get("jit-compile!");
  builtins_.jit_disassemble = engine_.get("jit-disassemble");
  builtins_.documentation = engine_.get("documentation");
  builtins_.gc_stats = engine_.get("gc-stats");
  builtins_.profile = engine_.get("profile");
  profile_both_ = engine_.eval("(lambda (profile thunk) (call-with-values (lambda () (profile thunk)) list))",
                               "<repl-support>");
  make_tracer_ = engine_.eval(scheme::kMakeTracer, "<repl-support>");
}

int Repl::run() {
  if (reader_.interactive()) {
    std::cout << "Quasi " << version() << " -- ,help lists commands, Ctrl-D exits\n";
  }
  while (!exit_status_ && !end_of_input_) {
    if (reader_.interactive()) fresh_lines();
    std::cout.flush();
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
  fresh_lines();
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
  std::string arg(name_end == std::string_view::npos ? std::string_view{} : trim(line.substr(name_end)));
  const MetaCommand* command = find_meta_command(name);
  if (command == nullptr) {
    fresh_lines();
    std::cerr << "unknown command ," << name << " (try ,help)" << std::endl;
    return;
  }
  if (command->arg == MetaArg::kExpr && !complete_entry(arg)) return;
  if (command->arg != MetaArg::kNone && *command->arg_name && command->arg_name[0] != '[' && trim(arg).empty()) {
    fresh_lines();
    std::cerr << "usage: ," << command->name << ' ' << command->arg_name << std::endl;
    return;
  }
  std::string entry = ",";
  entry += line.substr(0, name_end);
  if (!arg.empty()) {
    entry += ' ';
    entry += arg;
  }
  reader_.remember(entry);
  (this->*command->run)(arg);
}

bool Repl::evaluate(std::string_view code) {
  return guarded([&] {
    engine_.eval(code, "<repl>", [&](const Value& v) { print_value(v); });
  });
}

void Repl::print_value(const Value& v) {
  if (v.is_unspecified()) return;  // definitions, (if #f #f), (values)
  auto limit = [](const std::optional<int64_t>& n) { return n ? Value(*n) : Value(false); };
  engine_.call(print_proc_, v, width(), limit(settings_.print_length), limit(settings_.print_depth));
}

void Repl::fresh_lines() {
  std::cout.flush();
  try {
    engine_.call(fresh_lines_proc_);
  } catch (const Error&) {
    // a closed or broken output port: nothing to do about it here
  }
}

int64_t Repl::width() const {
  if (settings_.width) return *settings_.width;
  struct winsize ws {};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col - 1;
  return kDefaultWidth;
}

void Repl::report(const Error& error) {
  // The terminal has echoed "^C" after whatever the program printed: start a fresh line.
  if (g_eval_interrupted && g_on_terminal) std::cerr << '\n';
  fresh_lines();
  print_error(std::cerr, error, options_.verbose_backtrace);
  remember_error(error);
}

int run_repl(Engine& engine, const ReplOptions& options) {
  install_interrupt_handler(engine);
  std::unique_ptr<LineReader> reader;
  if (isatty(STDIN_FILENO)) {
    g_on_terminal = 1;
    reader = make_terminal_reader(engine);
  } else {
    reader = make_stream_reader(options.prompts);
  }
  return Repl(engine, *reader, options).run();
}

}  // namespace quasi::cli
