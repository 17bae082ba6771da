// redefinition.hpp — a later `define` of an imported name reaches the code compiled before it.
//
// In the REPL (and in `eval`, and in a program whose definitions a macro made), a procedure
// compiled against an imported binding — a built-in such as car or fold — keeps that binding's
// cell in its constants. When the environment later defines the name, Environment::define_cell
// makes a new cell and records (old . new) in Environment::redefined; apply_redefinitions then
// moves every procedure compiled in that environment from the old cell to the new one, as Guile
// does: earlier procedures call the new definition from then on. Per procedure, not engine-wide:
// code that inlined the old builtin (Proto::inline_off) calls through the cell from now on and is
// not compiled to machine code again; other procedures and other environments keep their fast
// paths and machine code.
//
// The environment remembers the procedures compiled in it weakly (disappearing links, so a
// procedure that is no longer reachable is forgotten); nothing is kept for code that refers to
// no imported cell.
//
// Limits: an activation already running keeps the old binding until it returns into machine code
// that was dropped or calls again; a call of a builtin on constants that the optimizer folded at
// compile time (`(car '(1 2))` → 1) stays folded; specializations that used the old cell are
// invalidated like after an assignment of a watched cell.
#pragma once

#include "core/object.hpp"

namespace quasi {

struct Environment;
struct Vm;

// Remembers the procedures of `thunk` (a compiled top-level form of `env`) that refer to a cell
// `env` imported. No-op for an immutable environment.
void remember_compiled(Environment* env, Value thunk);
// Moves the code compiled in `env` to the cells of its pending redefinitions (see above).
void apply_redefinitions(Environment* env);
// How many procedures `env` remembers (live ones, and dead ones not yet compacted away): for the
// tests that check the memory stays bounded.
size_t remembered_procedures(Environment* env);

}  // namespace quasi
