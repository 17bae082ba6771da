// eqsat.cpp — the eqsat pass: equality saturation (lib/egraph) over maximal pure arithmetic
// regions of the core IR, with the rule set scheme/rules/eqsat-arith.scm.
//
// A region is a tree of calls of primitives that have a numeric fact (PrimFacts::num_result) and
// are pure (kPure, no kAllocates/kHasEffects/kVmSpecial), whose leaves are constants (numbers,
// booleans) and references to never-assigned local variables: no binder, no effect, nothing
// whose order matters. Each maximal region is added to a fresh e-graph, saturated under the
// pass's budgets, and replaced by the extracted term when that is strictly cheaper under the
// rule set's costs; otherwise the region stays as it was.
//
// Soundness. The analysis keeps, per e-class, the type lattice of lib/egraph/lattice.hpp (from
// the primitives' num_result facts, the constants, and what is known of the variables), whether
// computing the class can raise (`total`: exact_total primitives on total exact-integer
// operands), and its constant (folding calls the real primitive; a call that raises is not
// folded). Every rule must guard each of its variables with (exact ?x): the class is an exact
// integer whenever it returns. So a rule can only ever rewrite exact integer arithmetic, where
// reassociation, dropping an operand and changing an operation are all exact; no
// flonum and no value of unknown type is ever touched. Errors: a rule that drops a variable or
// moves it before another operand also requires (total ?x), so the same operand raises first
// with the same error; rules that keep their variables in order need only exactness. Every node
// of a class therefore returns the same value or raises the same error, so extraction may pick
// any of them.
//
// What is known of a variable: the kind of its let-init (a constant, a primitive with a
// num_result fact such as vector-length, an arithmetic expression over known variables), the
// kind every call passes to a loop parameter (a fixpoint, see infer_variable_kinds), and,
// inside the true branch of (if (exact-integer? x) ...), that x is an exact integer.
#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/error.hpp"
#include "core/numbers.hpp"
#include "egraph/extract.hpp"
#include "egraph/lattice.hpp"
#include "egraph/runner.hpp"
#include "eval/embedded.hpp"
#include "eval/environment.hpp"
#include "ir/functor.hpp"
#include "ir/util.hpp"
#include "passes/pass_manager.hpp"
#include "read/printer.hpp"
#include "read/reader.hpp"

