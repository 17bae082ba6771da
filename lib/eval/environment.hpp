// environment.hpp — top-level environments: the interaction environment and each library's.
//
// An environment maps a symbol to its binding: a GlobalCell for a variable, or a syntactic
// binding (a Macro object, eval/expander.hpp) for a keyword. Importing a library copies its
// bindings, so an imported variable shares the exporter's GlobalCell.
#pragma once

#include <span>
#include <unordered_map>

#include "core/object.hpp"

namespace quasi {

struct ValueHash {
  size_t operator()(Value v) const { return std::hash<uint64_t>()(v.bits); }
};

struct CompiledCode;  // engine/redefinition.cpp

struct Environment : Object {
  using Table = std::unordered_map<Value, Value, ValueHash, std::equal_to<Value>,
                                   gc_allocator<std::pair<const Value, Value>>>;
  Value name;    // library name (a list) or #f
  Table* table;  // symbol -> GlobalCell or syntactic binding
  bool mutable_; // definitions allowed (false for sealed library exports, e.g. (scheme base))
  // Definitions that replaced an imported variable, not yet applied to the code compiled here:
  // a list of (old-cell . new-cell), newest first (define_cell adds; engine/redefinition.hpp
  // applies them).
  Value redefined;
  // The procedures compiled in this environment, held weakly (engine/redefinition.hpp).
  CompiledCode* compiled;

  // The binding of `sym`, or kUnbound.
  Value lookup(Value sym) const;
  // The GlobalCell `sym` refers to (possibly imported), created unbound if absent. A syntactic
  // binding is replaced.
  Value cell_for(Value sym);
  // The cell a top-level `define` of `sym` writes: this environment's own. Defining a name that
  // was imported makes a new cell here, so the exporter keeps the original; the pair is recorded
  // in `redefined`, so the code compiled here is moved to the new cell.
  Value define_cell(Value sym);
  void bind(Value sym, Value binding);
  // Defines a variable: define_cell(sym)->value = v.
  void define(Value sym, Value v);
};

Environment* make_environment(Value name);

// Names that start with % are the engine's internals (the prelude's plumbing and the raw
// primitives it is built on, which trust their arguments): they are bound in the core environment
// only, never in an environment user code runs in, nor exported by (quasi core).
bool is_internal_name(Value sym);
inline bool is_environment(Value v) { return has_type(v, Type::Environment); }

// Defines one Primitive per row of `defs` (core/prim.hpp) in `env`.
void install_primitives(Environment* env, std::span<const PrimDef> defs);

}  // namespace quasi
