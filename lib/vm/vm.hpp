// vm.hpp — the virtual machine that runs compiled code (vm/proto.hpp) on a stack Quasi owns.
//
// This header is what the rest of the engine may use of the VM: calling procedures from C++,
// reading parameter objects, and the per-engine state that builtins need.
#pragma once

#include <atomic>
#include <string>

#include "core/gc.hpp"
#include "core/object.hpp"

namespace quasi {

struct Environment;
struct VmImpl;

struct Vm {
  Environment* interaction_env = nullptr;  // what scripts and the REPL see
  Environment* core_env = nullptr;         // builtins (the target of install_builtins)
  std::atomic<bool> interrupt_requested{false};
  GcRoot command_line{kNil};               // list of strings
  GcRoot libraries{kNil};                  // alist: library name -> Environment of its exports
  GcRoot env_roots{kNil};                  // keeps core_env and interaction_env alive
  std::string load_dir;                    // directory of the file being loaded ("" = cwd)
  VmImpl* impl = nullptr;

  // Calls a Scheme procedure from C++ and returns its result (nested run of the VM).
  Value apply(Value proc, int argc, const Value* argv);
};

// Called after a GlobalCell flagged kWatchedCell is assigned or redefined, by running code or by
// Environment::define. Set by the partial evaluator to invalidate what depended on the cell.
extern void (*watched_cell_written)(Value cell);

// The value a parameter object has in the current dynamic extent (parameterize).
Value parameter_value(Vm& vm, Value param);
Value make_parameter(Value init, Value converter);

// For printing and backtraces: the name of a procedure, or "" when anonymous.
std::string procedure_name(Value proc);
bool is_procedure(Value v);

}  // namespace quasi