namespace quasi {

namespace {

namespace eg = quasi::egraph;

// ---- budgets (per region; the pass runs on every residual procedure) ---------------------------
constexpr size_t kRegionMaxNodes = 200;       // larger regions are left alone (their subregions are not)
constexpr size_t kEqsatIterLimit = 12;
constexpr size_t kEqsatNodeLimit = 3000;
constexpr double kEqsatTimeLimit = 0.05;      // seconds
constexpr double kDefaultOpCost = 2;

// ---- the rule set, read once from the embedded scheme/rules/eqsat-arith.scm ----------------------
struct RuleSet {
  struct Rule {
    std::string name;
    Value lhs, rhs;
    std::vector<Value> exact_vars, total_vars, nonzero_vars;
  };
  root_vector<Value> keep;  // the datums above, kept alive
  std::vector<Rule> rules;
  std::unordered_map<std::string, double> costs;  // by primitive name
};

bool is_var_symbol(Value v) { return is_symbol(v) && symbol_name(v)[0] == '?' && symbol_name(v)[1]; }

void collect_vars(Value t, std::vector<Value>& out) {
  if (is_var_symbol(t)) {
    for (Value v : out) if (v == t) return;
    out.push_back(t);
  } else if (is_pair(t)) {
    for (Value q = cdr(t); is_pair(q); q = cdr(q)) collect_vars(car(q), out);
  }
}

[[noreturn]] void bad_rules(const std::string& why, Value form) {
  throw_condition("internal", "eqsat", "scheme/rules/eqsat-arith.scm: " + why + ": " + write_to_string(form, 200));
}

const RuleSet& rule_set() {
  static RuleSet* set = [] {
    auto* rs = new RuleSet();
    const char* text = nullptr;
    for (int i = 0; i < kRuleFileCount; i++)
      if (std::string_view(kRuleFiles[i].name) == "eqsat-arith.scm") text = kRuleFiles[i].text;
    if (!text) return rs;
    StringSource src(text, 0);
    Reader reader(src);
    for (Value form = reader.read(); form != kEof; form = reader.read()) {
      rs->keep.push_back(form);
      if (!is_pair(form) || !is_symbol(car(form))) bad_rules("not a (cost ...) or (rule ...) form", form);
      std::string head = symbol_name(car(form));
      gc_vector<Value> items;
      for (Value p = cdr(form); is_pair(p); p = cdr(p)) items.push_back(car(p));
      if (head == "cost") {
        if (items.size() != 2 || !is_symbol(items[0]) || !is_number(items[1])) bad_rules("expected (cost op n)", form);
        rs->costs[symbol_name(items[0])] = number_to_double(items[1]);
      } else if (head == "rule") {
        if (items.size() < 3 || !is_symbol(items[0])) bad_rules("expected (rule name lhs rhs condition ...)", form);
        RuleSet::Rule r{symbol_name(items[0]), items[1], items[2], {}, {}, {}};
        for (size_t i = 3; i < items.size(); i++) {
          Value c = items[i];
          if (!is_pair(c) || !is_symbol(car(c))) bad_rules("bad condition", c);
          std::string kind = symbol_name(car(c));
          for (Value p = cdr(c); is_pair(p); p = cdr(p)) {
            if (!is_var_symbol(car(p))) bad_rules("a condition names variables", c);
            if (kind == "exact") r.exact_vars.push_back(car(p));
            else if (kind == "total") r.total_vars.push_back(car(p));
            else if (kind == "nonzero") r.nonzero_vars.push_back(car(p));
            else bad_rules("unknown condition", c);
          }
        }
        // Every variable must be guarded by (exact ...) — or be a known non-zero constant.
        std::vector<Value> vars;
        collect_vars(r.lhs, vars);
        for (Value v : vars) {
          bool ok = false;
          for (Value w : r.exact_vars) ok |= v == w;
          for (Value w : r.nonzero_vars) ok |= v == w;
          if (!ok) bad_rules("rule " + r.name + " does not guard " + symbol_name(v) + " with (exact ...)", form);
        }
        std::vector<Value> rvars;
        collect_vars(r.rhs, rvars);
        for (Value v : rvars) {
          bool ok = false;
          for (Value w : vars) ok |= v == w;
          if (!ok) bad_rules("rule " + r.name + ": right-hand side variable not bound", form);
        }
        rs->rules.push_back(std::move(r));
      } else {
        bad_rules("unknown form", form);
      }
    }
    return rs;
  }();
  return *set;
}

// ---- the e-graph language of IR regions --------------------------------------------------------

struct ClassFacts {
  eg::NumKind kind = eg::NumKind::kUnknown;
  bool total = false;              // computing it cannot raise
  uint32_t konst = UINT32_MAX;     // index into Lang::consts
};

struct Lang;

struct IrAnalysis {
  Lang* lang = nullptr;
  using Data = ClassFacts;
  Data make(eg::EGraph<IrAnalysis>& g, const eg::ENode& n);
  eg::DidMerge merge(Data& into, Data from) {
    Data old = into;
    eg::refine(into.kind, from.kind);
    into.total = into.total || from.total;
    if (into.konst == UINT32_MAX) into.konst = from.konst;
    bool into_changed = into.kind != old.kind || into.total != old.total || into.konst != old.konst;
    bool from_changed = into.kind != from.kind || into.total != from.total || into.konst != from.konst;
    return {into_changed, from_changed};
  }
  void modify(eg::EGraph<IrAnalysis>& g, eg::Id id);
};

using Graph = eg::EGraph<IrAnalysis>;

struct Lang {
  PassContext* ctx;
  std::unordered_map<std::string, eg::Op> ids;
  root_vector<Value> consts;        // constant values (leaves and folds)
  std::vector<uint32_t> leaf_const; // Op -> index in consts, or UINT32_MAX
  std::vector<Primitive*> prims;    // Op -> primitive, or null
  root_vector<Value> prim_values;   // Op -> the Primitive value (kFalse for other ops)
  std::vector<Var*> vars;           // Op -> variable, or null
  const std::unordered_map<Var*, eg::NumKind>* var_kinds;

