// startup.hpp — what an engine installs into its core environment when it starts.
//
// Owner: ir. The list itself is engine/startup.cpp: every layer's registration function, called
// in one place, so no lower layer registers (or even names) an upper layer's primitives.
#pragma once

namespace quasi {

struct Environment;

// Every builtin primitive of every layer (builtins, vm, pe, jit), in registration order.
void install_builtins(Environment* env);

// engine/introspection.cpp: procedure-information, documentation.
void register_introspection_primitives(Environment* env);

}  // namespace quasi
