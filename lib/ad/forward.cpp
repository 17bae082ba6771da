// forward.cpp — forward-mode AD of core IR by source transformation (forward.hpp): each value
// being differentiated is computed together with its tangent, in the source's own control flow.
//
// Values are atoms (a variable or a constant) in let-lists, as in reverse.cpp. A value is
// *active* when it may depend on a parameter that has a tangent; only active values get tangent
// code, so a constant, an index or a test costs nothing. Loops (letrec groups whose names are only
// called) become letrec groups of forward procedures; which of their parameters are active is
// found by iteration (Forward::grew: a call passing an active value to a parameter thought
// inactive marks it, and the transformation starts again).
#include "ad/forward.hpp"

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ad/reverse.hpp"
#include "core/error.hpp"
#include "core/object.hpp"
#include "core/numbers.hpp"
#include "core/prim.hpp"
#include "core/procedure.hpp"
#include "eval/environment.hpp"
#include "ir/functor.hpp"
#include "ir/let_list.hpp"
#include "ir/util.hpp"

namespace quasi::ad {
namespace {

// Thrown for code outside the subset forward.hpp describes: the caller falls back.
struct Refused {};

struct Atom {
  Var* v = nullptr;
  Value c = kFalse;
};

struct Dual {
  Atom v;
  Atom d;  // the tangent, when act
  bool act = false;
  bool num = false;  // the value is a number (made by arithmetic, or a numeric constant)
};

// Facts about the source's loop procedures, per source letrec variable, kept across the passes:
// which parameters are active, which loops may return something other than a number, and which
// parameters may be given one. Each grows only (a loop is assumed to return numbers, and its
// parameters to be numbers, until a tail value or an argument is found not to be).
struct LoopFacts {
  TracedMap<Var*, std::vector<bool>> act;
  TracedMap<Var*, bool> not_num;
  TracedMap<Var*, std::vector<bool>> param_not_num;  // a call may pass a parameter a non-number
};

class Forward {
 public:
  Forward(RuleCache& rules, Environment* core, uint64_t mask, const ForwardCallee& callee, LoopFacts& loops)
      : rules_(rules), core_(core), mask_(mask), callee_(callee), loops_facts_(loops) {}
  bool grew = false;
  // Every value the procedure returns is a number (derivative and jvp then need no shape walk,
  // and the partial evaluator sees no other case: %ad-fwd-number?).
  bool returns_number = true;

  LambdaNode* maker(LambdaNode* src, Var** fvs, const bool* boxed, size_t nfv) {
    if (src->clauses.size() != 1 || src->clauses[0]->rest) throw Refused{};
    LambdaClause* sc = src->clauses[0];
    if (sc->params.size() > kMaxForwardParams) throw Refused{};
    bool deep = false;
    self_src_ = self_variable(src, fvs, nfv, &deep);
    if (deep) throw Refused{};
    LambdaNode* mk = gc_new<LambdaNode>(intern("ad-forward-maker"), SrcLoc{});
    LambdaClause* mc = gc_new<LambdaClause>();
    self_ = make_var(intern("self"));
    mc->params.push_back(self_);
    for (size_t i = 0; i < nfv; i++) {
      // a boxed slot holds the compiler's box, not the value the source reads
      if (fvs[i]->assigned || (boxed && boxed[i])) throw Refused{};
      Var* v = fresh(fvs[i]->name);
      env_[fvs[i]] = Dual{Atom{v}, {}, false};
      mc->params.push_back(v);
    }
    std::vector<bool> act;
    for (size_t k = 0; k < sc->params.size(); k++) act.push_back((mask_ >> k) & 1);
    mc->body = forward_lambda(src->name, src->loc, sc, act, std::vector<bool>(act.size(), true));
    mk->clauses.push_back(mc);
    return mk;
  }

 private:
  RuleCache& rules_;
  Environment* core_;
  uint64_t mask_;
  const ForwardCallee& callee_;
  LoopFacts& loops_facts_;
  TracedMap<Var*, std::vector<bool>>& loop_act_ = loops_facts_.act;
  TracedMap<Var*, Dual> env_;
  TracedMap<Var*, Var*> loops_;  // source letrec variable -> its forward procedure
  Var* self_src_ = nullptr;
  Var* cur_loop_ = nullptr;  // the source loop whose body is being transformed, or null
  bool call_num_ = false;    // call() returned the call of a loop that returns numbers
  Var* self_ = nullptr;
  LetList* ll_ = nullptr;