  eg::Op fresh(const std::string& key, bool* made) {
    auto it = ids.find(key);
    if (it != ids.end()) { *made = false; return it->second; }
    eg::Op op = eg::Op(prims.size());
    ids.emplace(key, op);
    leaf_const.push_back(UINT32_MAX);
    prims.push_back(nullptr);
    prim_values.push_back(kFalse);
    vars.push_back(nullptr);
    *made = true;
    return op;
  }
  eg::Op constant(Value v) {
    bool made;
    eg::Op op = fresh("c" + write_to_string(v), &made);
    if (made) {
      consts.push_back(v);
      leaf_const[op] = uint32_t(consts.size() - 1);
    }
    return op;
  }
  eg::Op variable(Var* v) {
    bool made;
    eg::Op op = fresh("v" + std::to_string(reinterpret_cast<uintptr_t>(v)), &made);
    vars[op] = v;
    return op;
  }
  eg::Op primitive(Value prim) {
    bool made;
    eg::Op op = fresh("p" + std::to_string(prim.bits), &made);
    prims[op] = prim.as<Primitive>();
    prim_values[op] = prim;
    return op;
  }
};

eg::NumKind kind_of_value(Value v) {
  if (is_exact_integer(v)) return eg::NumKind::kExact;
  if (is_flonum(v)) return eg::NumKind::kFlonum;
  if (is_number(v)) return eg::NumKind::kNumber;
  return eg::NumKind::kUnknown;
}

// The kind a call of p returns given its operands' kinds.
eg::NumKind result_kind(const Primitive* p, const std::vector<eg::NumKind>& kids) {
  switch (p->facts.num_result) {
    case NumResult::kExactInteger: return eg::NumKind::kExact;
    case NumResult::kContagion: {
      if (kids.empty()) return eg::NumKind::kUnknown;
      eg::NumKind k = kids[0];
      for (size_t i = 1; i < kids.size(); i++) k = eg::contagion(k, kids[i]);
      // One operand: abs, square, (- x): the operand's kind when it is a number.
      return k;
    }
    case NumResult::kNumber: {
      // A flonum operand makes a flonum; otherwise some number (an exact ratio, say).
      for (eg::NumKind k : kids) if (k == eg::NumKind::kFlonum) return eg::NumKind::kFlonum;
      return eg::NumKind::kNumber;
    }
    default: return eg::NumKind::kUnknown;
  }
}

bool foldable(const Primitive* p) {
  return (p->flags & kPure) && (p->flags & kFoldable) && !(p->flags & (kAllocates | kHasEffects | kVmSpecial));
}

ClassFacts IrAnalysis::make(Graph& g, const eg::ENode& n) {
  ClassFacts f;
  if (n.is_leaf()) {
    if (uint32_t c = lang->leaf_const[n.op]; c != UINT32_MAX) {
      f.kind = kind_of_value(lang->consts[c]);
      f.total = true;
      f.konst = c;
    } else if (Var* v = lang->vars[n.op]) {
      auto it = lang->var_kinds->find(v);
      f.kind = it == lang->var_kinds->end() ? eg::NumKind::kUnknown : it->second;
      f.total = true;  // referencing a bound, never-assigned local cannot raise
    }
    return f;
  }
  Primitive* p = lang->prims[n.op];
  if (!p || !arity_ok(p, n.arity())) return f;
  std::vector<eg::NumKind> kinds;
  bool all_total_exact = true, all_const = true;
  root_vector<Value> args;
  for (eg::Id k : n.children()) {
    const ClassFacts& cf = g[k].data;
    kinds.push_back(cf.kind);
    all_total_exact = all_total_exact && cf.total && cf.kind == eg::NumKind::kExact;
    if (cf.konst == UINT32_MAX) all_const = false;
    else args.push_back(lang->consts[cf.konst]);
  }
  f.kind = result_kind(p, kinds);
  f.total = p->facts.exact_total && all_total_exact;
  if (all_const && foldable(p)) {
    try {
      Value r = p->fn(lang->ctx->vm, p, int(args.size()), args.data());
      if (is_number(r) || r == kTrue || r == kFalse) {
        lang->consts.push_back(r);
        f.konst = uint32_t(lang->consts.size() - 1);
        f.kind = kind_of_value(r);
        f.total = true;  // it returned
      }
    } catch (SchemeError&) {
      // raises at run time, where the program says
    } catch (std::bad_alloc&) {
    }
  }
  return f;
}

void IrAnalysis::modify(Graph& g, eg::Id id) {
  uint32_t c = g[id].data.konst;
  if (c == UINT32_MAX) return;
  eg::Id leaf = g.add(eg::ENode(lang->constant(lang->consts[c])));
  g.merge(id, leaf);
  g.prune_to_leaves(id);
}

// ---- the pass -------------------------------------------------------------------------------

class Saturator : public ExprMutator {
 public:
  explicit Saturator(PassContext& ctx) : ctx_(ctx), core_(ctx.core) {}

