#include "engine/toplevel.hpp"

#include <fstream>
#include <sstream>
#include <vector>

#include "builtins/registry.hpp"
#include "core/error.hpp"
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

[[noreturn]] void library_error(Value form, const std::string& msg) {
  throw SchemeError{make_condition(intern("syntax"), intern("define-library"), make_string_utf8(msg), kNil,
                                   pair_srcloc(form))};
}

bool read_file(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

Environment* core_of(Vm& vm) { return vm.core_env; }

bool is_head(Value form, const char* name) {
  return is_pair(form) && is_symbol(car(form)) && car(form) == intern(name);
}

// Standard and built-in libraries all export the whole core environment for now.
bool is_builtin_library(Value name) {
  if (!is_pair(name) || !is_symbol(car(name))) return false;
  std::string head = symbol_name(car(name));
  return head == "scheme" || head == "srfi" || head == "quasi";
}

Value find_library(Vm& vm, Value name) {
  for (Value l = vm.libraries.get(); is_pair(l); l = cdr(l))
    if (write_to_string(car(car(l))) == write_to_string(name)) return cdr(car(l));
  return kFalse;
}

Value load_library(Vm& vm, Value name, Value form) {
  Value lib = find_library(vm, name);
  if (lib != kFalse) return lib;
  if (!vm.allow_files)  // a sandboxed engine reads no library files
    library_error(form, "library not found (file access is disabled): " + write_to_string(name));
  // (foo bar) is looked for as foo/bar.sld next to the importing file, then in the current
  // directory.
  std::string rel;
  for (Value l = name; is_pair(l); l = cdr(l)) {
    if (!rel.empty()) rel += "/";
    rel += is_symbol(car(l)) ? symbol_name(car(l)) : write_to_string(car(l));
  }
  rel += ".sld";
  std::vector<std::string> candidates;
  if (!vm.load_dir.empty()) candidates.push_back(vm.load_dir + rel);
  candidates.push_back(rel);
  for (const std::string& path : candidates) {
    std::string text;
    if (!read_file(path, &text)) continue;
    eval_source(vm, text, path, vm.interaction_env);
    lib = find_library(vm, name);
    if (lib != kFalse) return lib;
  }
  library_error(form, "library not found: " + write_to_string(name));
}

// The bindings an import set names: a list of (symbol . binding).
Value resolve_import_set(Vm& vm, Value set, Value form) {
  if (!is_pair(set)) library_error(form, "bad import set: " + write_to_string(set));
  Value head = car(set);
  auto ids_of = [&](Value l) {
    std::vector<Value> ids;
    for (; is_pair(l); l = cdr(l)) ids.push_back(car(l));
    return ids;
  };
  if (head == intern("only") || head == intern("except")) {
    if (!is_pair(cdr(set))) library_error(form, "bad import set: " + write_to_string(set));
    Value inner = resolve_import_set(vm, car(cdr(set)), form);
    std::vector<Value> ids = ids_of(cdr(cdr(set)));
    bool only = head == intern("only");
    Value out = kNil;
    for (Value l = inner; is_pair(l); l = cdr(l)) {
      bool listed = false;
      for (Value id : ids) listed = listed || id == car(car(l));
      if (listed == only) out = cons(car(l), out);
    }
    return out;
  }
  if (head == intern("prefix")) {
    if (list_length(set) != 3 || !is_symbol(car(cdr(cdr(set))))) library_error(form, "bad prefix import set");
    Value inner = resolve_import_set(vm, car(cdr(set)), form);
    std::string prefix = symbol_name(car(cdr(cdr(set))));
    Value out = kNil;
    for (Value l = inner; is_pair(l); l = cdr(l))
      out = cons(cons(intern(prefix + symbol_name(car(car(l)))), cdr(car(l))), out);
    return out;
  }
  if (head == intern("rename")) {
    if (!is_pair(cdr(set))) library_error(form, "bad rename import set");
    Value inner = resolve_import_set(vm, car(cdr(set)), form);
    Value out = kNil;
    for (Value l = inner; is_pair(l); l = cdr(l)) {
      Value sym = car(car(l));
      for (Value r = cdr(cdr(set)); is_pair(r); r = cdr(r))
        if (list_length(car(r)) == 2 && car(car(r)) == sym) sym = car(cdr(car(r)));
      out = cons(cons(sym, cdr(car(l))), out);
    }
    return out;
  }
  Value out = kNil;
  if (is_builtin_library(set)) {
    for (auto& [sym, binding] : *core_of(vm)->table) out = cons(cons(sym, binding), out);
    return out;
  }
  Environment* lib = load_library(vm, set, form).as<Environment>();
  for (auto& [sym, binding] : *lib->table) out = cons(cons(sym, binding), out);
  return out;
}

void import_into(Vm& vm, Environment* env, Value sets, Value form) {
  for (Value l = sets; is_pair(l); l = cdr(l))
    for (Value b = resolve_import_set(vm, car(l), form); is_pair(b); b = cdr(b))
      env->bind(car(car(b)), cdr(car(b)));
}

void eval_in(Vm& vm, Value form, Environment* env) {
  Value thunk = compile_form(vm, form, env);
  vm.apply(thunk, 0, nullptr);
}

void define_library(Vm& vm, Value form) {
  if (!is_pair(cdr(form))) library_error(form, "missing library name");
  Value name = car(cdr(form));
  Environment* lib = make_environment(name);
  std::vector<std::pair<Value, Value>> exports;  // internal, external
  std::vector<Value> decls;
  for (Value l = cdr(cdr(form)); is_pair(l); l = cdr(l)) decls.push_back(car(l));
  for (size_t i = 0; i < decls.size(); i++) {
    Value d = decls[i];
    if (!is_pair(d)) library_error(form, "bad library declaration: " + write_to_string(d));
    Value h = car(d);
    if (h == intern("export")) {
      for (Value s = cdr(d); is_pair(s); s = cdr(s)) {
        Value spec = car(s);
        if (is_symbol(spec)) exports.push_back({spec, spec});
        else if (list_length(spec) == 3 && car(spec) == intern("rename"))
          exports.push_back({car(cdr(spec)), car(cdr(cdr(spec)))});
        else library_error(d, "bad export spec: " + write_to_string(spec));
      }
    } else if (h == intern("import")) {
      import_into(vm, lib, cdr(d), d);
    } else if (h == intern("begin")) {
      for (Value b = cdr(d); is_pair(b); b = cdr(b)) eval_in(vm, car(b), lib);
    } else if (h == intern("include") || h == intern("include-ci") || h == intern("include-library-declarations")) {
      std::string base = dir_of(source_file_name(pair_srcloc(d).file));
      for (Value f = cdr(d); is_pair(f); f = cdr(f)) {
        if (!is_string(car(f))) library_error(d, "include: expected a file name");
        if (!vm.allow_files) library_error(d, "include: file access is disabled in this engine");
        std::string path = base + string_to_utf8(car(f));
        std::string text;
        if (!read_file(path, &text)) library_error(d, "include: cannot read " + path);
        StringSource src(text, intern_source_file(path));
        Reader reader(src);
        if (h == intern("include-ci")) reader.set_fold_case(true);
        for (Value x = reader.read(); x != kEof; x = reader.read()) {
          if (h == intern("include-library-declarations")) decls.push_back(x);
          else eval_in(vm, x, lib);
        }
      }
    } else if (h == intern("cond-expand")) {
      // Pick the first clause whose requirement holds by expanding a probe.
      Value features = expander_features();
      for (Value c = cdr(d); is_pair(c); c = cdr(c)) {
        Value req = car(car(c));
        bool ok = req == intern("else");
        if (!ok && is_symbol(req))
          for (Value f = features; is_pair(f); f = cdr(f)) ok = ok || car(f) == req;
        if (ok) {
          for (Value x = cdr(car(c)); is_pair(x); x = cdr(x)) decls.push_back(car(x));
          break;
        }
      }
    } else {
      library_error(d, "unknown library declaration: " + write_to_string(h));
    }
  }
  Environment* exported = make_environment(name);
  for (auto& [internal, external] : exports) {
    Value b = lib->lookup(internal);
    if (b == kUnbound) b = lib->cell_for(internal);
    exported->bind(external, b);
  }
  vm.libraries.set(cons(cons(name, make_ptr(exported)), vm.libraries.get()));
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

QUASI_PRIM(p_environment) {
  Value sets = kNil;
  for (int i = argc - 1; i >= 0; i--) sets = cons(argv[i], sets);
  return make_ptr(environment_from_imports(vm, sets));
}

const PrimDef kToplevelPrims[] = {
    {"eval", p_eval, 1, 2, kVmSpecial | kEffect,
     kFacts.control(kVmEval)},
    {"load", p_load, 1, 2, kEffect},
    {"interaction-environment", p_interaction_environment, 0, 0, 0},
    {"environment", p_environment, 0, -1, kEffect},
};

}  // namespace

Value compile_form(Vm& vm, Value form, Environment* env) {
  if (is_head(form, "import") && env->lookup(intern("import")) == kUnbound) {
    import_into(vm, env, cdr(form), form);
    return nothing_thunk();
  }
  if (is_head(form, "define-library") && env->lookup(intern("define-library")) == kUnbound) {
    define_library(vm, form);
    return nothing_thunk();
  }
  Node* ir = expand_toplevel(form, env, vm.core_env);
  ir = run_default_pipeline(vm, ir);  // fold-constants, inline-small, ... (passes/)
  return compile_toplevel(vm, ir);
}

Value eval_source(Vm& vm, std::string_view text, const std::string& source_name, Environment* env,
                  const std::function<void(Value)>& each) {
  StringSource src(text, intern_source_file(source_name));
  Reader reader(src);
  Value result = kUnspecified;
  for (Value form = reader.read(); form != kEof; form = reader.read()) {
    Value thunk = compile_form(vm, form, env);
    result = vm.apply(thunk, 0, nullptr);
    if (each) each(result);
  }
  return result;
}

Value load_file(Vm& vm, const std::string& path, Environment* env) {
  std::string text;
  if (!read_file(path, &text))
    throw_condition("file", "load", "cannot open file", list({make_string_utf8(path)}));
  std::string saved = vm.load_dir;
  vm.load_dir = dir_of(path);
  struct Restore {
    Vm& vm;
    std::string dir;
    ~Restore() { vm.load_dir = dir; }
  } restore{vm, saved};
  return eval_source(vm, text, path, env);
}

Environment* environment_from_imports(Vm& vm, Value import_sets) {
  Environment* env = make_environment(kFalse);
  import_into(vm, env, import_sets, kFalse);
  return env;
}

void register_toplevel_primitives(Environment* core) {
  install_primitives(core, kToplevelPrims);
}

}  // namespace quasi
