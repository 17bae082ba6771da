// vm.hpp — the virtual machine that runs compiled code (vm/proto.hpp) on a stack Quasi owns.
// Invariant: one thread at a time runs a Vm, and every value it holds is reachable from its roots.
// This header is what the rest of the engine may use of the VM: calling procedures from C++,
// reading parameter objects, and the per-engine state that builtins need.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "core/equality.hpp"
#include "core/gc.hpp"
#include "core/object.hpp"
#include "core/procedure.hpp"

namespace quasi {

struct Environment;
struct VmImpl;
struct PassOptions;
class Profiler;
struct WarningScope;
struct LazyPrelude;

struct Vm {
  Environment* interaction_env = nullptr;  // what scripts and the REPL see
  Environment* core_env = nullptr;         // builtins (the target of install_builtins)
  std::atomic<bool> interrupt_requested{false};  // set through request_interrupt()
  // The statistical profiler running (vm/profile.hpp), or null; it asks for a sample through
  // request_profile_sample(), taken at the next poll point.
  Profiler* profiler = nullptr;
  std::atomic<bool> profile_sample_requested{false};
  GcRoot command_line{kNil};               // list of strings
  GcRoot env_roots{kNil};                  // keeps core_env and interaction_env alive
  // ---- libraries (engine/library.cpp) ----
  GcRoot libraries{kNil};                  // alist: library name -> Environment of its exports
  GcRoot libraries_loading{kNil};          // names of libraries being defined, innermost first
  GcRoot library_allow{kFalse};            // #f, or the names `import` may load (a sandbox's choice)
  GcRoot host_libraries{kNil};             // names of libraries the host registered (always allowed)
  // Where `import` looks first: the directory of the program being run or loaded, or the root a
  // library was found under while its definition runs ("" = the current directory).
  std::string load_dir;
  // Directories searched after load_dir and before the libraries built into the binary, and
  // those searched after the built-in ones (Engine::Options, `quasi -I/-A`).
  std::vector<std::string> library_path;
  std::vector<std::string> library_path_after;
  VmImpl* impl = nullptr;
  PassOptions* pass_options = nullptr;     // optimizer options (passes/pass_manager.hpp); null: defaults
  // Key of the hash tables' hash functions (core/equality.hpp), random per engine.
  uint64_t hash_seed = fresh_hash_seed();

  // ---- per-engine settings made by the embedding API (engine.cpp) ----
  // This VM's standard ports and current-*-port parameter objects: a vector
  // #(stdin stdout stderr current-input current-output current-error), or #f for a bare Vm, which
  // then uses the process-wide ones (builtins/port.hpp, install_standard_ports).
  GcRoot stdio{kFalse};
  // Compile-time warnings (engine/warnings.hpp): the kinds wanted (a WarningKind mask), where
  // they go (null: none are computed), and the program or text being compiled when one is.
  unsigned warning_kinds = 0;
  std::function<void(const std::string&)> on_warning;
  WarningScope* warning_scope = nullptr;
  // The prelude files loaded on first use (engine/autoload.hpp), owned by the engine; null: none.
  LazyPrelude* lazy_prelude = nullptr;
  // Sandbox: when false, load, include and library files are refused (the file procedures
  // themselves are rebound by the engine).
  bool allow_files = true;
  // Resource limits of one evaluation (0 = none), enforced at the VM's poll points by
  // VmImpl::poll. A limit stops the evaluation with an error of kind 'limit that Scheme handlers
  // cannot catch (it leaves as UncaughtRaise).
  uint64_t step_limit = 0;   // calls + backward jumps
  int64_t time_limit_ns = 0; // wall time
  uint64_t alloc_limit = 0;  // bytes allocated on the evaluation's thread (tl_allocated_bytes)
  uint64_t steps = 0;        // progress of the current evaluation
  int64_t deadline_ns = 0;   // steady-clock time when the current evaluation must stop (0 = none)
  uint64_t alloc_base = 0;   // tl_allocated_bytes when the current evaluation started
  // The 'limit condition once a limit stopped the current evaluation (#f before): the engine
  // raises it again at every host-procedure boundary, so a host that swallows the error cannot
  // keep the runaway script going.
  GcRoot limit_error{kFalse};
  // Resets the counters above and starts the clock: called when an outermost evaluation begins.
  void begin_evaluation();
  // Asks the running code to stop with an 'interrupt error at its next poll point. Any thread;
  // async-signal-safe (atomic stores only).
  void request_interrupt();
  // Asks the next poll point to give the profiler a sample. Any thread (atomic stores only).
  void request_profile_sample();

  // Calls a Scheme procedure from C++ and returns its result (nested run of the VM).
  Value apply(Value proc, int argc, const Value* argv);
};

// For the length of an outermost evaluation: allocations and long C++ loops on this thread check
// the limits of `vm` (time, memory, interrupt; core/alloc_watch.hpp), so one long primitive call
// cannot run far past them. Restores the previous watch (a host procedure may run another
// engine's evaluation inside this one).
class LimitScope {
 public:
  explicit LimitScope(Vm* vm);
  ~LimitScope();
  LimitScope(const LimitScope&) = delete;
  LimitScope& operator=(const LimitScope&) = delete;

 private:
  Vm* prev_vm_;
  AllocWatch prev_watch_;
  bool prev_set_;
};

// The VM whose code runs on the calling thread (the innermost Vm::apply), or null. A primitive
// blocked in a system call uses it to see an interrupt (Ctrl-C during read-line on a terminal).
Vm* running_vm();
// Raises the 'interrupt error when an interrupt of the running VM is pending (and clears it).
void raise_pending_interrupt();

// The value a parameter object has in the current dynamic extent (parameterize).
Value parameter_value(Vm& vm, Value param);
Value make_parameter(Value init, Value converter);

void register_disasm_primitives(Environment* env);  // vm/disasm.cpp: (%disassemble f)

}  // namespace quasi