  Node* run(Node* root) {
    infer_variable_kinds(root);
    return visit(root);
  }

  Node* visit_call(CallNode* n) override {
    if (Node* r = try_region(n)) return r;
    return ExprMutator::visit_call(n);
  }
  Node* visit_prim_call(PrimCallNode* n) override {
    if (Node* r = try_region(n)) return r;
    return ExprMutator::visit_prim_call(n);
  }
  Node* visit_if(IfNode* n) override {
    // (if (exact-integer? x) then else): x is an exact integer in `then`.
    const gc_vector<Node*>* args = nullptr;
    Primitive* p = called_primitive(n->test, core_, &args);
    Var* proven = nullptr;
    if (p && p->facts.proves_exact && args->size() == 1 && (*args)[0]->kind == NodeKind::LocalRef) {
      Var* v = static_cast<LocalRefNode*>((*args)[0])->var;
      if (!v->assigned) proven = v;
    }
    if (!proven) return ExprMutator::visit_if(n);
    Node* test = visit(n->test);
    auto it = var_kinds_.find(proven);
    bool had = it != var_kinds_.end();
    eg::NumKind old = had ? it->second : eg::NumKind::kUnknown;
    var_kinds_[proven] = eg::NumKind::kExact;
    Node* then = visit(n->then);
    if (had) var_kinds_[proven] = old;
    else var_kinds_.erase(proven);
    Node* otherwise = visit(n->otherwise);
    if (test == n->test && then == n->then && otherwise == n->otherwise) return n;
    return gc_new<IfNode>(test, then, otherwise, n->loc);
  }

 private:
  PassContext& ctx_;
  Environment* core_;
  std::unordered_map<Var*, eg::NumKind> var_kinds_;

  // A primitive of the region language called in `n`, with its operands.
  Primitive* region_op(Node* n, const gc_vector<Node*>** args) {
    Primitive* p = called_primitive(n, core_, args);
    if (!p || p->facts.num_result == NumResult::kNone) return nullptr;
    if (!(p->flags & kPure) || (p->flags & (kAllocates | kHasEffects | kVmSpecial))) return nullptr;
    if (!arity_ok(p, (*args)->size())) return nullptr;
    return p;
  }
  static bool region_leaf(Node* n) {
    if (n->kind == NodeKind::Const) {
      Value v = static_cast<ConstNode*>(n)->value;
      return is_number(v) || v == kTrue || v == kFalse;
    }
    return n->kind == NodeKind::LocalRef && !static_cast<LocalRefNode*>(n)->var->assigned;
  }
  // Whether `n` is wholly a region; counts its nodes into *size (stops past the limit).
  bool is_region(Node* n, size_t* size) {
    if (++*size > kRegionMaxNodes) return false;
    if (region_leaf(n)) return true;
    const gc_vector<Node*>* args = nullptr;
    if (!region_op(n, &args)) return false;
    for (Node* a : *args) if (!is_region(a, size)) return false;
    return true;
  }

