#include "engine/toplevel.hpp"

#include <optional>
#include <vector>

#include "builtins/registry.hpp"
#include "core/error.hpp"
#include "engine/autoload.hpp"
#include "engine/library.hpp"
#include "engine/redefinition.hpp"
#include "engine/warnings.hpp"
#include "eval/embedded.hpp"
#include "eval/environment.hpp"
#include "eval/expander.hpp"
#include "passes/pass_manager.hpp"
#include "read/printer.hpp"
#include "read/reader.hpp"
#include "vm/compiler.hpp"
#include "vm/vm.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {
namespace {

bool is_head(Value form, const char* name) {
  return is_pair(form) && is_symbol(car(form)) && car(form) == intern(name);
}

QUASI_PRIM(p_nothing) { return kUnspecified; }

Value nothing_thunk() {
  static Value* const thunk = [] {  // initialized once even when engines start on several threads
    auto* t = static_cast<Value*>(GC_MALLOC_UNCOLLECTABLE(sizeof(Value)));
    *t = make_primitive("toplevel", p_nothing, 0, 0, kPure);
    return t;
  }();
  return *thunk;
}

Environment* check_env(const char* who, Value v) {
  if (!is_environment(v)) type_error(who, "an environment", v);
  return v.as<Environment>();
}

// (eval expr [env]) — run by the VM: this returns the compiled thunk, which the VM tail-calls.
QUASI_PRIM(p_eval) {
  Environment* env = argc > 1 ? check_env("eval", argv[1]) : vm.interaction_env;
  return compile_form(vm, argv[0], env);
}

QUASI_PRIM(p_load) {
  if (!is_string(argv[0])) type_error("load", "a string", argv[0]);
  Environment* env = argc > 1 ? check_env("load", argv[1]) : vm.interaction_env;
  load_file(vm, string_to_utf8(argv[0]), env);
  return kUnspecified;
}

QUASI_PRIM(p_interaction_environment) { return make_ptr(vm.interaction_env); }

const PrimDef kToplevelPrims[] = {
    {"eval", p_eval, 1, 2, kVmSpecial | kEffect,
     kFacts.control(kVmEval)},
    {"load", p_load, 1, 2, kEffect},
    {"interaction-environment", p_interaction_environment, 0, 0, 0},
};

}  // namespace

bool VmExpandHost::library_exists(Value name) { return quasi::library_exists(vm_, name); }
bool VmExpandHost::files_allowed() { return vm_.allow_files; }
Value VmExpandHost::run(Node* ir, Environment* env) {
  return vm_.apply(compile_toplevel(vm_, run_default_pipeline(vm_, ir)), 0, nullptr);
}
Value VmExpandHost::apply(Value proc, int argc, const Value* argv) { return vm_.apply(proc, argc, argv); }
void VmExpandHost::autoload(Value cell) { autoload_cell(vm_, cell); }

namespace {
// A name the environment does not define: no binding, or a variable cell nothing has set (an
// earlier reference makes one: after (define (f) (import ...)) the REPL's imports must still be
// declarations).
bool undefined_name(Environment* env, const char* name) {
  Value b = env->lookup(intern(name));
  return b == kUnbound || (has_type(b, Type::GlobalCell) && b.as<GlobalCell>()->value == kUnbound);
}
}  // namespace

Value compile_form(Vm& vm, Value form, Environment* env) {
  if (is_head(form, "import") && undefined_name(env, "import")) {
    import_declaration(vm, env, form);
    return nothing_thunk();
  }
  // (begin (import ...) form ...) at the top level (of a program, the REPL or eval) is spliced
  // there, so its imports are declarations too: made first, then the other forms are compiled
  // as one begin. (foment's R7RS eval tests and husk's do this; it was an "unbound variable".)
  Value begin = is_head(form, "begin") ? env->lookup(intern("begin")) : kFalse;
  if (is_macro(begin) && begin.as<Macro>()->form == SpecialForm::Begin &&
      undefined_name(env, "import")) {
    bool imports = false;
    for (Value l = cdr(form); is_pair(l); l = cdr(l)) imports = imports || is_head(car(l), "import");
    if (imports) {
      gc_vector<Value> rest;
      for (Value l = cdr(form); is_pair(l); l = cdr(l)) {
        if (is_head(car(l), "import")) import_declaration(vm, env, car(l));
        else rest.push_back(car(l));
      }
      if (rest.empty()) return nothing_thunk();
      Value body = kNil;
      for (size_t i = rest.size(); i-- > 0;) body = cons(rest[i], body);
      form = cons(car(form), body);
    }
  }
  if (is_head(form, "define-library") && undefined_name(env, "define-library")) {
    define_library(vm, form);
    return nothing_thunk();
  }
  VmExpandHost host(vm);
  Node* ir = expand_toplevel(form, env, vm.core_env, &host);
  warn_about_form(vm, ir);
  apply_redefinitions(env);  // a define of an imported name moves the code compiled before it
  ir = run_default_pipeline(vm, ir);  // fold-constants, inline-small, ... (passes/)
  Value thunk = compile_toplevel(vm, ir);
  remember_compiled(env, thunk);
  return thunk;
}