  // A rule text built here, kept for the rule cache (keyed by the text's address).
  const char* intern_text(const std::string& t) {
    auto it = texts_.find(t);
    if (it == texts_.end()) it = texts_.emplace(t, t).first;
    return it->second.c_str();
  }
  std::map<std::string, std::string>& texts_ = forward_texts();
  static std::map<std::string, std::string>& forward_texts() {
    static std::map<std::string, std::string> m;
    return m;
  }

  // ---- building nodes ----
  static Node* ref(Var* v) { return gc_new<LocalRefNode>(v, SrcLoc{}); }
  static Node* cst(Value v) { return gc_new<ConstNode>(v, SrcLoc{}); }
  static Node* atom(const Atom& a) { return a.v ? ref(a.v) : cst(a.c); }
  static Var* fresh(Value name) { return make_var(is_symbol(name) ? name : intern("t")); }
  Node* global(const char* name) { return gc_new<GlobalRefNode>(core_->cell_for(intern(name)), SrcLoc{}); }
  Node* gcall(const char* name, std::initializer_list<Node*> args) {
    CallNode* c = gc_new<CallNode>(global(name), SrcLoc{});
    for (Node* a : args) c->args.push_back(a);
    return c;
  }
  Atom push(Node* code, const char* name) { return Atom{ll_->push(code, intern(name))}; }
  // a dual's tangent as a node: the exact 0 for an inactive value
  static Node* tangent(const Dual& d) { return d.act ? atom(d.d) : cst(make_fixnum(0)); }
  Node* pair_of(const Dual& d) { return gcall("cons", {atom(d.v), tangent(d)}); }
  // (v . d) from a call of a forward form
  Dual unpair(Node* call) {
    Atom r = push(call, "r");
    Atom v = push(gcall("car", {atom(r)}), "v");
    Atom d = push(gcall("cdr", {atom(r)}), "dv");
    return Dual{v, d, true};
  }

  // ---- the transformation ----
  // The forward procedure of a source clause: each parameter k, then its tangent when act[k].
  LambdaNode* forward_lambda(Value name, SrcLoc loc, LambdaClause* sc, std::vector<bool> act,
                             std::vector<bool> not_num) {
    LambdaNode* f = gc_new<LambdaNode>(name, loc);
    LambdaClause* fc = gc_new<LambdaClause>();
    for (size_t k = 0; k < sc->params.size(); k++) {
      Var* p = sc->params[k];
      if (p->assigned) throw Refused{};
      Dual d{Atom{fresh(p->name)}, {}, bool(act[k]), !not_num[k]};
      fc->params.push_back(d.v.v);
      if (d.act) {
        d.d = Atom{fresh(intern("dt"))};
        fc->params.push_back(d.d.v);
      }
      env_[p] = d;
    }
    fc->body = block_tail(sc->body);
    f->clauses.push_back(fc);
    return f;
  }

  // Code for e in tail position: it returns the (value . tangent) pair; bindings go to *ll_.
  Node* tail(Node* e) {
    e = enter(e);
    switch (e->kind) {
      case NodeKind::If: {
        auto* n = static_cast<IfNode*>(e);
        Dual t = expr(n->test);
        return gc_new<IfNode>(atom(t.v), block_tail(n->then), block_tail(n->otherwise), n->loc);
      }
      case NodeKind::Call:
      case NodeKind::PrimCall: {
        Dual d;
        if (Node* c = call(e, &d)) {  // a tail call stays one
          returns(call_num_);
          return c;
        }
        returns(d.num);
        return pair_of(d);
      }
      default: {
        Dual d = expr(e);
        returns(d.num);
        return pair_of(d);
      }
    }
  }
  // A value the procedure (or the loop being transformed) returns.
  void returns(bool num) {
    if (num) return;
    if (!cur_loop_) {
      returns_number = false;
    } else if (!loops_facts_.not_num.count(cur_loop_)) {
      loops_facts_.not_num[cur_loop_] = true;
      grew = true;
    }
  }
  // The bindings of the lets, letrecs and sequences around e's value, done; the node of the value.
  Node* enter(Node* e) {
    for (;;) {
      e = named_let(e);
      if (e->kind == NodeKind::Let) {
        let(static_cast<LetNode*>(e));
        e = static_cast<LetNode*>(e)->body;
      } else if (e->kind == NodeKind::Letrec) {
        letrec(static_cast<LetNode*>(e));
        e = static_cast<LetNode*>(e)->body;
      } else if (e->kind == NodeKind::Seq) {
        auto* s = static_cast<SeqNode*>(e);
        for (size_t i = 0; i + 1 < s->exprs.size(); i++) expr(s->exprs[i]);
        e = s->exprs.back();
      } else {
        return e;
      }
    }
  }
  Node* block_tail(Node* e) {
    LetList ll;
    LetList* saved = ll_;
    ll_ = &ll;
    Node* r = tail(e);
    ll_ = saved;
    return ll.get(r);
  }

