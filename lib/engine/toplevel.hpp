// toplevel.hpp — evaluating top-level forms: reading, `import`, `define-library`, expansion,
// compilation and running, for source text, files, programs and `eval`.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/object.hpp"
#include "eval/expander.hpp"

namespace quasi {

struct Vm;
struct Environment;

// Compiles one top-level datum into a thunk. `import` and `define-library` take effect here
// (a library's body runs now); their thunk does nothing.
Value compile_form(Vm& vm, Value form, Environment* env);
// Reads every datum of `text` and evaluates it in turn in `env`, as a REPL does; returns the last
// value. `each`, when given, receives the value of every form as soon as the form has run.
Value eval_source(Vm& vm, std::string_view text, const std::string& source_name, Environment* env,
                  const std::function<void(Value)>& each = nullptr);
Value load_file(Vm& vm, const std::string& path, Environment* env);
// Runs `text` as a program (R7RS 5.1). A program that starts with import declarations runs in a
// new environment holding only what they import; one without runs in the interaction
// environment (an import-less script sees what the REPL sees). Either way each name the program
// defines at its top level is its own from the first form on (predeclare_definitions). The
// whole text is read before anything runs. Libraries are looked for beside `source_name` first.
Value run_program(Vm& vm, std::string_view text, const std::string& source_name);

// The expander's access to the engine (eval/expander.hpp).
class VmExpandHost final : public ExpandHost {
 public:
  explicit VmExpandHost(Vm& vm) : vm_(vm) {}
  bool library_exists(Value name) override;
  bool files_allowed() override;
  Value run(Node* ir, Environment* env) override;
  Value apply(Value proc, int argc, const Value* argv) override;
  void autoload(Value cell) override;

 private:
  Vm& vm_;
};

void register_toplevel_primitives(Environment* core);  // eval, load, environment, ...

}  // namespace quasi
