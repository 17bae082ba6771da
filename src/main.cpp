// main.cpp — the `quasi` executable: command-line parsing, script mode and -e, built on the
// public header alone.
//
//   quasi                     REPL
//   quasi FILE [ARGS...]      run a script; (command-line) is (FILE ARGS...)
//   quasi - [ARGS...]         run the script read from standard input
//   quasi -e EXPR [ARGS...]   evaluate EXPR; (command-line) is ("-e" ARGS...)
//   quasi --dump-ir=PASS FILE print the core IR of FILE's forms after optimizer pass PASS
//   quasi -i                  the REPL with prompts even without a terminal (editors)
//   quasi --listen[=ADDR]     serve the REPL on a loopback or Unix socket (server.hpp)
//   -I DIR, -A DIR            look for libraries in DIR before / after the built-in ones
//   --no-jit, --jit=MODE, --jit-log   choose and watch the native-code compiler (any mode)
//
// Exit status: 0 when the program finishes, 1 after an uncaught error, n after (exit n),
// 2 for a bad command line.
#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quasi/quasi.hpp"
#include "repl.hpp"
#include "server.hpp"

namespace {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

constexpr const char* kUsageLine = "usage: quasi [OPTION] [FILE [ARGS...]]\n";
constexpr const char* kHelpHint = "Try 'quasi --help' for more information.\n";
constexpr const char* kHelpText =
    "\n"
    "  quasi                    start the REPL\n"
    "  quasi FILE [ARGS...]     run the Scheme program FILE ('-' reads it from stdin)\n"
    "  quasi -e EXPR [ARGS...]  evaluate EXPR; it prints only what it displays\n"
    "\n"
    "options:\n"
    "  -e, --eval EXPR   evaluate EXPR instead of running a file\n"
    "  -h, --help        print this help and exit\n"
    "  -i, --interactive the REPL prints prompts even when stdin is not a terminal\n"
    "  -I DIR            look for libraries in DIR before the installed and built-in ones\n"
    "                    (repeatable; searched in the order given)\n"
    "  -A DIR            look for libraries in DIR after the built-in ones (repeatable)\n"
    "      --listen[=ADDR]\n"
    "                    serve the REPL on a local socket, one session (its own process\n"
    "                    and environment) per connection; ADDR is PORT (on 127.0.0.1,\n"
    "                    default 37100), [::1]:PORT or unix:PATH; never other hosts\n"
    "      --dump-ir=PASS FILE\n"
    "                    print the IR of each form of FILE after optimizer pass PASS\n"
    "                    (expand, a pass name, or all) and exit; nothing runs\n"
    "      --list-passes print the optimizer's passes and exit\n"
    "      --no-jit      interpret everything (same as --jit=off)\n"
    "      --jit=MODE    off, on (the default: compile hot procedures and everything\n"
    "                    specialize makes) or force (compile every procedure)\n"
    "      --jit-log     report on stderr what gets compiled to machine code and why\n"
    "  -W0, -Wnone       no compile-time warnings (by default they go to stderr:\n"
    "                    file:line:col: warning: ...)\n"
    "  -Wunbound-variable, -Warity-mismatch\n"
    "                    only these warnings (repeatable); -Wno-KIND turns one off,\n"
    "                    -Wall (the default) turns them all on\n"
    "      --verbose-backtrace\n"
    "                    error reports list the prelude's own procedures too\n"
    "      --version     print the version and exit\n"
    "  --                end of options: the next argument is FILE\n"
    "\n"
    "(command-line) returns (FILE ARGS...), or (\"-e\" ARGS...) with -e.\n"
    "(import (foo bar)) reads foo/bar.sld from, in order: the program's directory (the\n"
    "current one for the REPL and -e), each -I DIR, each directory of QUASI_LIBRARY_PATH\n"
    "(separated by ':'), the installed share/quasi/lib, the built-in libraries, each -A DIR.\n"
    "Exit status: 0 on success, 1 after an uncaught error, N after (exit N), 2 on a bad\n"
    "command line.\n";

struct Invocation {
  enum class Mode { kRepl, kScript, kEval, kHelp, kVersion, kDumpIr, kListPasses, kServe } mode = Mode::kRepl;
  quasi::cli::ListenAddress listen;       // --listen[=ADDR]
  std::vector<std::string> session_args;  // the options each served session inherits
  std::string dump_pass;  // --dump-ir=PASS
  quasi::cli::ReplOptions repl;  // --interactive
  quasi::Engine::Options engine_options;  // --no-jit, --jit=MODE, --jit-log
  std::string program;  // FILE, "-" or the -e expression
  std::vector<std::string> args;
  std::vector<std::string> include_dirs;  // -I DIR
  std::vector<std::string> append_dirs;   // -A DIR
  bool warnings_listed = false;           // a -WKIND was given
};

// The library search path (quasi::Engine::Options): -I dirs, QUASI_LIBRARY_PATH, the installed
// libraries beside the binary (bin/../share/quasi/lib, when it exists); -A dirs after the
// built-in ones.
void set_library_path(Invocation& inv) {
  std::vector<std::string>& path = inv.engine_options.library_path;
  path = inv.include_dirs;
  if (const char* env = std::getenv("QUASI_LIBRARY_PATH")) {
    std::string_view rest = env;
    while (!rest.empty()) {
      size_t colon = rest.find(':');
      std::string_view dir = rest.substr(0, colon);
      if (!dir.empty()) path.emplace_back(dir);
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::filesystem::path installed = exe.parent_path().parent_path() / "share" / "quasi" / "lib";
    if (std::filesystem::is_directory(installed, ec)) path.push_back(installed.string());
  }
  inv.engine_options.library_path_after = inv.append_dirs;
}

// -W0 -Wnone -Wall -W1 -WKIND -Wno-KIND (Guile's kinds: unbound-variable, arity-mismatch). The
// first -WKIND replaces the default set with the kinds listed.
bool parse_warning_option(std::string_view a, Invocation& inv) {
  using Options = quasi::Engine::Options;
  unsigned& kinds = inv.engine_options.warnings;
  std::string_view k = a.substr(2);
  if (k == "0" || k == "none") {
    kinds = 0;
    return true;
  }
  if (k == "1" || k == "all" || k.empty()) {
    kinds = Options::kAllWarnings;
    return true;
  }
  bool off = k.substr(0, 3) == "no-";
  if (off) k = k.substr(3);
  unsigned kind = k == "unbound-variable" ? Options::kUnboundVariable
                  : k == "arity-mismatch" ? Options::kArityMismatch
                                          : 0;
  if (!kind) {
    std::cerr << "quasi: unknown warning " << a << " (unbound-variable, arity-mismatch, all, none)\n"
              << kUsageLine << kHelpHint;
    return false;
  }
  if (off) {
    kinds &= ~kind;
  } else {
    if (!inv.warnings_listed) kinds = 0;
    inv.warnings_listed = true;
    kinds |= kind;
  }
  return true;
}

// Parses argv, or returns nullopt after printing why it is not a valid command line.
std::optional<Invocation> parse_command_line(int argc, char** argv) {
  Invocation inv;
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-h" || a == "--help") {
      inv.mode = Invocation::Mode::kHelp;
      return inv;
    }
    if (a == "--version") {
      inv.mode = Invocation::Mode::kVersion;
      return inv;
    }
    if (a == "--list-passes") {
      inv.mode = Invocation::Mode::kListPasses;
      return inv;
    }
    if (a == "--listen" || a.substr(0, 9) == "--listen=") {
      std::string why;
      if (!quasi::cli::parse_listen_address(a.size() > 9 ? a.substr(9) : "", &inv.listen, &why)) {
        std::cerr << "quasi: --listen takes " << why << '\n' << kUsageLine << kHelpHint;
        return std::nullopt;
      }
      inv.mode = Invocation::Mode::kServe;
      continue;
    }
    if (a != "-i" && a != "--interactive") inv.session_args.emplace_back(a);  // options only here
    if (a.substr(0, 2) == "-W") {
      if (!parse_warning_option(a, inv)) return std::nullopt;
      continue;
    }
    if (a == "--verbose-backtrace") {
      inv.repl.verbose_backtrace = true;
      continue;
    }
    if (a == "--no-jit") {
      inv.engine_options.jit = quasi::Engine::Options::Jit::kOff;
      continue;
    }
    if (a.substr(0, 6) == "--jit=") {
      std::string_view m = a.substr(6);
      using Jit = quasi::Engine::Options::Jit;
      if (m == "off") inv.engine_options.jit = Jit::kOff;
      else if (m == "on") inv.engine_options.jit = Jit::kOn;
      else if (m == "force") inv.engine_options.jit = Jit::kForce;
      else {
        std::cerr << "quasi: --jit takes off, on or force, not '" << m << "'\n" << kUsageLine << kHelpHint;
        return std::nullopt;
      }
      continue;
    }
    if (a == "-I" || a == "-A") {
      if (i + 1 >= argc) {
        std::cerr << "quasi: " << a << " needs a directory\n" << kUsageLine << kHelpHint;
        return std::nullopt;
      }
      inv.session_args.emplace_back(argv[i + 1]);
      (a == "-I" ? inv.include_dirs : inv.append_dirs).push_back(argv[++i]);
      continue;
    }
    if (a.size() > 2 && (a.substr(0, 2) == "-I" || a.substr(0, 2) == "-A")) {  // -IDIR
      (a[1] == 'I' ? inv.include_dirs : inv.append_dirs).emplace_back(a.substr(2));
      continue;
    }
    if (a == "-i" || a == "--interactive") {
      inv.repl.prompts = true;
      continue;
    }
    if (a == "--jit-log") {
      inv.engine_options.jit_log = true;
      continue;
    }
    if (a == "--dump-ir" || a.substr(0, 10) == "--dump-ir=") {
      if (i + 1 >= argc) {
        std::cerr << "quasi: --dump-ir needs a file\n" << kUsageLine << kHelpHint;
        return std::nullopt;
      }
      inv.mode = Invocation::Mode::kDumpIr;
      inv.dump_pass = a.size() > 10 ? std::string(a.substr(10)) : "all";
      inv.program = argv[i + 1];
      return inv;
    }
    if (inv.mode == Invocation::Mode::kServe && (a == "-e" || a == "--eval" || a.substr(0, 9) == "--dump-ir")) {
      std::cerr << "quasi: --listen serves the REPL; it takes no " << a << '\n' << kUsageLine << kHelpHint;
      return std::nullopt;
    }
    if (a == "-e" || a == "--eval") {
      if (i + 1 >= argc) {
        std::cerr << "quasi: " << a << " needs an expression\n" << kUsageLine << kHelpHint;
        return std::nullopt;
      }
      inv.mode = Invocation::Mode::kEval;
      inv.program = argv[i + 1];
      inv.args.assign(argv + i + 2, argv + argc);
      return inv;
    }
    if (a.size() > 1 && a.front() == '-') {
      std::cerr << "quasi: unknown option " << a << '\n' << kUsageLine << kHelpHint;
      return std::nullopt;
    }
    break;  // the script
  }
  if (inv.mode == Invocation::Mode::kServe) {
    if (i < argc) {
      std::cerr << "quasi: --listen serves the REPL; it runs no FILE\n" << kUsageLine << kHelpHint;
      return std::nullopt;
    }
    return inv;
  }
  if (i < argc) {
    inv.mode = Invocation::Mode::kScript;
    inv.program = argv[i];
    inv.args.assign(argv + i + 1, argv + argc);
  }
  return inv;
}

