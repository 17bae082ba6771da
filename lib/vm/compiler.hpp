// compiler.hpp — lowers core IR that passes verify_ir to register bytecode (vm/proto.hpp).
//
// Closures are flat: a closure copies the values of its free variables when it is made. An
// assigned variable lives in a Box so every closure, and every re-entry of a continuation,
// sees one location — unless the variable is used only by the one closure that is its binder's
// body: then that closure's slot is the location, assigned in place (kSetFree).
// letrec groups made only of lambdas are tied with kFixClosure instead of boxes, and a lambda's
// reference to its own letrec name reads R[0], so named-let loops cost no indirection.
#pragma once

#include "ir/ir.hpp"
#include "vm/proto.hpp"

namespace quasi {

struct Vm;

// Compiles a top-level form into a closure of no arguments.
Value compile_toplevel(Vm& vm, Node* form);

}  // namespace quasi
