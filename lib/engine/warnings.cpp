#include "engine/warnings.hpp"

#include <string>
#include <utility>

#include "core/cstack.hpp"
#include "core/prim.hpp"
#include "core/procedure.hpp"
#include "core/srcloc.hpp"
#include "engine/library.hpp"
#include "eval/environment.hpp"
#include "eval/expander.hpp"
#include "ir/functor.hpp"
#include "read/reader.hpp"
#include "vm/vm.hpp"

namespace quasi {

namespace {

inline Value cadr(Value x) { return car(cdr(x)); }
inline Value cddr(Value x) { return cdr(cdr(x)); }

constexpr int kMaxDatumVisits = 1000000;  // the set! scan gives up after this many pairs

// The arity a parameter list shows: (a b), (a . r), r.
WarningScope::Arity arity_of_params(Value params) {
  WarningScope::Arity a;
  for (int guard = 0; is_pair(params) && guard < 100000; params = cdr(params), guard++) a.required++;
  a.rest = params != kNil;
  return a;
}

bool names_keyword(Environment* env, Value head, SpecialForm form) {
  if (!is_symbol(head)) return false;
  Value b = env->lookup(head);
  return is_macro(b) && b.as<Macro>()->form == form;
}

// Every (set! name ...) in the list `datum` and below (quoted data included: a false "assigned"
// only drops an arity check). `budget` bounds the walk: source read with datum labels can be
// cyclic.
void collect_assignments(Environment* env, Value datum, int& budget, std::unordered_set<uint64_t>& out) {
  for (; is_pair(datum) && budget > 0; datum = cdr(datum), budget--) {
    Value x = car(datum);
    if (names_keyword(env, x, SpecialForm::Set) && is_pair(cdr(datum)) && is_symbol(car(cdr(datum))))
      out.insert(car(cdr(datum)).bits);
    if (is_pair(x) && !stack_exhausted()) collect_assignments(env, x, budget, out);
  }
}

std::string arity_text(int required, bool rest) {
  std::string s = rest ? "at least " : "";
  s += std::to_string(required);
  s += required == 1 ? " argument" : " arguments";  // "1 argument", "at least 1 argument"
  return s;
}

// Whether a procedure value accepts argc arguments; `expected` says what it takes. False when
// its arity is not known (continuations, parameters, anything else).
bool known_arity(Value proc, size_t argc, bool* accepts, std::string* expected) {
  if (is_primitive(proc)) {
    const Primitive* p = proc.as<Primitive>();
    *accepts = arity_ok(p, argc);
    if (p->max_args < 0) *expected = arity_text(p->min_args, true);
    else if (p->max_args == p->min_args) *expected = arity_text(p->min_args, false);
    else *expected = "between " + std::to_string(p->min_args) + " and " + std::to_string(p->max_args) + " arguments";
    return true;
  }
  if (!is_closure(proc)) return false;
  const Proto* proto = proc.as<Closure>()->proto;
  if (proto->next_clause) {  // case-lambda: one of the clauses must fit
    *accepts = false;
    for (const Proto* c = proto; c; c = c->next_clause)
      if (size_t(c->nparams) == argc || (c->has_rest && argc >= size_t(c->nparams))) *accepts = true;
    *expected = "a number of arguments one of its clauses takes";
    return true;
  }
  *accepts = size_t(proto->nparams) == argc || (proto->has_rest && argc >= size_t(proto->nparams));
  *expected = arity_text(proto->nparams, proto->has_rest);
  return true;
}

std::string name_of(Value cell) { return std::string(symbol_name(cell.as<GlobalCell>()->name)); }

void emit(Vm& vm, SrcLoc at, const std::string& message) {
  std::string where = at.to_string();
  vm.on_warning((where.empty() ? "" : where + ": ") + "warning: " + message);
}

}  // namespace

WarningScope::WarningScope(Vm& v, Environment* env, const gc_vector<Value>& fs)
    : vm(v), outer(v.warning_scope), forms(fs) {
  vm.warning_scope = this;
  for (Value form : forms) {
    for_each_definition(env, form, [&](Value id, Value def) {
      if (!is_identifier(id)) return;
      Value sym = identifier_symbol(id);
      bool again = !defined.insert(sym.bits).second;
      // A name defined twice has no one arity; only a (define (f ...)) or (define f (lambda ...))
      // shows one.
      if (again || !names_keyword(env, car(def), SpecialForm::Define)) {
        arity.erase(sym.bits);
        if (again) assigned.insert(sym.bits);
        return;
      }
      Value target = cadr(def);
      if (is_pair(target) && car(target) == id) {
        arity[sym.bits] = arity_of_params(cdr(target));
      } else if (target == id && is_pair(cddr(def))) {
        Value init = car(cddr(def));
        if (is_pair(init) && names_keyword(env, car(init), SpecialForm::Lambda) && is_pair(cdr(init)))
          arity[sym.bits] = arity_of_params(car(cdr(init)));
      }
    });
    int budget = kMaxDatumVisits;
    collect_assignments(env, list({form}), budget, assigned);
  }
}

WarningScope::~WarningScope() { vm.warning_scope = outer; }

WarningsSuspended::WarningsSuspended(Vm& v) : vm(v), saved(v.warning_scope) { vm.warning_scope = nullptr; }
WarningsSuspended::~WarningsSuspended() { vm.warning_scope = saved; }

namespace {

// The names a form defines (a define-record-type's, or a macro expansion's, included).
class DefinitionsOf : public ExprVisitor {
 public:
  std::unordered_set<uint64_t> names;
  void visit_global_set(GlobalSetNode* n) override {
    if (n->is_define) names.insert(n->cell.as<GlobalCell>()->name.bits);
    ExprVisitor::visit_global_set(n);
  }
};

// Reports a form's references to unknown globals and its calls of the wrong arity.
class FormChecker : public ExprVisitor {
 public:
  FormChecker(Vm& vm, WarningScope& scope, std::unordered_set<uint64_t> defined_here)
      : vm_(vm), scope_(scope), defined_here_(std::move(defined_here)) {}

