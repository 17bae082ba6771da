// registry.hpp — how C++ primitives are declared and installed into the core environment.
//
// Each builtins/*.cpp file defines its primitives as ordinary functions and lists them in one
// table of PrimDef (name, function, arity, flags). That table is the single source of truth the
// optimizer reads (flags: pure, foldable, allocates, has-effects, may-raise). A static library
// drops unreferenced object files, so registration is an explicit call, not a static
// constructor: builtins.cpp calls every register_*_primitives function below.
#pragma once

#include <span>

#include "core/error.hpp"
#include "core/object.hpp"

namespace quasi {

struct Environment;

struct PrimDef {
  const char* name;
  PrimFn fn;
  int min_args;
  int max_args;  // -1: variadic
  uint32_t flags;
};

// Signature of every primitive: `vm`, the primitive itself, and the evaluated arguments. The VM
// has already checked argc against min_args/max_args.
#define QUASI_PRIM(cname) static Value cname(Vm& vm, Primitive* self, int argc, Value* argv)

// Common flag sets.
constexpr uint32_t kPureFold = kPure | kFoldable;                 // never raises
constexpr uint32_t kPureFoldRaise = kPure | kFoldable | kMayRaise;
constexpr uint32_t kAlloc = kPure | kAllocates;                   // fresh object each call
constexpr uint32_t kEffect = kHasEffects | kMayRaise;

void install_primitives(Environment* env, std::span<const PrimDef> defs);

// One per builtins file. Called in this order by install_builtins (builtins.cpp).
void register_numeric_primitives(Environment* env);    // numbers.cpp / numeric.cpp
void register_list_primitives(Environment* env);       // pairs, lists, symbols, booleans, eq*
void register_char_string_primitives(Environment* env);// characters and strings (Unicode)
void register_vector_primitives(Environment* env);     // vectors and bytevectors
void register_port_primitives(Environment* env);       // ports, read, write, files
void register_control_primitives(Environment* env);    // procedures, errors, records, promises
void register_system_primitives(Environment* env);     // time, process context, misc
void register_pe_primitives(Environment* env);         // specialize, residual (lib/pe/api.cpp)
void register_disasm_primitives(Environment* env);     // vm/disasm.cpp: bytecode listings
void register_jit_primitives(Environment* env);        // jit/primitives.cpp: modes, disassembly

void install_builtins(Environment* env);

}  // namespace quasi