// --dump-ir: prints the IR of every form of the file; returns the exit status.
int dump_ir(const quasi::Engine& engine, const Invocation& inv) {
  std::ifstream in(inv.program, std::ios::binary);
  if (!in) {
    std::cerr << "quasi: cannot open " << inv.program << '\n';
    return kExitError;
  }
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  try {
    std::cout << engine.dump_ir(text, inv.dump_pass);
  } catch (const quasi::Error& e) {
    quasi::cli::print_error(std::cerr, e);
    return kExitError;
  }
  std::cout.flush();
  return 0;
}

// Runs a script or an -e expression; returns the exit status.
int run_program(quasi::Engine& engine, const Invocation& inv) {
  std::vector<std::string> command_line{inv.mode == Invocation::Mode::kEval ? "-e" : inv.program};
  command_line.insert(command_line.end(), inv.args.begin(), inv.args.end());
  engine.set_command_line(command_line);
  try {
    if (inv.mode == Invocation::Mode::kEval) {
      engine.eval(inv.program, "<command line>");
    } else if (inv.program == "-") {
      std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
      engine.run_program(text, "<stdin>");
    } else {
      if (!std::ifstream(inv.program)) {
        std::cerr << "quasi: cannot open " << inv.program << '\n';
        return kExitError;
      }
      engine.run_program_file(inv.program);
    }
  } catch (const quasi::Exit& e) {
    std::cout.flush();
    return e.status();
  } catch (const quasi::Error& e) {
    quasi::cli::print_error(std::cerr, e, inv.repl.verbose_backtrace);
    return kExitError;
  }
  std::cout.flush();
  return 0;
}

}  // namespace