  void visit_global_ref(GlobalRefNode* n) override {
    if (!(vm_.warning_kinds & kWarnUnboundVariable)) return;
    const GlobalCell* cell = n->cell.as<GlobalCell>();
    if (cell->value != kUnbound || known_name(cell->name.bits)) return;
    if (!scope_.reported.insert(cell->name.bits).second) return;
    emit(vm_, n->loc, std::string("possibly unbound variable ") + symbol_name(cell->name));
  }

  void visit_call(CallNode* n) override {
    if ((vm_.warning_kinds & kWarnArityMismatch) && n->fn->kind == NodeKind::GlobalRef)
      check_arity(static_cast<GlobalRefNode*>(n->fn)->cell, n->args.size(), n->loc);
    ExprVisitor::visit_call(n);
  }

 private:
  bool known_name(uint64_t sym) const { return scope_.defined.count(sym) || defined_here_.count(sym); }

  void check_arity(Value cell, size_t argc, SrcLoc at) {
    uint64_t sym = cell.as<GlobalCell>()->name.bits;
    if (scope_.assigned.count(sym)) return;
    bool accepts = true;
    std::string expected;
    if (auto it = scope_.arity.find(sym); it != scope_.arity.end()) {
      const WarningScope::Arity& a = it->second;
      accepts = size_t(a.required) == argc || (a.rest && argc >= size_t(a.required));
      expected = arity_text(a.required, a.rest);
    } else if (known_name(sym) || !known_arity(cell.as<GlobalCell>()->value, argc, &accepts, &expected)) {
      return;  // defined by this text without a visible lambda, or of unknown arity
    }
    if (!accepts)
      emit(vm_, at, "wrong number of arguments to " + name_of(cell) + ": it takes " + expected + ", given " +
                        std::to_string(argc));
  }

  Vm& vm_;
  WarningScope& scope_;
  std::unordered_set<uint64_t> defined_here_;
};

}  // namespace

void warn_about_form(Vm& vm, Node* ir) {
  WarningScope* scope = vm.warning_scope;
  if (!scope || !vm.on_warning || !vm.warning_kinds || !ir) return;
  DefinitionsOf definitions;
  definitions.visit(ir);
  FormChecker(vm, *scope, std::move(definitions.names)).visit(ir);
}

gc_vector<Value> read_forms_for_warnings(std::string_view text, const std::string& source_name) {
  gc_vector<Value> forms;
  StringSource src(text, intern_source_file(source_name));
  Reader reader(src);
  try {
    for (Value form = reader.read(); form != kEof; form = reader.read()) forms.push_back(form);
  } catch (...) {
    // The run reports the reader error where it happens; the forms before it still count.
  }
  return forms;
}

}  // namespace quasi
