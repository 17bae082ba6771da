// egraph.cpp — `(quasi egraph)`: the e-graph engine of lib/egraph for Scheme programs.
//
// Terms are S-expressions: a list (op arg ...) with a symbol op is an application, a symbol,
// number, boolean, character or string is a leaf; in a pattern a symbol starting with `?` is a
// variable. Each e-graph interns the datums it meets (by their written form, so 1 and 1.0 and
// "a" and a are different leaves) into the engine's Op numbers.
//
// The analysis is constant folding with egg's pruning: a number leaf is its own constant; an
// application of a folded operator (the Scheme procedure of that name in the core environment,
// chosen at make-egraph; it must be a primitive) to constant classes is called when the node is
// made or its children's constants change — a call that raises is simply not folded, and a
// result that is not a number is ignored — and a class with a constant
// gets the constant's leaf and is pruned to its leaves.
//
// Lifetimes: an e-graph and a rule are C++ objects owned by a Foreign object whose GC finalizer
// deletes them. The Scheme values they hold (interned datums, constants, rule patterns and
// conditions) sit in root_vectors, which the collector scans.
//
// Rules are checked when made (rewrite, birewrite) and compiled against an e-graph's interner
// each time egraph-run! runs them. Conditions and cost functions are Scheme procedures called
// from inside the engine; a run cannot start from inside one of them (error).
#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>

#include "builtins/port.hpp"
#include "builtins/registry.hpp"
#include "core/foreign.hpp"
#include "core/gc.hpp"
#include "core/procedure.hpp"
#include "core/numbers.hpp"
#include "egraph/dot.hpp"
#include "egraph/extract.hpp"
#include "egraph/runner.hpp"
#include "eval/environment.hpp"
#include "read/printer.hpp"
#include "vm/vm.hpp"

namespace quasi {
namespace {

namespace eg = quasi::egraph;

struct SchemeEGraph;

// Data: index into SchemeEGraph::values of the class's constant, or kNoConst.
constexpr uint32_t kNoConst = UINT32_MAX;

struct FoldAnalysis {
  SchemeEGraph* owner = nullptr;
  using Data = uint32_t;
  Data make(eg::EGraph<FoldAnalysis>& g, const eg::ENode& n);
  eg::DidMerge merge(Data& into, Data from) {
    if (into == kNoConst && from != kNoConst) { into = from; return {true, false}; }
    if (into != kNoConst && from == kNoConst) return {false, true};
    return {false, false};  // both known (equal by soundness, or the user's union: keep into)
  }
  void modify(eg::EGraph<FoldAnalysis>& g, eg::Id id);
};

using Graph = eg::EGraph<FoldAnalysis>;
using Rule = eg::Rewrite<FoldAnalysis>;

struct SchemeEGraph {
  Vm* vm;
  root_vector<Value> atoms;   // Op -> the datum (leaf or operator symbol)
  std::unordered_map<std::string, eg::Op> ids;
  root_vector<Value> values;  // constants named by analysis data
  std::unordered_map<eg::Op, Value> folders_by_op;  // values also kept in `roots`
  root_vector<Value> roots;   // keeps folders alive
  std::vector<uint32_t> leaf_const;  // Op -> index in values if the atom is a number
  Graph g;
  bool running = false;

  explicit SchemeEGraph(Vm* v) : vm(v), g(FoldAnalysis{}) { g.analysis.owner = this; }