static int real_main(int argc, char** argv) {
  // Every engine of this process lives on this thread (a --listen session is its own process).
  quasi::single_thread_process();
  std::optional<Invocation> inv = parse_command_line(argc, argv);
  if (!inv) return kExitUsage;
  set_library_path(*inv);
  switch (inv->mode) {
    case Invocation::Mode::kHelp:
      std::cout << kUsageLine << kHelpText;
      return 0;
    case Invocation::Mode::kVersion:
      std::cout << "quasi " << quasi::version() << '\n';
      return 0;
    case Invocation::Mode::kServe:
      return quasi::cli::run_server(inv->listen, inv->session_args);
    case Invocation::Mode::kListPasses:
      for (const quasi::OptimizerPass& p : quasi::optimizer_passes())
        std::cout << p.name << "  (level " << p.level << ")  " << p.description << '\n';
      return 0;
    default:
      break;
  }
  // Compile-time warnings go to stderr after what the program printed so far.
  inv->engine_options.on_warning = [](const std::string& message) {
    std::cout.flush();
    std::cerr << message << '\n';
  };
  try {
    quasi::Engine engine(inv->engine_options);
    if (inv->mode == Invocation::Mode::kRepl) {
      engine.set_command_line({"quasi"});
      return quasi::cli::run_repl(engine, inv->repl);
    }
    if (inv->mode == Invocation::Mode::kDumpIr) return dump_ir(engine, *inv);
    return run_program(engine, *inv);
  } catch (const quasi::Exit& e) {
    return e.status();
  } catch (const quasi::Error& e) {  // e.g. the engine failed to start
    quasi::cli::print_error(std::cerr, e);
    return kExitError;
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << "quasi: " << e.what() << '\n';
    return kExitError;
  }
}

