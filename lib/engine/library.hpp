// library.hpp — R7RS libraries (R7RS 5.2, 5.6): finding library files, define-library, import
// sets, and the environments `environment`, `scheme-report-environment` and `null-environment`
// make.
//
// A library is registered in Vm::libraries under its name, with an Environment of its exports,
// once its define-library has run; its body runs then, once, in the library's own environment,
// and importers see only its exports (the same bindings: an exported variable is the library's
// cell). (quasi core) is built in and exports every public binding of the core environment: the
// primitives of every layer, the prelude's definitions and the syntactic keywords, but not the
// %-internals (eval/environment.hpp: is_internal_name), which no user code can reach. The standard libraries are .sld files under scheme/lib that import (quasi core)
// and export their names, so which name belongs to which library is the data of export lists,
// and two libraries exporting one core name share its binding. (quasi) is built in too: the same
// bindings, what the REPL and an import-less script see.
//
// Vm::library_allow, when not #f, is the list of the library names an engine may import (a
// sandbox chooses them); libraries the host registered are always allowed.
//
// (a b 1) is the file a/b/1.sld, looked for in Vm::load_dir (the directory of the program being
// run, or the root the importing library was found under), then Vm::library_path, then the
// libraries built into the binary (eval/embedded.hpp), then Vm::library_path_after. A library
// file holds define-library forms only.
#pragma once

#include <functional>

#include "core/gc.hpp"
#include "core/object.hpp"

namespace quasi {

struct Vm;
struct Environment;

// Runs an import declaration `form`, (import set ...), binding in `env` what each set names.
// Importing one name with two different bindings is an error (R7RS 5.6.1), except into the
// interaction environment, where the later import wins, as a REPL user re-importing expects.
void import_declaration(Vm& vm, Environment* env, Value form);
// Runs a define-library form (from a library file, a program or the REPL) and registers it.
void define_library(Vm& vm, Value form);
// Whether importing `name` would find the library: registered, or a file on the search path or
// built in. For cond-expand's (library name), so that it agrees with import.
bool library_exists(Vm& vm, Value name);
// Registers a library made by the host (the embedding API): `exports` (a list of symbols) are
// bindings of `env`. Found before the search path, also without file access, and importable
// even when Vm::library_allow does not list it.
void register_library(Vm& vm, Value name, Environment* env, Value exports);
// A new environment holding what the list `import_sets` names (`environment`). Definitions are
// allowed in it.
Environment* environment_from_imports(Vm& vm, Value import_sets, Value form);
// Gives each name that `forms` define at their top level (define, define-values,
// define-record-type, also inside begin) its own cell in `env` before any of the forms is
// compiled, so a program's or library's definitions are in scope in its whole body, also in the
// procedures defined before them (R7RS 5.1: a program body is one scope). Definitions produced
// by macro uses are not seen here.
void predeclare_definitions(Environment* env, const gc_vector<Value>& forms);
// Calls each(identifier, defining-form) for every name `form` defines at its top level, as
// predeclare_definitions sees them (keywords are looked up in `env`).
void for_each_definition(Environment* env, Value form, const std::function<void(Value, Value)>& each);

// environment, scheme-report-environment, null-environment, interaction-environment.
void register_library_primitives(Environment* core);

}  // namespace quasi
