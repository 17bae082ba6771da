#include "engine/dump.hpp"

#include "eval/environment.hpp"
#include "eval/expander.hpp"
#include "engine/toplevel.hpp"
#include "passes/pass_manager.hpp"
#include "read/printer.hpp"
#include "read/reader.hpp"
#include "vm/vm.hpp"

namespace quasi {

namespace {

// `import` or `define-library` in an environment that does not rebind them (compile_form's test).
bool is_library_form(Value form, Environment* env) {
  if (!is_pair(form) || !is_symbol(car(form))) return false;
  Value head = car(form);
  if (head != intern("import") && head != intern("define-library")) return false;
  return env->lookup(head) == kUnbound;
}

}  // namespace

std::string dump_ir_text(Vm& vm, Environment* env, std::string_view code, std::string_view after_pass) {
  // Fail on a bad pass name before reading anything.
  if (!after_pass.empty() && after_pass != "expand" && after_pass != "all" &&
      !is_registered_pass(after_pass))
    run_pipeline_until(vm, nullptr, after_pass);  // throws the "unknown pass" error
  // The scratch copy owns copies of env's own cells, so `set!` and `define` of them expand as in
  // env (imported cells, such as the core's, are shared: the optimizer recognizes those).
  Environment* scratch = make_environment(env->name);
  for (auto& [sym, binding] : *env->table) {
    if (has_type(binding, Type::GlobalCell) && binding.as<GlobalCell>()->owner == make_ptr(env)) {
      Value copy = scratch->cell_for(sym);
      copy.as<GlobalCell>()->value = binding.as<GlobalCell>()->value;
    } else {
      scratch->bind(sym, binding);
    }
  }
  StringSource src(code, intern_source_file("<dump-ir>"));
  Reader reader(src);
  std::string out;
  for (Value form = reader.read(); form != kEof; form = reader.read()) {
    if (is_library_form(form, scratch)) {
      compile_form(vm, form, scratch);  // imports into scratch; runs nothing of the program
      continue;
    }
    VmExpandHost host(vm);  // procedural macros run their transformers while expanding
    Node* ir = expand_toplevel(form, scratch, vm.core_env, &host);
    ir = run_pipeline_until(vm, ir, after_pass);
    out += write_to_string(ir_to_datum(ir));
    out += '\n';
  }
  return out;
}

}  // namespace quasi
