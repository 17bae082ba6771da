// registry.hpp — how C++ primitives are installed into the core environment, and the builtins'
// registration functions.
//
// Each builtins/*.cpp file defines its primitives as ordinary functions and lists them in one
// table of PrimDef (core/prim.hpp: name, function, arity, flags). That table is the single source
// of truth the optimizer reads (flags: pure, foldable, allocates, has-effects, may-raise). A static
// library drops unreferenced object files, so registration is an explicit call, not a static
// constructor: engine/startup.cpp calls every register_*_primitives function, in one list.
#pragma once

#include <span>

#include "core/error.hpp"
#include "core/object.hpp"
#include "core/prim.hpp"
#include "eval/environment.hpp"  // install_primitives

namespace quasi {

// One per builtins file. Called in this order by install_builtins (engine/startup.cpp).
void register_numeric_primitives(Environment* env);    // numbers.cpp / numeric.cpp
void register_list_primitives(Environment* env);       // pairs, lists, symbols, booleans, eq*
void register_char_string_primitives(Environment* env);// characters and strings (Unicode)
void register_vector_primitives(Environment* env);     // vectors and bytevectors
void register_port_primitives(Environment* env);       // ports, read, write, files
void register_control_primitives(Environment* env);    // procedures, errors, records, promises
void register_system_primitives(Environment* env);     // time, process context, misc
void register_pretty_primitives(Environment* env);     // pretty-print and its parameters
void register_syntax_primitives(Environment* env);     // syntax-case, er/ir-macro-transformer
void register_hashtable_primitives(Environment* env);  // hash tables and hash functions
void register_egraph_primitives(Environment* env);     // (quasi egraph): egraph.cpp

}  // namespace quasi