  // What is known of variables before the walk:
  //  - a never-assigned let variable has the kind of its init (pre-order, so a let's inits see
  //    the kinds of the variables bound around it);
  //  - a parameter of a loop — a letrec-bound, never-assigned single-clause lambda that is only
  //    ever called, with its exact number of arguments — is an exact integer when every call
  //    passes one. Optimistic: all such parameters start exact and those a call site disproves
  //    are demoted, until nothing changes (the greatest fixpoint: by induction over the calls
  //    made, each value the parameter takes is an exact integer).
  void infer_variable_kinds(Node* root) {
    struct Loop {
      LambdaClause* clause;
      std::vector<CallNode*> calls;
      size_t refs = 0;
    };
    std::unordered_map<Var*, Loop> loops;
    bool complete = for_each_node(root, [&](Node* n) {
      if (n->kind != NodeKind::Letrec) return;
      auto* let = static_cast<LetNode*>(n);
      for (size_t i = 0; i < let->vars.size(); i++) {
        if (let->vars[i]->assigned || let->inits[i]->kind != NodeKind::Lambda) continue;
        auto* lam = static_cast<LambdaNode*>(let->inits[i]);
        if (lam->clauses.size() != 1 || lam->clauses[0]->rest) continue;
        loops[let->vars[i]] = Loop{lam->clauses[0], {}, 0};
      }
    });
    // An analysis that could not see the whole tree is not trusted (passes/README.md).
    if (!complete) loops.clear();
    if (!loops.empty()) {
      for_each_node(root, [&](Node* n) {
        if (n->kind == NodeKind::LocalRef) {
          auto it = loops.find(static_cast<LocalRefNode*>(n)->var);
          if (it != loops.end()) it->second.refs++;
        } else if (n->kind == NodeKind::Call) {
          auto* call = static_cast<CallNode*>(n);
          if (call->fn->kind != NodeKind::LocalRef) return;
          auto it = loops.find(static_cast<LocalRefNode*>(call->fn)->var);
          if (it != loops.end()) it->second.calls.push_back(call);
        }
      });
    }
    std::unordered_map<Var*, bool> assumed;  // loop parameter -> still assumed exact
    for (auto& [f, loop] : loops) {
      bool only_called = loop.refs == loop.calls.size();
      for (CallNode* c : loop.calls) only_called = only_called && c->args.size() == loop.clause->params.size();
      if (!only_called) continue;
      for (Var* p : loop.clause->params)
        if (!p->assigned) assumed[p] = true;
    }
    for (int round = 0; round < 32; round++) {
      var_kinds_.clear();
      for (auto& [p, ok] : assumed)
        if (ok) var_kinds_[p] = eg::NumKind::kExact;
      for_each_node(root, [&](Node* n) {
        if (n->kind != NodeKind::Let) return;
        auto* let = static_cast<LetNode*>(n);
        for (size_t i = 0; i < let->vars.size(); i++) {
          if (let->vars[i]->assigned) continue;
          eg::NumKind k = kind_of(let->inits[i]);
          if (k != eg::NumKind::kUnknown) var_kinds_[let->vars[i]] = k;
        }
      });
      bool demoted = false;
      for (auto& [f, loop] : loops)
        for (CallNode* c : loop.calls)
          for (size_t i = 0; i < c->args.size() && i < loop.clause->params.size(); i++) {
            auto it = assumed.find(loop.clause->params[i]);
            if (it == assumed.end() || !it->second) continue;
            if (kind_of(c->args[i]) != eg::NumKind::kExact) {
              it->second = false;
              demoted = true;
            }
          }
      if (!demoted) return;
    }
    // No fixpoint within the rounds: trust nothing about parameters.
    var_kinds_.clear();
  }