  Dual expr(Node* e) {
    e = enter(e);
    switch (e->kind) {
      case NodeKind::Const:
        return Dual{Atom{nullptr, static_cast<ConstNode*>(e)->value}, {}, false,
                    is_number(static_cast<ConstNode*>(e)->value)};
      case NodeKind::LocalRef: {
        Var* v = static_cast<LocalRefNode*>(e)->var;
        if (v == self_src_) return Dual{Atom{self_}, {}, false};
        auto it = env_.find(v);
        if (it == env_.end()) throw Refused{};  // a loop's name used as a value
        return it->second;
      }
      case NodeKind::GlobalRef:
        return Dual{push(gc_new<GlobalRefNode>(static_cast<GlobalRefNode*>(e)->cell, e->loc), "g"), {}, false};
      case NodeKind::If:
        return branch(static_cast<IfNode*>(e));
      case NodeKind::Call:
      case NodeKind::PrimCall: {
        Dual d;
        if (Node* c = call(e, &d)) {
          d = unpair(c);
          d.num = call_num_;
        }
        return d;
      }
      default:  // set!, define, a lambda that is not a loop
        throw Refused{};
    }
  }

  // a named let or a do loop: (letrec* (...) (g a ...)) (reverse.hpp)
  static Node* named_let(Node* e) {
    if (e->kind != NodeKind::Call) return e;
    LetNode* l = named_let_call(static_cast<CallNode*>(e));
    return l ? l : e;
  }

  void let(LetNode* l) {
    std::vector<Dual, scratch_allocator<Dual>> vals;
    for (Node* i : l->inits) vals.push_back(expr(i));
    for (size_t k = 0; k < l->vars.size(); k++) {
      if (l->vars[k]->assigned) throw Refused{};
      env_[l->vars[k]] = vals[k];
    }
  }

  // A group of lambdas whose names are only called: their forward procedures, one tangent
  // parameter per active parameter. The tangents of the outer values they read are captured.
  void letrec(LetNode* n) {
    for (size_t i = 0; i < n->vars.size(); i++) {
      Node* init = n->inits[i];
      if (n->vars[i]->assigned || init->kind != NodeKind::Lambda) throw Refused{};
      auto* lam = static_cast<LambdaNode*>(init);
      if (lam->clauses.size() != 1 || lam->clauses[0]->rest) throw Refused{};
      if (!loop_act_.count(n->vars[i])) {
        loop_act_[n->vars[i]] = std::vector<bool>(lam->clauses[0]->params.size(), false);
        loops_facts_.param_not_num[n->vars[i]] = std::vector<bool>(lam->clauses[0]->params.size(), false);
      }
      loops_[n->vars[i]] = fresh(n->vars[i]->name);
    }
    auto* vars = gc_new<gc_vector<Var*>>();
    auto* codes = gc_new<gc_vector<Node*>>();
    for (size_t i = 0; i < n->vars.size(); i++) {
      LambdaClause* sc = static_cast<LambdaNode*>(n->inits[i])->clauses[0];
      vars->push_back(loops_[n->vars[i]]);
      Var* saved = cur_loop_;
      cur_loop_ = n->vars[i];
      codes->push_back(forward_lambda(n->vars[i]->name, n->inits[i]->loc, sc, loop_act_[n->vars[i]],
                                      loops_facts_.param_not_num[n->vars[i]]));
      cur_loop_ = saved;
    }
    ll_->insert_rec(ll_->mark(), vars, codes);
  }

