// toplevel.hpp — evaluating top-level forms: reading, `import`, `define-library`, expansion,
// compilation and running, for source text, files, and `eval`.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/object.hpp"

namespace quasi {

struct Vm;
struct Environment;

// Compiles one top-level datum into a thunk. `import` and `define-library` take effect here
// (a library's body runs now); their thunk does nothing.
Value compile_form(Vm& vm, Value form, Environment* env);
// Reads every datum of `text` and evaluates it in turn in `env`; returns the last value.
// `each`, when given, receives the value of every form as soon as the form has run.
Value eval_source(Vm& vm, std::string_view text, const std::string& source_name, Environment* env,
                  const std::function<void(Value)>& each = nullptr);
Value load_file(Vm& vm, const std::string& path, Environment* env);
// A fresh environment holding what `import_set` names, e.g. (scheme base) or (only (foo) x).
Environment* environment_from_imports(Vm& vm, Value import_sets);

void register_toplevel_primitives(Environment* core);  // eval, load, environment, ...

}  // namespace quasi