  eg::NumKind kind_of(Node* n, int depth = 0) {
    if (depth > 64) return eg::NumKind::kUnknown;
    if (n->kind == NodeKind::Const) return kind_of_value(static_cast<ConstNode*>(n)->value);
    if (n->kind == NodeKind::LocalRef) {
      auto it = var_kinds_.find(static_cast<LocalRefNode*>(n)->var);
      return it == var_kinds_.end() ? eg::NumKind::kUnknown : it->second;
    }
    const gc_vector<Node*>* args = nullptr;
    Primitive* p = called_primitive(n, core_, &args);
    if (!p || !arity_ok(p, args->size())) return eg::NumKind::kUnknown;
    std::vector<eg::NumKind> kids;
    for (Node* a : *args) kids.push_back(kind_of(a, depth + 1));
    return result_kind(p, kids);
  }

  double op_cost(const RuleSet& rs, const Primitive* p) {
    auto it = rs.costs.find(p->name);
    return it == rs.costs.end() ? kDefaultOpCost : it->second;
  }

  eg::Id add_region(Lang& lang, Graph& g, Node* n, double* cost, const RuleSet& rs) {
    if (n->kind == NodeKind::Const) return g.add(eg::ENode(lang.constant(static_cast<ConstNode*>(n)->value)));
    if (n->kind == NodeKind::LocalRef) return g.add(eg::ENode(lang.variable(static_cast<LocalRefNode*>(n)->var)));
    const gc_vector<Node*>* args = nullptr;
    Primitive* p = called_primitive(n, core_, &args);
    *cost += op_cost(rs, p);
    eg::ENode e(lang.primitive(make_ptr(p)));
    for (Node* a : *args) e.push(add_region(lang, g, a, cost, rs));
    return g.add(std::move(e));
  }

  // The primitive named `name` in the core environment (rules name primitives), or null.
  Value core_primitive(Value name) {
    Value b = core_->lookup(name);
    if (!has_type(b, Type::GlobalCell)) return kFalse;
    Value v = b.as<GlobalCell>()->value;
    return is_primitive(v) ? v : kFalse;
  }

  bool compile_pattern(Lang& lang, Value t, eg::Pattern& p, uint32_t* out) {
    if (is_var_symbol(t)) { *out = p.add_var(symbol_name(t)); return true; }
    if (!is_pair(t)) { *out = p.add_op(lang.constant(t), {}); return true; }
    Value prim = core_primitive(car(t));
    if (prim == kFalse) return false;  // an operator this engine does not have: rule unused
    std::vector<uint32_t> kids;
    for (Value q = cdr(t); is_pair(q); q = cdr(q)) {
      uint32_t k;
      if (!compile_pattern(lang, car(q), p, &k)) return false;
      kids.push_back(k);
    }
    *out = p.add_op(lang.primitive(prim), std::move(kids));
    return true;
  }

  // A cell of the core environment holding `prim` under its own name, for a GlobalRef.
  Value cell_of(Primitive* p) {
    Value b = core_->lookup(intern(p->name));
    if (has_type(b, Type::GlobalCell) && b.as<GlobalCell>()->value == make_ptr(p)) return b;
    return kFalse;
  }