  // A non-tail if: its value, and its tangent when an arm's value is active (the arms then return
  // (value . tangent), taken apart after the if).
  Dual branch(IfNode* n) {
    Dual t = expr(n->test);
    LetList arms[2];
    Dual r[2];
    Node* src[2] = {n->then, n->otherwise};
    for (int k = 0; k < 2; k++) {
      LetList* saved = ll_;
      ll_ = &arms[k];
      r[k] = expr(src[k]);
      ll_ = saved;
    }
    bool num = r[0].num && r[1].num;
    if (!r[0].act && !r[1].act) {
      return Dual{push(gc_new<IfNode>(atom(t.v), arms[0].get(atom(r[0].v)), arms[1].get(atom(r[1].v)), n->loc), "x"),
                  {}, false, num};
    }
    if (arms[0].empty() && arms[1].empty()) {  // arms of variables and constants: two ifs, no pair
      Atom v = push(gc_new<IfNode>(atom(t.v), atom(r[0].v), atom(r[1].v), n->loc), "x");
      Atom d = push(gc_new<IfNode>(atom(t.v), tangent(r[0]), tangent(r[1]), n->loc), "dt");
      return Dual{v, d, true, num};
    }
    Dual j = unpair(gc_new<IfNode>(atom(t.v), arms[0].get(pair_of(r[0])), arms[1].get(pair_of(r[1])), n->loc));
    j.num = num;
    return j;
  }

  // A call. Returns the code of a call of a forward form (its value a (value . tangent) pair), or
  // null with *out the call's dual (a primitive, or a call with no active argument).
  Node* call(Node* n, Dual* out) {
    call_num_ = false;
    const gc_vector<Node*>* argn = nullptr;
    Primitive* p = called_primitive(n, core_, &argn);
    // residual code of the partial evaluator calls primitives as constants
    if (!p && n->kind == NodeKind::Call && static_cast<CallNode*>(n)->fn->kind == NodeKind::Const &&
        is_primitive(static_cast<ConstNode*>(static_cast<CallNode*>(n)->fn)->value)) {
      p = static_cast<ConstNode*>(static_cast<CallNode*>(n)->fn)->value.as<Primitive>();
      argn = &static_cast<CallNode*>(n)->args;
    }
    if (p) {
      std::vector<Dual, scratch_allocator<Dual>> args;
      for (Node* a : *argn) args.push_back(expr(a));
      *out = prim(p, args);
      return nullptr;
    }
    auto* c = static_cast<CallNode*>(n);
    if (c->fn->kind == NodeKind::LocalRef) {
      auto it = loops_.find(static_cast<LocalRefNode*>(c->fn)->var);
      if (it != loops_.end()) return loop_call(static_cast<LocalRefNode*>(c->fn)->var, it->second, c);
    }
    Dual fn = expr(c->fn);
    std::vector<Dual, scratch_allocator<Dual>> args;
    bool on = false;
    for (Node* a : c->args) {
      args.push_back(expr(a));
      on = on || args.back().act;
    }
    if (!on) {  // a procedure (never active: forward code makes none) of constants
      CallNode* pc = gc_new<CallNode>(atom(fn.v), c->loc);
      for (const Dual& a : args) pc->args.push_back(atom(a.v));
      *out = Dual{push(pc, "x"), {}, false};
      return nullptr;
    }
    uint64_t mask = 0;
    if (args.size() > kMaxForwardParams) throw Refused{};
    for (size_t k = 0; k < args.size(); k++)
      if (args[k].act) mask |= uint64_t(1) << k;
    bool self = c->fn->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(c->fn)->var == self_src_;
    if (!self) {
      // A global's procedure must have a forward form now (%ad-fwd checks again when the call
      // runs: the global may hold another procedure by then). A procedure constant (specialize's
      // result calls its residual, and the procedure it falls back to, so) gets one from jvp when
      // it has none (%ad-fwd-adapter).
      if (c->fn->kind == NodeKind::GlobalRef) {
        Value f = static_cast<GlobalRefNode*>(c->fn)->cell.as<GlobalCell>()->value;
        if (!is_closure(f) || !callee_(f, mask, args.size())) throw Refused{};
      } else if (c->fn->kind == NodeKind::Const) {
        Value f = static_cast<ConstNode*>(c->fn)->value;
        if (!is_closure(f)) throw Refused{};
        callee_(f, mask, args.size());
      } else {
        throw Refused{};
      }
    }
    Atom ff = push(gcall("%ad-fwd", {atom(fn.v), cst(make_fixnum(int64_t(mask))), cst(make_fixnum(int64_t(args.size())))}), "ff");
    CallNode* fc = gc_new<CallNode>(atom(ff), c->loc);
    for (const Dual& a : args) {
      fc->args.push_back(atom(a.v));
      if (a.act) fc->args.push_back(atom(a.d));
    }
    return fc;
  }

