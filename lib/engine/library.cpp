#include "engine/library.hpp"

#include "engine/autoload.hpp"

#include <sys/stat.h>

#include <functional>
#include <optional>
#include <string>

#include "builtins/registry.hpp"
#include "core/equality.hpp"
#include "core/error.hpp"
#include "engine/toplevel.hpp"
#include "engine/warnings.hpp"
#include "eval/embedded.hpp"
#include "eval/environment.hpp"
#include "eval/expander.hpp"
#include "read/printer.hpp"
#include "read/reader.hpp"
#include "vm/vm.hpp"

namespace quasi {
namespace {

inline Value cadr(Value x) { return car(cdr(x)); }
inline Value cddr(Value x) { return cdr(cdr(x)); }

// A 'syntax condition "who: message irritants" located at `at` (a form read from source).
[[noreturn]] void fail(const char* who, Value at, const std::string& message, Value irritants = kNil) {
  throw SchemeError{make_condition(intern("syntax"), intern(who), make_string_utf8(message), irritants,
                                   pair_srcloc(at))};
}

bool is_head(Value form, const char* name) {
  return is_pair(form) && is_symbol(car(form)) && car(form) == intern(name);
}

// ---- names and files ----------------------------------------------------------------------------

// A library name: a non-empty proper list of identifiers and exact non-negative integers.
bool valid_name(Value name) {
  if (list_length(name) < 1) return false;
  for (Value l = name; is_pair(l); l = cdr(l))
    if (!is_symbol(car(l)) && !(car(l).is_fixnum() && car(l).fixnum() >= 0)) return false;
  return true;
}

Value check_name(const char* who, Value name, Value at) {
  name = syntax_to_datum(name);
  if (!valid_name(name)) fail(who, at, "bad library name", list({name}));
  return name;
}

// (srfi 1) -> "srfi/1.sld"
std::string file_of(Value name) {
  std::string rel;
  for (Value l = name; is_pair(l); l = cdr(l)) {
    if (!rel.empty()) rel += '/';
    rel += is_symbol(car(l)) ? std::string(symbol_name(car(l))) : std::to_string(car(l).fixnum());
  }
  return rel + ".sld";
}

Value core_library_name() { return list({intern("quasi"), intern("core")}); }
Value quasi_library_name() { return list({intern("quasi")}); }

bool member_equal(Value x, Value list) {
  for (Value l = list; is_pair(l); l = cdr(l))
    if (equal(car(l), x)) return true;
  return false;
}

Value find_library(Vm& vm, Value name) {
  for (Value l = vm.libraries.get(); is_pair(l); l = cdr(l))
    if (equal(car(car(l)), name)) return cdr(car(l));
  return kFalse;
}

bool is_regular_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string as_dir(const std::string& dir) {
  return dir.empty() || dir.back() == '/' ? dir : dir + '/';
}

// The directories searched, in order; the built-in libraries are the entry kEmbeddedPrefix.
std::vector<std::string> search_path(const Vm& vm) {
  std::vector<std::string> dirs;
  if (vm.allow_files) {
    if (!is_embedded_name(vm.load_dir)) dirs.push_back(as_dir(vm.load_dir));
    for (const std::string& d : vm.library_path) dirs.push_back(as_dir(d));
  }
  dirs.emplace_back(kEmbeddedPrefix);
  if (vm.allow_files)
    for (const std::string& d : vm.library_path_after) dirs.push_back(as_dir(d));
  return dirs;
}

struct Located {
  std::string path;  // of the .sld
  std::string root;  // the search directory it was found in
};

std::optional<Located> locate(const Vm& vm, Value name) {
  std::string rel = file_of(name);
  // A library imported by a built-in one is looked for among the built-in ones first.
  if (is_embedded_name(vm.load_dir) && embedded_library_file(rel))
    return Located{std::string(kEmbeddedPrefix) + rel, std::string(kEmbeddedPrefix)};
  for (const std::string& dir : search_path(vm)) {
    bool found = is_embedded_name(dir) ? embedded_library_file(rel) != nullptr : is_regular_file(dir + rel);
    if (found) return Located{dir + rel, dir};
  }
  return std::nullopt;
}

std::string describe_search(const Vm& vm, Value name) {
  std::string out = "looked for " + file_of(name) + " in";
  for (const std::string& dir : search_path(vm)) {
    out += ' ';
    if (is_embedded_name(dir)) out += "the built-in libraries,";
    else out += (dir.empty() ? "." : dir.substr(0, dir.size() - 1)) + ",";
  }
  out.pop_back();
  return out;
}

// Sets Vm::load_dir for the length of a scope.
struct LoadDir {
  Vm& vm;
  std::string saved;
  LoadDir(Vm& v, const std::string& dir) : vm(v), saved(v.load_dir) { vm.load_dir = dir; }
  ~LoadDir() { vm.load_dir = saved; }
};

// Marks a library as being defined for the length of a scope (import cycles).
struct Loading {
  Vm& vm;
  Loading(Vm& v, Value name, Value at) : vm(v) {
    Value chain = kNil;
    bool cycle = false;
    for (Value l = vm.libraries_loading.get(); is_pair(l) && !cycle; l = cdr(l)) {
      chain = cons(car(l), chain);
      cycle = equal(car(l), name);
    }
    if (cycle) {
      std::string path;
      for (Value l = chain; is_pair(l); l = cdr(l)) path += write_to_string(car(l)) + " -> ";
      fail("import", at, "import cycle: " + path + write_to_string(name));
    }
    vm.libraries_loading.set(cons(name, vm.libraries_loading.get()));
  }
  ~Loading() { vm.libraries_loading.set(cdr(vm.libraries_loading.get())); }
};

gc_vector<Value> read_all(const std::string& text, const std::string& path, bool fold_case = false) {
  StringSource src(text, intern_source_file(path));
  Reader reader(src);
  if (fold_case) reader.set_fold_case(true);
  gc_vector<Value> out;
  for (Value d = reader.read(); d != kEof; d = reader.read()) out.push_back(d);
  return out;
}

// The exports of library `name`, loading its file on first use. `at` is the import form.
Environment* load_library(Vm& vm, Value name, Value at) {
  Value lib = find_library(vm, name);
  if (lib != kFalse) return lib.as<Environment>();
  Loading loading(vm, name, at);  // before looking: an import of a library being defined is a cycle
  std::optional<Located> found = locate(vm, name);
  if (!found) fail("import", at, "library " + write_to_string(name) + " not found (" + describe_search(vm, name) + ")");
  std::string text;
  if (!read_source_text(found->path, vm.allow_files, &text))
    fail("import", at, "cannot read " + found->path + " for library " + write_to_string(name));
  gc_vector<Value> forms = read_all(text, found->path);
  {
    LoadDir dir(vm, found->root);
    for (Value f : forms) {
      if (!is_head(f, "define-library"))
        fail("import", is_pair(f) ? f : at,
             found->path + ": a library file may hold only define-library forms, not", list({f}));
      define_library(vm, f);
    }
  }
  lib = find_library(vm, name);
  if (lib == kFalse) fail("import", at, found->path + " does not define library " + write_to_string(name));
  return lib.as<Environment>();
}

// ---- import sets --------------------------------------------------------------------------------

struct Binding {
  Value name;
  Value binding;  // GlobalCell or keyword
};
using Bindings = gc_vector<Binding>;

Bindings all_bindings(Environment* env) {
  Bindings out;
  for (auto& [sym, b] : *env->table) out.push_back({sym, b});
  return out;
}

Binding* find_binding(Bindings& bs, Value sym) {
  for (Binding& b : bs)
    if (b.name == sym) return &b;
  return nullptr;
}

// Whether Vm::library_allow lets `name` be imported here. The allow-list limits what programs, the
// REPL and environments import, and the libraries they define themselves; the libraries it lets
// in (found on the search path or built in) import what they need, as (scheme base) does (quasi
// core). Libraries the host registered are always allowed.
bool import_allowed(Vm& vm, Value name) {
  Value allowed = vm.library_allow.get();
  return allowed == kFalse || vm.libraries_loading.get() != kNil || member_equal(name, allowed) ||
         member_equal(name, vm.host_libraries.get());
}

// What an import set names. `at` locates errors (the import form).
Bindings resolve_import_set(Vm& vm, Value set, Value at) {
  set = syntax_to_datum(set);
  if (list_length(set) < 1) fail("import", at, "bad import set", list({set}));
  Value head = car(set);
  bool modifier = (head == intern("only") || head == intern("except") || head == intern("prefix") ||
                   head == intern("rename")) &&
                  is_pair(cdr(set)) && is_pair(cadr(set));
  if (!modifier) {
    Value name = check_name("import", set, at);
    if (!import_allowed(vm, name))
      fail("import", at, "library " + write_to_string(name) + " is not available in this engine");
    if (equal(name, core_library_name()) || equal(name, quasi_library_name())) {
      Bindings out;  // every public binding of the core environment: what the REPL sees
      for (auto& [sym, b] : *vm.core_env->table)
        if (!is_internal_name(sym)) out.push_back({sym, b});
      return out;
    }
    return all_bindings(load_library(vm, name, at));
  }
  Bindings inner = resolve_import_set(vm, cadr(set), at);
  Value args = cddr(set);
  auto need = [&](Value sym) -> Binding& {
    Binding* b = is_symbol(sym) ? find_binding(inner, sym) : nullptr;
    if (!b) fail("import", at, write_to_string(sym) + " is not exported by " + write_to_string(cadr(set)) + " in", list({set}));
    return *b;
  };
  if (head == intern("only")) {
    Bindings out;
    for (Value l = args; is_pair(l); l = cdr(l)) out.push_back(need(car(l)));
    return out;
  }
  if (head == intern("except")) {
    for (Value l = args; is_pair(l); l = cdr(l)) need(car(l)).name = kFalse;
    Bindings out;
    for (Binding& b : inner)
      if (b.name != kFalse) out.push_back(b);
    return out;
  }
  if (head == intern("prefix")) {
    if (list_length(args) != 1 || !is_symbol(car(args))) fail("import", at, "bad prefix import set", list({set}));
    std::string prefix = symbol_name(car(args));
    for (Binding& b : inner) b.name = intern(prefix + symbol_name(b.name));
    return inner;
  }
  // rename: every (from to) renames one exported name; the others stay.
  Bindings renamed;
  for (Value l = args; is_pair(l); l = cdr(l)) {
    Value r = car(l);
    if (list_length(r) != 2 || !is_symbol(car(r)) || !is_symbol(cadr(r)))
      fail("import", at, "bad rename in import set", list({set}));
    Binding& b = need(car(r));
    renamed.push_back({cadr(r), b.binding});
    b.name = kFalse;
  }
  for (Binding& b : inner)
    if (b.name != kFalse) renamed.push_back(b);
  return renamed;
}

void import_sets(Vm& vm, Environment* env, Value sets, Value at) {
  bool replace = env == vm.interaction_env;
  for (Value l = sets; is_pair(l); l = cdr(l)) {
    for (const Binding& b : resolve_import_set(vm, car(l), at)) {
      Value old = env->lookup(b.name);
      // A cell a failed reference made (no definition, no value) is no binding to conflict with.
      bool placeholder = has_type(old, Type::GlobalCell) && old.as<GlobalCell>()->value == kUnbound &&
                         old.as<GlobalCell>()->owner == make_ptr(env);
      if (old != kUnbound && old != b.binding && !replace && !placeholder)
        fail("import", at,
             write_to_string(b.name) + " is imported with two different bindings (the second from " +
                 write_to_string(syntax_to_datum(car(l))) + ")");
      env->bind(b.name, b.binding);
    }
  }
}

// ---- define-library -----------------------------------------------------------------------------

// Registers `exports` under `name`; a library defined again (in the REPL) replaces the old one.
void add_library(Vm& vm, Value name, Environment* exports) {
  Value rest = kNil;
  for (Value r = vm.libraries.get(); is_pair(r); r = cdr(r))
    if (!equal(car(car(r)), name)) rest = cons(car(r), rest);
  vm.libraries.set(cons(cons(name, make_ptr(exports)), reverse_list(rest)));
}

struct Export {
  Value internal, external, spec;
};

void parse_exports(Value decl, gc_vector<Export>& out) {
  for (Value s = cdr(decl); is_pair(s); s = cdr(s)) {
    Value spec = syntax_to_datum(car(s));
    if (is_symbol(spec)) out.push_back({spec, spec, decl});
    else if (list_length(spec) == 3 && car(spec) == intern("rename") && is_symbol(cadr(spec)) &&
             is_symbol(car(cddr(spec))))
      out.push_back({cadr(spec), car(cddr(spec)), decl});
    else fail("export", decl, "bad export spec", list({spec}));
  }
}

// Reads the files of an include, include-ci or include-library-declarations declaration,
// relative to the file the declaration is in.
gc_vector<Value> included_forms(Vm& vm, Value decl, bool fold_case) {
  const char* who = symbol_name(car(decl));
  SrcLoc here = pair_srcloc(decl);
  std::string dir = here.known() ? directory_of(source_file_name(here.file)) : as_dir(vm.load_dir);
  gc_vector<Value> out;
  if (list_length(cdr(decl)) < 1) fail(who, decl, "expected file names");
  for (Value f = cdr(decl); is_pair(f); f = cdr(f)) {
    if (!is_string(car(f))) fail(who, decl, "expected a file name, got", list({car(f)}));
    std::string name = string_to_utf8(car(f));
    std::string path = !name.empty() && name[0] == '/' ? name : dir + name;
    std::string text;
    if (!read_source_text(path, vm.allow_files, &text))
      fail(who, decl, vm.allow_files || is_embedded_name(path) ? "cannot read " + path
                                                                : "file access is disabled in this engine: " + path);
    for (Value x : read_all(text, path, fold_case)) out.push_back(x);
  }
  return out;
}

void record_definition(Environment* env, Value id) {
  if (!is_identifier(id)) return;
  Value sym = identifier_symbol(id);
  Value b = env->lookup(sym);
  if (has_type(b, Type::GlobalCell) && b.as<GlobalCell>()->owner == make_ptr(env)) return;
  env->define_cell(sym);
}

SpecialForm keyword_of(Environment* env, Value form) {
  if (!is_pair(form) || !is_symbol(car(form))) return SpecialForm::None;
  Value b = env->lookup(car(form));
  return is_macro(b) ? b.as<Macro>()->form : SpecialForm::None;
}

// Calls `each` with every identifier `form` defines at its top level (see for_each_definition).
void walk_definitions(Environment* env, Value form, int depth, const std::function<void(Value, Value)>& each) {
  if (depth > 1000 || list_length(form) < 2) return;
  switch (keyword_of(env, form)) {
    case SpecialForm::Begin:
      for (Value l = cdr(form); is_pair(l); l = cdr(l)) walk_definitions(env, car(l), depth + 1, each);
      return;
    case SpecialForm::Define: {
      Value target = cadr(form);
      for (int guard = 0; is_pair(target) && guard < 1000; guard++) target = car(target);  // curried
      each(target, form);
      return;
    }
    case SpecialForm::DefineValues: {
      Value f = cadr(form);
      for (; is_pair(f); f = cdr(f)) each(car(f), form);
      each(f, form);
      return;
    }
    case SpecialForm::DefineRecordType: {
      // (define-record-type name (ctor field ...) pred (field accessor [modifier]) ...)
      int64_t n = list_length(form);
      if (n < 3) return;
      each(cadr(form), form);
      Value ctor = car(cddr(form));
      each(is_pair(ctor) ? car(ctor) : ctor, form);
      if (n < 4) return;
      each(car(cdr(cddr(form))), form);
      for (Value f = cdr(cdr(cddr(form))); is_pair(f); f = cdr(f))
        if (list_length(car(f)) >= 2)
          for (Value p = cdr(car(f)); is_pair(p); p = cdr(p)) each(car(p), form);
      return;
    }
    default:
      return;
  }
}

}  // namespace

void for_each_definition(Environment* env, Value form, const std::function<void(Value, Value)>& each) {
  walk_definitions(env, form, 0, each);
}

void predeclare_definitions(Environment* env, const gc_vector<Value>& forms) {
  for (Value f : forms) walk_definitions(env, f, 0, [env](Value id, Value) { record_definition(env, id); });
}

void import_declaration(Vm& vm, Environment* env, Value form) {
  if (list_length(form) < 2) fail("import", form, "expected import sets");
  import_sets(vm, env, cdr(form), form);
}

void define_library(Vm& vm, Value form) {
  WarningsSuspended library_text_is_not_the_program(vm);
  if (list_length(form) < 2) fail("define-library", form, "missing library name");
  Value name = check_name("define-library", cadr(form), form);
  // A file loaded for an import already marked the name; a define-library typed into a program
  // or the REPL marks it here.
  std::optional<Loading> loading;
  Value l = vm.libraries_loading.get();
  if (!is_pair(l) || !equal(car(l), name)) loading.emplace(vm, name, form);

  Environment* lib = make_environment(name);
  gc_vector<Export> exports;
  gc_vector<Value> body;
  gc_vector<Value> decls;
  for (Value d = cddr(form); is_pair(d); d = cdr(d)) decls.push_back(car(d));
  VmExpandHost host(vm);
  for (size_t i = 0; i < decls.size(); i++) {
    Value d = decls[i];
    if (!is_pair(d) || !is_symbol(car(d))) fail("define-library", form, "bad library declaration", list({d}));
    std::string h = symbol_name(car(d));
    if (h == "export") {
      parse_exports(d, exports);
    } else if (h == "import") {
      import_declaration(vm, lib, d);
    } else if (h == "begin") {
      for (Value b = cdr(d); is_pair(b); b = cdr(b)) body.push_back(car(b));
    } else if (h == "include" || h == "include-ci") {
      for (Value x : included_forms(vm, d, h == "include-ci")) body.push_back(x);
    } else if (h == "include-library-declarations") {
      // The declarations take this one's place: a begin after it sees what they define.
      gc_vector<Value> in = included_forms(vm, d, false);
      decls.insert(decls.begin() + std::ptrdiff_t(i) + 1, in.begin(), in.end());
    } else if (h == "cond-expand") {
      for (Value c = cdr(d); is_pair(c); c = cdr(c)) {
        if (list_length(car(c)) < 1) fail("cond-expand", d, "bad clause", list({car(c)}));
        Value req = car(car(c));
        if (req == intern("else") || feature_requirement_holds(req, d, &host)) {
          gc_vector<Value> in;  // in this one's place, as above
          for (Value x = cdr(car(c)); is_pair(x); x = cdr(x)) in.push_back(car(x));
          decls.insert(decls.begin() + std::ptrdiff_t(i) + 1, in.begin(), in.end());
          break;
        }
      }
    } else {
      fail("define-library", d, "unknown library declaration", list({car(d)}));
    }
  }

  predeclare_definitions(lib, body);
  for (Value x : body) vm.apply(compile_form(vm, x, lib), 0, nullptr);

  Environment* exported = make_environment(name);
  for (const Export& e : exports) {
    Value b = lib->lookup(e.internal);
    autoload_binding(vm, b);
    bool undefined = b == kUnbound || (has_type(b, Type::GlobalCell) && b.as<GlobalCell>()->value == kUnbound);
    if (undefined)
      fail("export", e.spec,
           write_to_string(e.internal) + " is exported by " + write_to_string(name) + " but not defined or imported there");
    Value old = exported->lookup(e.external);
    if (old != kUnbound && old != b) fail("export", e.spec, "two exports named " + write_to_string(e.external));
    exported->bind(e.external, b);
  }
  exported->mutable_ = false;
  add_library(vm, name, exported);
}

bool library_exists(Vm& vm, Value name) {
  name = syntax_to_datum(name);
  if (!valid_name(name)) return false;
  if (!import_allowed(vm, name)) return false;
  return equal(name, core_library_name()) || equal(name, quasi_library_name()) ||
         find_library(vm, name) != kFalse || locate(vm, name).has_value();
}

void register_library(Vm& vm, Value name, Environment* env, Value exports) {
  if (!valid_name(name)) throw_condition("error", "register-library", "bad library name " + write_to_string(name));
  Environment* exported = make_environment(name);
  for (Value l = exports; is_pair(l); l = cdr(l)) {
    Value sym = car(l);
    Value b = is_symbol(sym) ? env->lookup(sym) : kUnbound;
    autoload_binding(vm, b);
    if (b == kUnbound || (has_type(b, Type::GlobalCell) && b.as<GlobalCell>()->value == kUnbound))
      throw_condition("error", "register-library",
                      write_to_string(sym) + " is exported by " + write_to_string(name) + " but not defined");
    exported->bind(sym, b);
  }
  exported->mutable_ = false;
  add_library(vm, name, exported);
  if (!member_equal(name, vm.host_libraries.get())) vm.host_libraries.set(cons(name, vm.host_libraries.get()));
}

Environment* environment_from_imports(Vm& vm, Value import_sets_list, Value form) {
  Environment* env = make_environment(kFalse);
  import_sets(vm, env, import_sets_list, form);
  return env;
}

namespace {

QUASI_PRIM(p_environment) {
  Value sets = kNil;
  for (int i = argc - 1; i >= 0; i--) sets = cons(argv[i], sets);
  return make_ptr(environment_from_imports(vm, sets, kFalse));
}

Environment* r5rs_environment(Vm& vm, const char* who, Value version) {
  if (!(version.is_fixnum() && version.fixnum() == 5))
    throw_condition("error", who, "only version 5 is supported, got " + write_to_string(version));
  return environment_from_imports(vm, list({list({intern("scheme"), intern("r5rs")})}), kFalse);
}

// (scheme-report-environment 5): what (scheme r5rs) exports.
QUASI_PRIM(p_scheme_report_environment) {
  return make_ptr(r5rs_environment(vm, "scheme-report-environment", argv[0]));
}

// (null-environment 5): only the syntactic keywords of (scheme r5rs).
QUASI_PRIM(p_null_environment) {
  Environment* all = r5rs_environment(vm, "null-environment", argv[0]);
  Environment* env = make_environment(kFalse);
  for (auto& [sym, b] : *all->table)
    if (is_macro(b)) env->bind(sym, b);
  return make_ptr(env);
}

const PrimDef kLibraryPrims[] = {
    {"environment", p_environment, 0, -1, kEffect},
    {"scheme-report-environment", p_scheme_report_environment, 1, 1, kEffect},
    {"null-environment", p_null_environment, 1, 1, kEffect},
};

}  // namespace

void register_library_primitives(Environment* core) { install_primitives(core, kLibraryPrims); }

}  // namespace quasi
