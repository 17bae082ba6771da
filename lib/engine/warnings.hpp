// warnings.hpp — compile-time warnings (issue 15), the two Guile users rely on most: a reference
// to a variable that is neither bound nor defined anywhere in the program ("possibly unbound
// variable"), and a call with the wrong number of arguments to a procedure whose arity is known
// ("wrong number of arguments"). Each goes to Vm::on_warning as
// "file:line:col: warning: message"; nothing stops, nothing is raised.
//
// Invariant: a warning never changes what runs. It is computed from the expanded IR of a
// top-level form (ir/functor.hpp's walk) and from the source of the whole text being compiled
// (a WarningScope), so a procedure defined further down the same file is not "unbound" and its
// arity is the one its own `define` gives. Only code compiled inside a WarningScope is checked:
// programs, loaded files, REPL entries and eval strings, not the prelude, library bodies or
// `eval` of data.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/gc.hpp"
#include "core/value.hpp"

namespace quasi {

struct Environment;
struct Node;
struct Vm;

// Bits of Vm::warning_kinds (Engine::Options::warnings).
enum WarningKind : unsigned {
  kWarnUnboundVariable = 1u << 0,
  kWarnArityMismatch = 1u << 1,
  kWarnAll = kWarnUnboundVariable | kWarnArityMismatch,
};

// What the whole text being compiled defines, read from its source before any of it runs.
// Installs itself as vm.warning_scope for its lifetime (nested scopes restore the outer one).
struct WarningScope {
  struct Arity {
    int required = 0;
    bool rest = false;
  };
  WarningScope(Vm& vm, Environment* env, const gc_vector<Value>& forms);
  ~WarningScope();
  WarningScope(const WarningScope&) = delete;
  WarningScope& operator=(const WarningScope&) = delete;

  Vm& vm;
  WarningScope* outer;
  gc_vector<Value> forms;                      // keeps the symbols below reachable
  std::unordered_set<uint64_t> defined;        // symbols (Value::bits) the text defines
  std::unordered_map<uint64_t, Arity> arity;   // ... with a lambda whose arity the source shows
  std::unordered_set<uint64_t> assigned;       // symbols some set! in the text assigns
  std::unordered_set<uint64_t> reported;       // unbound names already warned about
};

// Suspends the enclosing WarningScope: a library body compiled because a program imported it
// part-way is the library's text, not the program's, and is not checked (a name the library
// defines further down is not "unbound" in the program).
struct WarningsSuspended {
  explicit WarningsSuspended(Vm& vm);
  ~WarningsSuspended();
  WarningsSuspended(const WarningsSuspended&) = delete;
  WarningsSuspended& operator=(const WarningsSuspended&) = delete;
  Vm& vm;
  WarningScope* saved;
};

// The warnings for one expanded top-level form, sent to vm.on_warning. Does nothing outside a
// WarningScope or when the engine wants no warnings.
void warn_about_form(Vm& vm, Node* ir);

// Reads `text` (stopping quietly at a reader error) for a WarningScope over text that is run form
// by form (load, eval strings, REPL entries).
gc_vector<Value> read_forms_for_warnings(std::string_view text, const std::string& source_name);

}  // namespace quasi