  Node* loop_call(Var* src, Var* f, CallNode* c) {
    std::vector<bool>& act = loop_act_[src];
    if (act.size() != c->args.size()) throw Refused{};  // an arity error: let the source raise it
    std::vector<Dual, scratch_allocator<Dual>> args;
    for (Node* a : c->args) args.push_back(expr(a));
    std::vector<bool>& not_num = loops_facts_.param_not_num[src];
    for (size_t k = 0; k < args.size(); k++) {
      if (args[k].act && !act[k]) {
        act[k] = true;
        grew = true;
      }
      if (!args[k].num && !not_num[k]) {
        not_num[k] = true;
        grew = true;
      }
    }
    CallNode* fc = gc_new<CallNode>(ref(f), c->loc);
    for (size_t k = 0; k < args.size(); k++) {
      fc->args.push_back(atom(args[k].v));
      if (act[k]) fc->args.push_back(tangent(args[k]));
    }
    call_num_ = !loops_facts_.not_num.count(src);
    return fc;
  }

  // d times a scalar rule's partial `text` (in a, b, r)
  Node* scaled(const char* text, const std::vector<Dual, scratch_allocator<Dual>>& args, const Atom& r, const Atom& d) {
    std::string t = text;
    if (t == "1") return atom(d);
    if (t == "-1") return gcall("-", {atom(d)});
    if (t == "(/ 1 b)") return gcall("/", {atom(d), atom(args[1].v)});
    Node* vals[4] = {atom(args[0].v), args.size() > 1 ? atom(args[1].v) : cst(kFalse), atom(r), atom(d)};
    if (over_rule_text(rules_, text)) {
      // (%ad-recip E): d/E, the division by an exact 0 made 0.0 (%ad-over, written in place)
      std::string inner(text + std::strlen("(%ad-recip "), std::strlen(text) - std::strlen("(%ad-recip ") - 1);
      Node* e = instantiate_rule(rules_, intern_text(inner), vals);
      if (!e) throw Refused{};
      Atom ev = push(e, "e");
      // an exact zero is the fixnum 0, and (eqv? e 0) is done inline by the JIT (exact? is a call)
      Node* zero = gcall("eqv?", {atom(ev), cst(make_fixnum(0))});
      return gcall("/", {atom(d), gc_new<IfNode>(zero, cst(make_flonum(0.0)), atom(ev), SrcLoc{})});
    }
    Node* e = instantiate_rule(rules_, text, vals);
    if (!e) throw Refused{};
    return gcall("*", {e, atom(d)});
  }

  // The tangent of (car/cdr ... d) that reads 0 from the zero (or from any non-pair)
  Node* take(const Atom& d, bool cdr) {
    return gc_new<IfNode>(gcall("pair?", {atom(d)}), gcall(cdr ? "cdr" : "car", {atom(d)}), cst(make_fixnum(0)),
                          SrcLoc{});
  }

