// autoload.hpp — prelude files loaded on first use. The cells of their definitions exist from the
// start in the core environment (so the user environment, (quasi core) and the libraries share
// them, as they share every prelude binding), unbound and flagged kAutoloadCell (core/object.hpp);
// whatever resolves one of those names loads the whole file first: the expander (references,
// derived forms' core references), library exports, the embedding API's lookups.
//
// Why: every collection marks the whole live heap, and each prelude procedure keeps its code,
// constants and IR (Proto::source) alive for good. Files most programs never use (automatic
// differentiation, hash tables, format) cost every program start-up time and every collection
// marking time (bench/README.md, "Regressions since before the IR work").
//
// Owner: perf. Invariants: a flagged cell is unbound and named by exactly one file not yet loaded;
// loading a file clears the flags of all its cells before it runs, and runs it as start-up does:
// in the core environment, without the running evaluation's limits or warnings (its steps,
// allocations and time are not the program's). A file is deferred only when every top-level form
// defines a variable that nothing bound before, or an internal (%) keyword used by the file
// itself; otherwise it is loaded at start-up like the others. A later prelude file must not
// define a name a deferred file defines.
#pragma once

#include <string_view>
#include <vector>

#include "core/gc.hpp"
#include "core/object.hpp"

namespace quasi {

struct Vm;

struct LazyPrelude {
  struct File {
    const char* name;          // e.g. "70-ad.scm"
    std::string_view text;     // embedded: lives as long as the program
    root_vector<Value> names;  // symbols it defines (held: symbols are collected when unreachable)
    bool loaded = false;
  };
  std::vector<File> files;
};

// The prelude files that may be loaded on first use, one row each, with the variables their
// top-level forms define (null-terminated), or null names when a file does not qualify (above).
// Generated at build time: lib/engine/gen/prelude_definitions.cpp reads the files listed in
// QUASI_DEFERRED_PRELUDE (CMakeLists.txt) with the real reader. Ends with {nullptr, nullptr}.
struct PreludeDefinitions {
  const char* file;  // e.g. "70-ad.scm"
  const char* const* names;
};
extern const PreludeDefinitions kDeferrablePrelude[];

// Defers `text` (prelude file `name`) when kDeferrablePrelude lists names for it and nothing
// binds them yet: creates and flags its cells in vm.core_env and returns true. False: the caller
// loads it now.
bool defer_prelude_file(Vm& vm, const char* name, std::string_view text);

// Loads the file that defines `cell` if the cell is flagged; after it, the cell is not.
void autoload_cell(Vm& vm, Value cell);

// A binding found by name (Environment::lookup): if it is a flagged cell, its file is loaded.
inline void autoload_binding(Vm& vm, Value binding) {
  if (has_type(binding, Type::GlobalCell) && (binding.obj()->header & kAutoloadCell)) autoload_cell(vm, binding);
}

}  // namespace quasi