namespace {
// The engine runs on a thread with a large stack: the expander, the compiler and the partial
// evaluator recurse on the nesting of the source, and 8 MiB (the usual main-thread stack) limits
// how deeply nested a program may be. The pages are only committed as they are used.
#if defined(QUASI_SANITIZED)
// AddressSanitizer mistakes stacks over 64 MiB for stack switching and then reports false
// overflows when exceptions unwind.
constexpr size_t kEngineStackBytes = size_t(48) << 20;
#else
constexpr size_t kEngineStackBytes = size_t(512) << 20;
#endif

struct MainJob {
  int argc;
  char** argv;
  int status;
};

// Terminal and user signals go to the engine thread (libedit's read must see SIGINT and
// SIGWINCH), so the waiting main thread blocks them. The collector's own signals are untouched.
void terminal_signals(sigset_t* set) {
  sigemptyset(set);
  for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU, SIGCONT, SIGALRM})
    sigaddset(set, sig);
}

void* run_main_job(void* p) {
  sigset_t set;
  terminal_signals(&set);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  auto* job = static_cast<MainJob*>(p);
  job->status = real_main(job->argc, job->argv);
  return nullptr;
}
}  // namespace

int main(int argc, char** argv) {
  MainJob job{argc, argv, 0};
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, kEngineStackBytes) != 0 ||
      pthread_create(&thread, &attr, run_main_job, &job) != 0)
    return real_main(argc, argv);  // no big thread: run here, with the smaller limits
  pthread_attr_destroy(&attr);
  sigset_t set;
  terminal_signals(&set);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  pthread_join(thread, nullptr);
  return job.status;
}