  Node* to_ir(Lang& lang, const eg::RecExpr& e, eg::Id i, SrcLoc loc) {
    const eg::ENode& n = e.nodes[i];
    if (n.is_leaf()) {
      if (lang.vars[n.op]) return gc_new<LocalRefNode>(lang.vars[n.op], loc);
      return gc_new<ConstNode>(lang.consts[lang.leaf_const[n.op]], loc);
    }
    Primitive* p = lang.prims[n.op];
    gc_vector<Node*> args;
    for (eg::Id k : n.children()) args.push_back(to_ir(lang, e, k, loc));
    Value cell = cell_of(p);
    if (cell != kFalse) {
      auto* call = gc_new<CallNode>(gc_new<GlobalRefNode>(cell, loc), loc);
      call->args = std::move(args);
      return call;
    }
    auto* call = gc_new<PrimCallNode>(lang.prim_values[n.op], loc);
    call->args = std::move(args);
    return call;
  }

  Node* try_region(Node* n) {
    size_t size = 0;
    if (!is_region(n, &size)) return nullptr;
    const RuleSet& rs = rule_set();
    Lang lang;
    lang.ctx = &ctx_;
    lang.var_kinds = &var_kinds_;
    Graph g{IrAnalysis{&lang}};
    double original_cost = 0;
    eg::Id root = add_region(lang, g, n, &original_cost, rs);

    std::vector<eg::Rewrite<IrAnalysis>> rules;
    for (const RuleSet::Rule& r : rs.rules) {
      eg::Pattern l, rhs;
      uint32_t dummy;
      if (!compile_pattern(lang, r.lhs, l, &dummy) || !compile_pattern(lang, r.rhs, rhs, &dummy)) continue;
      auto rw = eg::Rewrite<IrAnalysis>::make(r.name, std::move(l), rhs);
      std::vector<int> exact, total, nonzero;
      for (Value v : r.exact_vars) exact.push_back(rw.lhs.find_var(symbol_name(v)));
      for (Value v : r.total_vars) total.push_back(rw.lhs.find_var(symbol_name(v)));
      for (Value v : r.nonzero_vars) nonzero.push_back(rw.lhs.find_var(symbol_name(v)));
      rw.condition = [exact, total, nonzero, &lang](Graph& gr, eg::Id, const eg::Subst& s) {
        for (int i : exact)
          if (i >= 0 && gr[s[i]].data.kind != eg::NumKind::kExact) return false;
        for (int i : total)
          if (i < 0 || !gr[s[i]].data.total) return false;
        for (int i : nonzero) {
          if (i < 0) return false;
          const ClassFacts& f = gr[s[i]].data;
          if (f.konst == UINT32_MAX) return false;
          Value c = lang.consts[f.konst];
          if (!is_exact_integer(c) || (c.is_fixnum() && c.fixnum() == 0)) return false;
        }
        return true;
      };
      rules.push_back(std::move(rw));
    }
    std::vector<const eg::Rewrite<IrAnalysis>*> ptrs;
    for (auto& r : rules) ptrs.push_back(&r);
    eg::RunnerLimits lim;
    lim.iter_limit = kEqsatIterLimit;
    lim.node_limit = kEqsatNodeLimit;
    lim.time_limit = kEqsatTimeLimit;
    eg::Runner<IrAnalysis> runner(g, lim);
    runner.run(ptrs);

    eg::CostFn cost = [&lang, &rs, this](const eg::ENode& e, const std::vector<double>& kids) {
      double c = e.is_leaf() ? 0 : op_cost(rs, lang.prims[e.op]);
      for (double k : kids) c += k;
      return c;
    };
    eg::Extractor<IrAnalysis> ex(g, cost);
    if (!(ex.cost(root) < original_cost)) return nullptr;
    eg::RecExpr best;
    try {
      best = ex.extract(root);
    } catch (const std::runtime_error&) {
      return nullptr;
    }
    return to_ir(lang, best, best.root(), n->loc);
  }
};

}  // namespace

Pass eqsat_pass() {
  Pass p;
  p.name = "eqsat";
  p.level = kEqsatLevel;
  p.description = "equality saturation over pure exact-integer arithmetic regions (scheme/rules/eqsat-arith.scm)";
  p.run = [](Node* ir, PassContext& ctx) { return Saturator(ctx).run(ir); };
  return p;
}

}  // namespace quasi