namespace {
// Compiles and runs one top-level form. An error that has no location of its own is placed at
// the form's start: atoms carry no location, so this is what locates a bare unbound symbol.
void place_at(Value payload, SrcLoc at) {
  if (is_condition(payload) && payload.as<Condition>()->loc == 0 && at.known()) payload.as<Condition>()->loc = at.pack();
}

Value run_form(Vm& vm, Value form, SrcLoc at, Environment* env) {
  struct Placed {  // VmImpl::form_location for the length of the form (load nests forms)
    VmImpl* impl;
    SrcLoc saved;
    ~Placed() { impl->form_location = saved; }
  } placed{vm.impl, vm.impl->form_location};
  vm.impl->form_location = at;
  try {
    return vm.apply(compile_form(vm, form, env), 0, nullptr);
  } catch (SchemeError& e) {
    place_at(e.payload, at);
    throw;
  } catch (UncaughtRaise& e) {
    place_at(e.payload, at);
    throw;
  }
}
}  // namespace

Value eval_source(Vm& vm, std::string_view text, const std::string& source_name, Environment* env,
                  const std::function<void(Value)>& each) {
  // Warnings look at the whole text first, so a definition further down is not "unbound".
  std::optional<WarningScope> warnings;
  if (vm.on_warning && vm.warning_kinds && !is_embedded_name(source_name))
    warnings.emplace(vm, env, read_forms_for_warnings(text, source_name));
  StringSource src(text, intern_source_file(source_name));
  Reader reader(src);
  Value result = kUnspecified;
  for (Value form = reader.read(); form != kEof; form = reader.read()) {
    result = run_form(vm, form, reader.datum_start(), env);
    if (each) each(result);
  }
  return result;
}

namespace {
// Sets Vm::load_dir to the directory of `path` for the length of a scope.
struct InDirectoryOf {
  Vm& vm;
  std::string saved;
  InDirectoryOf(Vm& v, const std::string& path) : vm(v), saved(v.load_dir) { vm.load_dir = directory_of(path); }
  ~InDirectoryOf() { vm.load_dir = saved; }
};
}  // namespace

Value load_file(Vm& vm, const std::string& path, Environment* env) {
  std::string text;
  if (!read_source_text(path, true, &text))
    throw_condition("file", "load", "cannot open file", list({make_string_utf8(path)}));
  InDirectoryOf dir(vm, path);
  return eval_source(vm, text, path, env);
}

Value run_program(Vm& vm, std::string_view text, const std::string& source_name) {
  StringSource src(text, intern_source_file(source_name));
  Reader reader(src);
  gc_vector<Value> forms;
  std::vector<SrcLoc> starts;
  for (Value form = reader.read(); form != kEof; form = reader.read()) {
    forms.push_back(form);
    starts.push_back(reader.datum_start());
  }
  bool named_file = !source_name.empty() && source_name[0] != '<';
  std::optional<InDirectoryOf> dir;
  if (named_file) dir.emplace(vm, source_name);
  Environment* env = vm.interaction_env;
  size_t first = 0;
  if (!forms.empty() && is_head(forms[0], "import")) {
    env = make_environment(kFalse);
    for (; first < forms.size() && is_head(forms[first], "import"); first++) import_declaration(vm, env, forms[first]);
  }
  gc_vector<Value> body(forms.begin() + first, forms.end());
  predeclare_definitions(env, body);
  std::optional<WarningScope> warnings;
  if (vm.on_warning && vm.warning_kinds) warnings.emplace(vm, env, body);
  Value result = kUnspecified;
  for (size_t i = first; i < forms.size(); i++) result = run_form(vm, forms[i], starts[i], env);
  return result;
}

void register_toplevel_primitives(Environment* core) {
  install_primitives(core, kToplevelPrims);
  register_library_primitives(core);
}

}  // namespace quasi