  Dual prim(Primitive* p, const std::vector<Dual, scratch_allocator<Dual>>& args) {
    Dual r = prim_dual(p, args);
    NumResult k = p->facts.num_result;
    const DerivativeRule* rule = p->facts.derivative;
    r.num = k == NumResult::kExactInteger || k == NumResult::kContagion || k == NumResult::kNumber ||
            (rule && rule->kind == DerivativeRule::Kind::kScalar);
    return r;
  }
  Dual prim_dual(Primitive* p, const std::vector<Dual, scratch_allocator<Dual>>& args) {
    bool on = false;
    for (const Dual& a : args) on = on || a.act;
    auto plain = [&]() {
      PrimCallNode* pc = gc_new<PrimCallNode>(make_ptr(p), SrcLoc{});
      for (const Dual& a : args) pc->args.push_back(atom(a.v));
      return push(pc, "x");
    };
    if (p->flags & kVmSpecial) throw Refused{};  // apply, call/cc, values: not followed
    if (!on) return Dual{plain(), {}, false};
    const DerivativeRule* rule = p->facts.derivative;
    std::string name = p->name ? p->name : "";
    if (!rule) {
      // a predicate or comparison: a boolean has no tangent
      if (p->facts.num_result == NumResult::kBoolean || (!name.empty() && name.back() == '?'))
        return Dual{plain(), {}, false};
      throw Refused{};
    }
    using K = DerivativeRule::Kind;
    if (rule->cell != DerivativeRule::CellOp::kNone) throw Refused{};
    if (rule->kind == K::kZero) return Dual{plain(), {}, false};
    if (rule->fold && args.size() > 2) {
      Dual acc = prim(p, {args[0], args[1]});
      for (size_t i = 2; i < args.size(); i++) acc = prim(p, {acc, args[i]});
      return acc;
    }
    Atom x = plain();
    switch (rule->kind) {
      case K::kScalar: {
        if (args.size() != 1 && args.size() != 2) throw Refused{};
        if (name == "/" && args.size() == 2 && args[0].act && args[1].act) {
          // the quotient rule as (da - r db) / b: three operations where the partials take five
          Node* num = gcall("-", {atom(args[0].d), gcall("*", {atom(x), atom(args[1].d)})});
          return Dual{x, push(gcall("/", {num, atom(args[1].v)}), "dt"), true};
        }
        Node* sum = nullptr;
        for (size_t i = 0; i < args.size(); i++) {
          if (!args[i].act) continue;
          const char* text = args.size() == 1 ? rule->unary[0] : rule->binary[i];
          if (!text) throw Refused{};
          // (- a b)'s tangent is (- da db), not (+ da (- db))
          if (sum && std::strcmp(text, "-1") == 0) sum = gcall("-", {sum, atom(args[i].d)});
          else sum = sum ? gcall("+", {sum, scaled(text, args, x, args[i].d)}) : scaled(text, args, x, args[i].d);
        }
        return Dual{x, push(sum, "dt"), true};
      }
      case K::kCxr: {
        if (!args[0].act) return Dual{x, {}, false};
        Atom d = args[0].d;
        for (int i = 0; i < p->facts.cxr_len; i++) d = push(take(d, (p->facts.cxr_bits >> i) & 1), "dt");
        return Dual{x, d, true};
      }
      case K::kList:
      case K::kVector: {
        CallNode* c = gc_new<CallNode>(global(rule->kind == K::kList ? "list" : "vector"), SrcLoc{});
        for (const Dual& a : args) c->args.push_back(tangent(a));
        return Dual{x, push(c, "dt"), true};
      }
      case K::kValues:
        if (args.size() != 1) throw Refused{};
        return Dual{x, args[0].d, true};
      case K::kLinear:
        if (name == "cons") return Dual{x, push(gcall("cons", {tangent(args[0]), tangent(args[1])}), "dt"), true};
        if (name == "vector-ref") {
          if (!args[0].act) return Dual{x, {}, false};
          Node* d = atom(args[0].d);
          return Dual{x,
                      push(gc_new<IfNode>(gcall("vector?", {d}), gcall("vector-ref", {atom(args[0].d), atom(args[1].v)}),
                                          cst(make_fixnum(0)), SrcLoc{}),
                           "dt"),
                      true};
        }
        throw Refused{};
      default:
        throw Refused{};
    }
  }
};

}  // namespace

LambdaNode* make_forward_maker(RuleCache& rules, LambdaNode* src, Var** fvs, const bool* boxed, size_t nfv,
                               uint64_t mask, const ForwardCallee& callee, bool* returns_number) {
  Environment* core = rules_core(rules);
  LoopFacts loops;
  // Each pass may find loop parameters active that were thought not to be (grew); activity only
  // grows, so this ends after at most one pass per loop parameter.
  for (int pass = 0; pass < 64; pass++) {
    Forward f(rules, core, mask, callee, loops);
    try {
      LambdaNode* mk = f.maker(src, fvs, boxed, nfv);
      if (!f.grew) {
        *returns_number = f.returns_number;
        return mk;
      }
    } catch (const Refused&) {
      return nullptr;
    }
  }
  return nullptr;
}

}  // namespace quasi::ad