  eg::Op intern(Value datum) {
    std::string key = write_to_string(datum);
    if (is_string(datum)) key = "s" + key;  // never equal to a symbol's written form anyway
    auto it = ids.find(key);
    if (it != ids.end()) return it->second;
    eg::Op op = eg::Op(atoms.size());
    atoms.push_back(datum);
    ids.emplace(std::move(key), op);
    if (is_number(datum)) {
      values.push_back(datum);
      leaf_const.push_back(uint32_t(values.size() - 1));
    } else {
      leaf_const.push_back(kNoConst);
    }
    return op;
  }
  uint32_t add_value(Value v) {
    values.push_back(v);
    return uint32_t(values.size() - 1);
  }
};

FoldAnalysis::Data FoldAnalysis::make(Graph& g, const eg::ENode& n) {
  if (n.is_leaf()) return owner->leaf_const[n.op];
  auto f = owner->folders_by_op.find(n.op);
  if (f == owner->folders_by_op.end()) return kNoConst;
  Value args[8];
  if (n.arity() > 8) return kNoConst;
  for (uint32_t i = 0; i < n.arity(); i++) {
    uint32_t c = g[n[i]].data;
    if (c == kNoConst) return kNoConst;
    args[i] = owner->values[c];
  }
  Primitive* prim = f->second.as<Primitive>();
  if (!arity_ok(prim, n.arity())) return kNoConst;
  // The primitive itself, not vm->apply: an error must come back here as a C++ exception, not
  // be raised to the program's handlers.
  try {
    Value r = prim->fn(*owner->vm, prim, int(n.arity()), args);
    if (!is_number(r)) return kNoConst;
    return owner->add_value(r);
  } catch (const SchemeError&) {
    return kNoConst;  // (/ 1 0) and friends: not folded
  } catch (const std::bad_alloc&) {
    return kNoConst;
  }
}

void FoldAnalysis::modify(Graph& g, eg::Id id) {
  uint32_t c = g[id].data;
  if (c == kNoConst) return;
  eg::Id leaf = g.add(eg::ENode(owner->intern(owner->values[c])));
  g.merge(id, leaf);
  g.prune_to_leaves(id);
}

// ---- Foreign wrappers -------------------------------------------------------------------------

const char kEGraphKey = 0;
const char kRuleKey = 0;

template <class T>
void release_object(void* p) { delete static_cast<T*>(p); }

void finalize_foreign(void* obj, void*) {
  Foreign* f = static_cast<Foreign*>(obj);
  if (f->release && f->holder) f->release(f->holder);
  f->holder = nullptr;
}

template <class T>
Value wrap(const void* key, const char* name, T* object) {
  Foreign* f = gc_alloc_object<Foreign>(Type::Foreign, sizeof(Foreign));
  f->type_key = key;
  f->name = intern(name);
  f->object = object;
  f->holder = object;
  f->release = release_object<T>;
  GC_REGISTER_FINALIZER_NO_ORDER(f, finalize_foreign, nullptr, nullptr, nullptr);
  return make_ptr(f);
}

SchemeEGraph* as_egraph(const char* who, Value v) {
  if (!is_foreign(v) || v.as<Foreign>()->type_key != &kEGraphKey) type_error(who, "an e-graph", v);
  return static_cast<SchemeEGraph*>(v.as<Foreign>()->object);
}

// A rule as made by rewrite: checked datums, compiled per e-graph when run.
struct RuleSpec {
  root_vector<Value> v;  // name, lhs, rhs, condition (#f: none)
  Value name() const { return v[0]; }
  Value lhs() const { return v[1]; }
  Value rhs() const { return v[2]; }
  Value cond() const { return v[3]; }
};

bool is_rule(Value v) { return is_foreign(v) && v.as<Foreign>()->type_key == &kRuleKey; }
RuleSpec* as_rule(Value v) { return static_cast<RuleSpec*>(v.as<Foreign>()->object); }

// ---- terms and patterns -----------------------------------------------------------------------

bool is_leaf_datum(Value v) {
  return is_symbol(v) || is_number(v) || v == kTrue || v == kFalse || is_string(v) || v.is_char();
}
bool is_pattern_var(Value v) { return is_symbol(v) && symbol_name(v)[0] == '?' && symbol_name(v)[1] != '\0'; }

// Checks that `t` is a term (pattern: variables allowed); raises naming `who` otherwise.
void check_term(const char* who, Value t, int depth = 0) {
  if (depth > 10000) throw_error(who, "term nested too deeply", list({t}));
  if (is_leaf_datum(t)) return;
  if (!is_pair(t) || !is_symbol(car(t)))
    throw_error(who, "not a term: expected a leaf (symbol, number, boolean, character, string) or (op arg ...) with a symbol op",
                list({t}));
  Value p = cdr(t);
  for (; is_pair(p); p = cdr(p)) check_term(who, car(p), depth + 1);
  if (p != kNil) throw_error(who, "not a term: an improper list", list({t}));
}

eg::Id add_term(SchemeEGraph& s, Value t) {
  if (!is_pair(t)) return s.g.add(eg::ENode(s.intern(t)));
  eg::ENode n(s.intern(car(t)));
  for (Value p = cdr(t); is_pair(p); p = cdr(p)) n.push(add_term(s, car(p)));
  return s.g.add(std::move(n));
}

uint32_t compile_pattern(SchemeEGraph& s, Value t, eg::Pattern& p) {
  if (is_pattern_var(t)) return p.add_var(symbol_name(t));
  if (!is_pair(t)) return p.add_op(s.intern(t), {});
  std::vector<uint32_t> kids;
  for (Value q = cdr(t); is_pair(q); q = cdr(q)) kids.push_back(compile_pattern(s, car(q), p));
  return p.add_op(s.intern(car(t)), std::move(kids));
}

void collect_vars(Value t, std::vector<Value>& out) {
  if (is_pattern_var(t)) {
    for (Value v : out) if (v == t) return;
    out.push_back(t);
    return;
  }
  if (!is_pair(t)) return;
  for (Value q = cdr(t); is_pair(q); q = cdr(q)) collect_vars(car(q), out);
}

Value make_id(eg::Id id) { return make_fixnum(int64_t(id)); }
eg::Id check_id(const char* who, SchemeEGraph& s, Value v) {
  if (!v.is_fixnum() || v.fixnum() < 0 || size_t(v.fixnum()) >= s.g.id_count())
    type_error(who, "an e-class id of this e-graph", v);
  return eg::Id(v.fixnum());
}

// The datum an extracted RecExpr node stands for.
Value term_of(SchemeEGraph& s, const eg::RecExpr& e, eg::Id i) {
  const eg::ENode& n = e.nodes[i];
  if (n.is_leaf()) return s.atoms[n.op];
  gc_vector<Value> kids;
  for (eg::Id k : n.children()) kids.push_back(term_of(s, e, k));
  Value r = kNil;
  for (size_t k = kids.size(); k-- > 0;) r = cons(kids[k], r);
  return cons(s.atoms[n.op], r);
}

// A rule's condition or a cost function may query the e-graph but not change it: the runner and
// the extractor are iterating over its classes.
void check_not_running(const char* who, SchemeEGraph& s) {
  if (s.running) throw_error(who, "the e-graph is being run (called from a rule's condition or a cost function)");
}

struct RunningGuard {
  SchemeEGraph& s;
  RunningGuard(const char* who, SchemeEGraph& x) : s(x) {
    if (s.running) throw_error(who, "the e-graph is being run (called from a rule's condition or a cost function)");
    s.running = true;
  }
  ~RunningGuard() { s.running = false; }
};

// Queries that list nodes want a rebuilt graph; inside a run (a rule's condition) the graph is
// read as it is: rebuilding in the middle of the apply phase would be correct but slow.
void ensure_clean(SchemeEGraph& s) {
  if (!s.running && !s.g.clean()) s.g.rebuild();
}

Value extract(const char* who, SchemeEGraph& s, eg::Id id, Value cost) {
  ensure_clean(s);
  eg::CostFn fn = eg::ast_size;
  if (cost != kFalse) {
    fn = [&s, cost, who](const eg::ENode& n, const std::vector<double>& kids) {
      Value l = kNil;
      for (size_t k = kids.size(); k-- > 0;) l = cons(make_flonum(kids[k]), l);
      Value args[2] = {s.atoms[n.op], l};
      Value r = s.vm->apply(cost, 2, args);
      if (!is_number(r)) type_error(who, "a cost function returning a real number", r);
      return number_to_double(r);
    };
  }
  RunningGuard guard(who, s);
  eg::Extractor<FoldAnalysis> ex(s.g, fn);
  try {
    eg::RecExpr e = ex.extract(id);
    return term_of(s, e, e.root());
  } catch (const std::runtime_error& e) {
    throw_error(who, e.what());
  }
}

// ---- primitives -----------------------------------------------------------------------------

Value lookup_core(Vm& vm, Value sym) {
  if (!vm.core_env) return kFalse;
  Value b = vm.core_env->lookup(sym);
  if (!has_type(b, Type::GlobalCell)) return kFalse;
  return b.as<GlobalCell>()->value;
}

Value new_egraph(Vm& vm, const char* who, Value ops) {
  auto* s = new SchemeEGraph(&vm);
  Value obj = wrap(&kEGraphKey, "egraph", s);
  for (Value p = ops; p != kNil; p = cdr(p)) {
    if (!is_pair(p)) type_error(who, "a list of operator symbols", ops);
    Value op = car(p);
    if (!is_symbol(op)) type_error(who, "an operator symbol", op);
    Value proc = lookup_core(vm, op);
    if (!is_primitive(proc)) throw_error(who, "no primitive procedure of that name to fold with", list({op}));
    s->roots.push_back(proc);
    s->folders_by_op[s->intern(op)] = proc;
  }
  return obj;
}

QUASI_PRIM(p_make_egraph) {
  Value ops = argc > 0 ? argv[0] : list({intern("+"), intern("-"), intern("*"), intern("/")});
  return new_egraph(vm, "make-egraph", ops);
}

QUASI_PRIM(p_egraph_add) {
  SchemeEGraph* s = as_egraph("egraph-add!", argv[0]);
  check_not_running("egraph-add!", *s);
  check_term("egraph-add!", argv[1]);
  return make_id(add_term(*s, argv[1]));
}

QUASI_PRIM(p_egraph_union) {
  SchemeEGraph* s = as_egraph("egraph-union!", argv[0]);
  check_not_running("egraph-union!", *s);
  eg::Id a = check_id("egraph-union!", *s, argv[1]), b = check_id("egraph-union!", *s, argv[2]);
  return make_bool(s->g.merge(a, b));
}

QUASI_PRIM(p_egraph_rebuild) {
  SchemeEGraph* s = as_egraph("egraph-rebuild!", argv[0]);
  RunningGuard guard("egraph-rebuild!", *s);
  return make_fixnum(int64_t(s->g.rebuild()));
}

QUASI_PRIM(p_egraph_find) {
  SchemeEGraph* s = as_egraph("egraph-find", argv[0]);
  return make_id(s->g.find(check_id("egraph-find", *s, argv[1])));
}

QUASI_PRIM(p_egraph_equal) {
  SchemeEGraph* s = as_egraph("egraph-equal?", argv[0]);
  eg::Id a = check_id("egraph-equal?", *s, argv[1]), b = check_id("egraph-equal?", *s, argv[2]);
  return make_bool(s->g.find(a) == s->g.find(b));
}

QUASI_PRIM(p_egraph_constant) {
  SchemeEGraph* s = as_egraph("egraph-constant", argv[0]);
  eg::Id a = check_id("egraph-constant", *s, argv[1]);
  uint32_t c = s->g[a].data;
  return c == kNoConst ? (argc > 2 ? argv[2] : kFalse) : s->values[c];
}

QUASI_PRIM(p_egraph_nodes) {
  SchemeEGraph* s = as_egraph("egraph-nodes", argv[0]);
  eg::Id a = check_id("egraph-nodes", *s, argv[1]);
  ensure_clean(*s);
  Value out = kNil;
  const auto& nodes = s->g[a].nodes;
  for (size_t i = nodes.size(); i-- > 0;) {
    const eg::ENode& n = nodes[i];
    Value item = s->atoms[n.op];
    if (!n.is_leaf()) {
      Value kids = kNil;
      for (size_t k = n.arity(); k-- > 0;) kids = cons(make_id(s->g.find(n[k])), kids);
      item = cons(item, kids);
    }
    out = cons(item, out);
  }
  return out;
}

QUASI_PRIM(p_egraph_node_count) {
  SchemeEGraph* s = as_egraph("egraph-node-count", argv[0]);
  ensure_clean(*s);
  return make_fixnum(int64_t(s->g.total_number_of_nodes()));
}

QUASI_PRIM(p_egraph_class_count) {
  return make_fixnum(int64_t(as_egraph("egraph-class-count", argv[0])->g.number_of_classes()));
}

QUASI_PRIM(p_egraph_extract) {
  SchemeEGraph* s = as_egraph("egraph-extract", argv[0]);
  eg::Id a = check_id("egraph-extract", *s, argv[1]);
  Value cost = argc > 2 ? argv[2] : kFalse;
  if (cost != kFalse && !is_procedure(cost)) type_error("egraph-extract", "a cost procedure", cost);
  return extract("egraph-extract", *s, a, cost);
}

QUASI_PRIM(p_egraph_dot) {
  SchemeEGraph* s = as_egraph("egraph->dot", argv[0]);
  Value port = argc > 1 ? argv[1] : current_output_port(vm);
  if (!is_output_port(port) || !(as_port(port)->flags & kPortTextual))
    type_error("egraph->dot", "a textual output port", port);
  ensure_clean(*s);
  std::string text = eg::to_dot(s->g, [s](eg::Op op) {
    Value d = s->atoms[op];
    return is_string(d) ? string_to_utf8(d) : write_to_string(d);
  });
  port_write_utf8(port, text);
  return kUnspecified;
}

// (rewrite name lhs rhs [condition])
Value make_rule(const char* who, Value name, Value lhs, Value rhs, Value cond) {
  if (!is_symbol(name)) type_error(who, "a symbol naming the rule", name);
  check_term(who, lhs);
  check_term(who, rhs);
  if (cond != kFalse && !is_procedure(cond)) type_error(who, "a condition procedure (lambda (eg subst) ...)", cond);
  std::vector<Value> lv, rv;
  collect_vars(lhs, lv);
  collect_vars(rhs, rv);
  for (Value v : rv) {
    bool bound = false;
    for (Value w : lv) bound |= v == w;
    if (!bound)
      throw_error(who, std::string("rule ") + symbol_name(name) + ": the right-hand side uses " +
                           symbol_name(v) + ", which the left-hand side does not bind",
                  list({name, v}));
  }
  auto* r = new RuleSpec();
  r->v = {name, lhs, rhs, cond};
  return wrap(&kRuleKey, "rewrite", r);
}

QUASI_PRIM(p_rewrite) {
  return make_rule("rewrite", argv[0], argv[1], argv[2], argc > 3 ? argv[3] : kFalse);
}

QUASI_PRIM(p_birewrite) {
  Value a = make_rule("birewrite", argv[0], argv[1], argv[2], kFalse);
  Value b = make_rule("birewrite", argv[0], argv[2], argv[1], kFalse);
  return list({a, b});
}

QUASI_PRIM(p_rule_name) {
  if (!is_rule(argv[0])) type_error("rewrite-name", "a rule", argv[0]);
  return as_rule(argv[0])->name();
}

QUASI_PRIM(p_subst_ref) {
  for (Value p = argv[0]; is_pair(p); p = cdr(p))
    if (is_pair(car(p)) && car(car(p)) == argv[1]) return cdr(car(p));
  throw_error("subst-ref", "the substitution does not bind this variable", list({argv[1]}));
}

// Rules: a list of rules, nested lists flattened.
void flatten_rules(const char* who, Value rules, std::vector<RuleSpec*>& out, int depth = 0) {
  if (depth > 1000) throw_error(who, "rule lists nested too deeply");
  if (is_rule(rules)) { out.push_back(as_rule(rules)); return; }
  if (rules != kNil && !is_pair(rules)) type_error(who, "a list of rules", rules);
  for (Value p = rules; p != kNil; p = cdr(p)) {
    if (!is_pair(p)) type_error(who, "a list of rules", rules);
    Value x = car(p);
    if (is_rule(x)) out.push_back(as_rule(x));
    else if (is_pair(x) || x == kNil) flatten_rules(who, x, out, depth + 1);
    else type_error(who, "a rule", x);
  }
}

eg::RunnerLimits parse_options(const char* who, Value opts) {
  eg::RunnerLimits lim;
  auto count = [who](Value v) -> size_t {
    if (!v.is_fixnum() || v.fixnum() < 0) type_error(who, "a non-negative exact integer", v);
    return size_t(v.fixnum());
  };
  for (Value p = opts; p != kNil; p = cdr(p)) {
    if (!is_pair(p) || !is_pair(car(p)) || !is_symbol(car(car(p))))
      type_error(who, "an options alist ((name . value) ...)", opts);
    std::string key = symbol_name(car(car(p)));
    Value v = cdr(car(p));
    if (key == "iter-limit") lim.iter_limit = count(v);
    else if (key == "node-limit") lim.node_limit = count(v);
    else if (key == "match-limit") lim.match_limit = count(v);
    else if (key == "ban-length") lim.ban_length = count(v);
    else if (key == "time-limit") {
      if (!is_number(v) || number_to_double(v) < 0) type_error(who, "a non-negative number of seconds", v);
      lim.time_limit = number_to_double(v);
    } else if (key == "scheduler") {
      if (v == intern("backoff")) lim.backoff = true;
      else if (v == intern("simple")) lim.backoff = false;
      else throw_error(who, "unknown scheduler (backoff or simple)", list({v}));
    } else {
      throw_error(who, "unknown option", list({car(car(p))}));
    }
  }
  return lim;
}

Value pair(const char* k, Value v) { return cons(intern(k), v); }

// Runs `rules` on s; `stop` (may be empty) ends the run early with stop reason `other`.
Value run(const char* who, SchemeEGraph& s, Value egraph_obj, Value rules_v, Value opts,
          std::function<bool(Graph&)> stop = {}) {
  std::vector<RuleSpec*> specs;
  flatten_rules(who, rules_v, specs);
  eg::RunnerLimits lim = parse_options(who, opts);
  RunningGuard guard(who, s);
  std::vector<Rule> rules;
  rules.reserve(specs.size());
  for (RuleSpec* r : specs) {
    eg::Pattern l, rhs;
    compile_pattern(s, r->lhs(), l);
    compile_pattern(s, r->rhs(), rhs);
    Rule rule = Rule::make(symbol_name(r->name()), std::move(l), rhs);
    if (r->cond() != kFalse) {
      Value cond = r->cond();
      // Variable symbols in lhs numbering order, for the subst alist.
      std::vector<Value> vars;
      collect_vars(r->lhs(), vars);
      rule.condition = [&s, cond, vars, egraph_obj](Graph&, eg::Id, const eg::Subst& sub) {
        Value alist = kNil;
        for (size_t i = vars.size(); i-- > 0;) alist = cons(cons(vars[i], make_id(sub[i])), alist);
        Value args[2] = {egraph_obj, alist};
        return s.vm->apply(cond, 2, args) != kFalse;
      };
    }
    rules.push_back(std::move(rule));
  }
  std::vector<const Rule*> ptrs;
  for (auto& r : rules) ptrs.push_back(&r);
  eg::Runner<FoldAnalysis> runner(s.g, lim);
  if (stop) runner.stop_hook = stop;
  runner.run(ptrs);
  Value stats = kNil;
  for (size_t i = runner.iterations.size(); i-- > 0;) {
    const eg::IterationStats& it = runner.iterations[i];
    stats = cons(list({pair("nodes", make_fixnum(int64_t(it.egraph_nodes))),
                       pair("classes", make_fixnum(int64_t(it.egraph_classes))),
                       pair("matches", make_fixnum(int64_t(it.matches))),
                       pair("applied", make_fixnum(int64_t(it.applied))),
                       pair("rebuild-unions", make_fixnum(int64_t(it.rebuild_unions))),
                       pair("search-time", make_flonum(it.search_time)),
                       pair("apply-time", make_flonum(it.apply_time)),
                       pair("rebuild-time", make_flonum(it.rebuild_time))}),
                 stats);
  }
  return list({pair("stop-reason", intern(eg::stop_reason_name(runner.stop_reason))),
               pair("iterations", make_fixnum(int64_t(runner.iterations.size()))),
               pair("nodes", make_fixnum(int64_t(s.g.total_size()))),
               pair("classes", make_fixnum(int64_t(s.g.number_of_classes()))),
               pair("seconds", make_flonum(runner.seconds)), pair("iteration-stats", stats)});
}

QUASI_PRIM(p_egraph_run) {
  SchemeEGraph* s = as_egraph("egraph-run!", argv[0]);
  return run("egraph-run!", *s, argv[0], argv[1], argc > 2 ? argv[2] : kNil);
}

QUASI_PRIM(p_simplify) {
  check_term("simplify", argv[0]);
  Value obj = new_egraph(vm, "simplify", list({intern("+"), intern("-"), intern("*"), intern("/")}));
  SchemeEGraph* s = as_egraph("simplify", obj);
  eg::Id root = add_term(*s, argv[0]);
  run("simplify", *s, obj, argv[1], argc > 2 ? argv[2] : kNil);
  return extract("simplify", *s, root, kFalse);
}

QUASI_PRIM(p_prove_equal) {
  check_term("prove-equal?", argv[0]);
  check_term("prove-equal?", argv[1]);
  Value obj = new_egraph(vm, "prove-equal?", list({intern("+"), intern("-"), intern("*"), intern("/")}));
  SchemeEGraph* s = as_egraph("prove-equal?", obj);
  eg::Id a = add_term(*s, argv[0]);
  eg::Id b = add_term(*s, argv[1]);
  s->g.rebuild();
  if (s->g.find(a) == s->g.find(b)) return kTrue;
  run("prove-equal?", *s, obj, argv[2], argc > 3 ? argv[3] : kNil,
      [a, b](Graph& g) { return g.find(a) == g.find(b); });
  return make_bool(s->g.find(a) == s->g.find(b));
}

const PrimDef kEGraphPrims[] = {
    {"make-egraph", p_make_egraph, 0, 1, kEffect},
    {"egraph-add!", p_egraph_add, 2, 2, kEffect},
    {"egraph-union!", p_egraph_union, 3, 3, kEffect},
    {"egraph-rebuild!", p_egraph_rebuild, 1, 1, kEffect},
    {"egraph-find", p_egraph_find, 2, 2, kEffect},
    {"egraph-equal?", p_egraph_equal, 3, 3, kEffect},
    {"egraph-constant", p_egraph_constant, 2, 3, kEffect},
    {"egraph-nodes", p_egraph_nodes, 2, 2, kEffect},
    {"egraph-node-count", p_egraph_node_count, 1, 1, kEffect},
    {"egraph-class-count", p_egraph_class_count, 1, 1, kEffect},
    {"egraph-extract", p_egraph_extract, 2, 3, kEffect},
    {"egraph->dot", p_egraph_dot, 1, 2, kEffect},
    {"egraph-run!", p_egraph_run, 2, 3, kEffect},
    {"rewrite", p_rewrite, 3, 4, kEffect},
    {"birewrite", p_birewrite, 3, 3, kEffect},
    {"rewrite-name", p_rule_name, 1, 1, kMayRaise},
    {"subst-ref", p_subst_ref, 2, 2, kMayRaise},
    {"simplify", p_simplify, 2, 3, kEffect},
    {"prove-equal?", p_prove_equal, 3, 4, kEffect},
};

}  // namespace

void register_egraph_primitives(Environment* env) { install_primitives(env, kEGraphPrims); }

}  // namespace quasi
