// engine.hpp — quasi::Engine: evaluation, globals, registration, limits.
// A part of quasi.hpp: include <quasi/quasi.hpp>, never this file alone.
#pragma once

#ifndef QUASI_PUBLIC_HEADER
#error "include <quasi/quasi.hpp>"
#endif

namespace quasi {
inline namespace api {

class Library;
class Environment;

namespace detail {

struct LibraryState;

// Where definitions go: the engine's top level, an Environment, or a Library being built (which
// exports each name and is registered again). Internal.
struct Target {
  Engine* engine;
  Value env;                             // the unspecified value: the interaction environment
  std::shared_ptr<LibraryState> library;  // set for a Library
  void define_value(std::string_view name, const Value& v) const;
  // A procedure for `added` (one function, or an overload set after the candidates of the C++
  // function bound to `name` if `append`).
  Value functions(std::string_view name, std::vector<std::unique_ptr<HostFunction>> added, bool append) const;
};

// define, overload, set and define_type, shared by Engine, Environment and Library: each has a
// definition_target() saying where the definitions go.
template <class Self>
class Definitions {
 public:
  // Defines a Scheme procedure `name` that calls `fn` (a lambda, function object or function
  // pointer with a fixed signature), converting arguments and result. Wrong argument counts and
  // types raise Scheme errors naming it and the argument; a C++ exception thrown by `fn` becomes
  // a Scheme error (message from what()) that Scheme code can guard.
  //
  // Overloads. Given several callables, define makes one procedure that calls the first whose
  // parameters fit the arguments: first looking for one that fits without conversions (an exact
  // integer for an integer parameter, a flonum for a double, a string for a string, an object of
  // the very type), then for one that fits with them (an integer for a double, a symbol for a
  // string, a derived object for its base, anything for bool); in registration order each time.
  // When none fits, the error lists the candidates. Like Scheme's own define, a later define of
  // the same name replaces the binding (a script or host can redefine a function); overload()
  // adds a candidate to the C++ function already bound to `name` (or defines it).
  template <class... F>
    requires(sizeof...(F) >= 1)
  Self& define(std::string_view name, F&&... fns);
  template <class F>
  Self& overload(std::string_view name, F&& fn);
  // Defines (or assigns) a variable.
  template <class T>
  Self& set(std::string_view name, T&& value);
  // Exposes a C++ type T: its objects print as #<name>, (name? x) tests for one, and the builder
  // (class.hpp) adds constructors, properties, methods, static functions, a printer, equality
  // and hash. bases<B...>() names registered base classes: T objects are accepted where a B is
  // expected.
  template <class T, class... B>
  TypeBuilder<T> define_type(std::string_view name, bases<B...> = {});

 private:
  Target target() const { return static_cast<const Self*>(this)->definition_target(); }
};

}  // namespace detail

// ---- Engine --------------------------------------------------------------------------------------

class Engine : public detail::Definitions<Engine> {
 public:
  struct Options {
    // Capabilities. Without them the procedures are replaced by ones that raise an error naming
    // themselves ("open-input-file: file access is disabled in this engine").
    bool allow_files = true;        // open-*-file, call-with-*-file, with-*-file, file-exists?,
                                    // delete-file, load, include, reading library files, the
                                    // process's stdin (without: current-input-port is empty)
    bool allow_process = true;      // exit, emergency-exit, jit-log (a process-wide switch)
    bool allow_environment = true;  // get-environment-variable, get-environment-variables
    // Limits of each evaluation (each outermost eval, load or call); 0 = none. Exceeding one
    // throws quasi::Error of kind "limit"; Scheme code cannot catch it. Checked at calls and
    // backward jumps, so a runaway loop stops within microseconds of the limit, and (time,
    // memory, interrupt) inside long primitive calls too: at allocations, in big-number
    // arithmetic and conversions, equal? and macro expansion, so one primitive overshoots by
    // at most one step of its work; an object or number larger than the memory limit left is
    // refused before it is made.
    uint64_t step_limit = 0;                      // calls + loop iterations
    std::chrono::milliseconds time_limit{0};      // wall time
    size_t memory_limit = 0;  // bytes allocated by this engine's evaluation (counted on the
                              // thread running it: engines on other threads do not count)

    // Native code: kDefault follows QUASI_JIT (off|on|force; unset: on). kOn compiles
    // procedures from `specialize` at once and others once they are hot; kForce compiles every
    // procedure when it first runs; kOff interprets everything. Scheme can change it later with
    // (jit-mode 'off|'on|'force). jit_log reports each compilation on stderr (process-wide).
    enum class Jit { kDefault, kOff, kOn, kForce };
    Jit jit = Jit::kDefault;
    bool jit_log = false;

    // Compile-time warnings, as Guile gives them: a reference to a variable that is neither bound
    // nor defined anywhere in the text being run, and a call with the wrong number of arguments
    // to a procedure whose arity is known (a built-in, a global procedure, or one the same text
    // defines further down). Each arrives as "file:line:col: warning: message"; nothing stops.
    // Checked for eval, load and run_program text, not for library bodies. Null: none (the
    // default); `quasi` prints them on stderr unless -W0.
    enum Warning : unsigned { kUnboundVariable = 1, kArityMismatch = 2, kAllWarnings = 3 };
    unsigned warnings = kAllWarnings;  // which kinds on_warning receives
    std::function<void(const std::string&)> on_warning;

    // Where `import` looks for a library file, (foo bar) being foo/bar.sld: first the directory
    // of the program being run (the current directory for eval), then library_path in order,
    // then the libraries built into Quasi (the R7RS ones, the SRFIs, (quasi ...)), then
    // library_path_after. Without allow_files only the built-in libraries are found.
    std::vector<std::string> library_path;
    std::vector<std::string> library_path_after;
    // The only libraries `import` may load ("(scheme base)", "(scheme write)", ...), when set;
    // libraries made with define_library are always allowed. A sandbox's programs then see
    // exactly what the host chooses.
    std::optional<std::vector<std::string>> allowed_libraries;

    // No file, process or environment access.
    static Options sandboxed() {
      Options o;
      o.allow_files = o.allow_process = o.allow_environment = false;
      return o;
    }
  };

  Engine();
  explicit Engine(const Options& options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Reads and evaluates every form of `code`; returns the value of the last one.
  // `source_name` appears in error locations ("<string>", "<repl>", a file name).
  Value eval(std::string_view code, std::string_view source_name = "<string>");
  // The same, and calls `on_value` with the value of each top-level form of `code` as soon as
  // that form has run (before the next one is read): what a REPL prints for an entry of several
  // forms. An error stops the evaluation after the values already delivered.
  Value eval(std::string_view code, std::string_view source_name,
             const std::function<void(const Value&)>& on_value);
  // Loads a source file as the REPL's `load` does: its forms run one by one in the interaction
  // environment, and an `import` in it adds to that environment. Allowed in a sandboxed engine:
  // the host chooses the file.
  Value load(const std::string& path);
  // Runs `code` as an R7RS program, as `quasi FILE` does. A program that starts with `import`
  // runs in a new environment holding only what it imports (so its definitions are not globals
  // of this engine afterwards); one without runs in the interaction environment, like eval.
  // Either way the program's top-level definitions are in scope in its whole text, also in the
  // procedures defined before them, and the whole text is read before any of it runs.
  Value run_program(std::string_view code, std::string_view source_name = "<program>");
  // The same for a file; libraries are looked for beside it first. Allowed in a sandboxed engine.
  Value run_program_file(const std::string& path);

  // Calls the global procedure `name`, or a procedure value, with converted arguments.
  template <class... Args>
  Value call(std::string_view name, Args&&... args) {
    return apply(get(name), {make(std::forward<Args>(args))...});
  }
  template <class... Args>
  Value call(const char* name, Args&&... args) {
    return call(std::string_view(name), std::forward<Args>(args)...);
  }
  template <class... Args>
  Value call(const std::string& name, Args&&... args) {
    return call(std::string_view(name), std::forward<Args>(args)...);
  }
  template <class... Args>
  Value call(const Value& procedure, Args&&... args) {
    return apply(procedure, {make(std::forward<Args>(args))...});
  }
  Value apply(const Value& procedure, const std::vector<Value>& args);

  // A global variable of the interaction environment. Throws quasi::Error (kind "unbound").
  Value get(std::string_view name);
  // Converted; a mismatch names the variable ("width: expected an integer, got \"x\"").
  template <class T>
  T get(std::string_view name) {
    return detail::converted<T>(get(name), name);
  }
  bool contains(std::string_view name);
  // The names bound in the interaction environment (variables with a value, and syntactic
  // keywords such as `define` or a user's macro) that start with `prefix`, sorted. Names that
  // start with '%' are listed only when `prefix` starts with '%' (the engine's own %-internals
  // are never bound where user code runs; these are a script's).
  // For a REPL's completion or an `apropos`.
  std::vector<std::string> globals(std::string_view prefix = "");
  // Makes a procedure value (one callable, or an overload set: see define) without defining a
  // global.
  template <class... F>
    requires(sizeof...(F) >= 1)
  Value function(std::string_view name, F&&... fns);

  // A library made in C++, importable as (import (app host)) by this engine's programs,
  // libraries, environments and REPL, also when files or other libraries are not allowed. Its
  // define, overload, set and define_type export what they define; scheme() adds definitions
  // written in Scheme. Defining the same library name again starts it afresh.
  Library define_library(std::string_view name);
  // A separate top level holding what `import_sets` name ("(scheme base)", "(app host)",
  // "(only (scheme write) display)"), where scripts are evaluated apart from each other and from
  // the engine's own globals. Nothing imported: an empty environment.
  Environment new_environment(std::initializer_list<std::string_view> import_sets);
  Environment new_environment(const std::vector<std::string>& import_sets);
  // The libraries `import` may load from now on (by name: "(scheme base)"), or any (nullopt).
  // Libraries made with define_library are always allowed. Also Options::allowed_libraries.
  void set_allowed_libraries(const std::optional<std::vector<std::string>>& names);

  // Converts a C++ value in this engine (also foreign objects and functions).
  template <class T>
  Value make(T&& x) {
    using D = std::remove_cvref_t<T>;
    static_assert(!detail::is_unique_ptr_v<D> || !std::is_lvalue_reference_v<T>,
                  "a std::unique_ptr gives its object to Scheme: pass std::move(ptr)");
    if constexpr (std::is_same_v<D, Value>) return Value(std::forward<T>(x));
    else return Value::from_word(detail::Codec<D>::to(this, x), this);
  }

  // Limits for the following evaluations (see Options).
  void set_step_limit(uint64_t steps);
  void set_time_limit(std::chrono::milliseconds limit);
  void set_memory_limit(size_t bytes);
  const Options& options() const;

  // Asks the running evaluation to stop with an error of kind "interrupt" (which Scheme code may
  // guard; use a time limit to stop a script for sure); no effect on later evaluations when none
  // is running. Any thread; async-signal-safe.
  void interrupt();
  // Runs a full collection (and the finalizers of dead foreign objects). Any engine, any thread.
  static void collect_garbage();

  // True when `code` ends inside an unfinished datum (REPL continuation lines).
  bool input_incomplete(std::string_view code) const;
  // What (command-line) returns: program name first.
  void set_command_line(const std::vector<std::string>& args);
  // The core IR of each top-level form of `code`, one line per form, printed as Scheme, after
  // optimizer pass `pass`: "expand" (straight from the expander), a pass name (see
  // optimizer_passes()), or "" / "all" (after the whole default pipeline). Nothing of `code` runs
  // and the engine's environment is unchanged. Throws quasi::Error on bad syntax or pass name.
  std::string dump_ir(std::string_view code, std::string_view pass = "") const;

  // Internal.
  struct State;
  State& internal_state() { return *state_; }
  Value register_function(std::string_view name, std::unique_ptr<detail::HostFunction> fn);
  void name_type(const void* key, std::string_view name);
  detail::EngineLink* link() const;
  detail::Target definition_target() { return {this, Value(), nullptr}; }
  detail::Target definition_target() const { return {const_cast<Engine*>(this), Value(), nullptr}; }

 private:
  std::unique_ptr<State> state_;
};

// Version of the engine, "major.minor.patch".
const char* version();

// For a program that uses engines from one thread only, called on that thread before its first
// engine (the quasi executable does). The collector then runs without locking and starts its
// parallel marker threads only once its heap passes 32 MiB, which makes small programs and
// start-up faster. Until then an engine used from any other thread throws std::logic_error.
// No effect once an engine exists.
void single_thread_process();

// One pass of the optimizer's default pipeline (what `quasi --list-passes` prints).
struct OptimizerPass {
  std::string name;
  int level;  // runs at this optimization level and above
  std::string description;
};
// The default pipeline, in the order it runs. QUASI_PASSES=off in the environment (read when an
// engine is created) turns it off; lib/passes/README.md lists the other settings.
std::vector<OptimizerPass> optimizer_passes();


}  // namespace api
}  // namespace quasi
