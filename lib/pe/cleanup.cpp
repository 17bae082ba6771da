// cleanup.cpp — turns the let-inserted residual code into the code a person would write.
//
// The evaluator binds every residual computation to a fresh variable where the original computes
// it (so effects keep their order and count), passes partially static objects to helpers
// materialized (in case they escape there), and makes a helper for every call under dynamic
// control. Each round here:
//   1. drops helpers nothing calls and inlines helpers called exactly once from outside any cycle
//      (transition compression: a chain of helpers each used once becomes straight code);
//   2. removes helper parameters the body never reads (with the argument, when dropping it is
//      harmless) — this is what makes unused materialized objects dead;
//   3. simplifies bindings: a binding used nowhere is dropped when its init has no effect and
//      cannot raise; a trivial init (constant, variable) is substituted; an init used once is
//      moved to its use when nothing observable is evaluated in between (the use is reached first
//      in evaluation order, not inside a lambda or a branch).
// Every step keeps each Var bound exactly once and never moves code into a lambda or a branch, so
// a round cannot change how often or in which order effects and errors happen.
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.hpp"
#include "ir/limits.hpp"
#include "ir/util.hpp"
#include "pe/budgets.hpp"
#include "pe/internal.hpp"

namespace quasi::pe {

namespace {

using UseMap = std::unordered_map<Var*, int>;

// The engine's core environment during a cleanup (one per thread at a time).
thread_local Environment* t_core = nullptr;

// A reference to a bound cell of the core environment: it cannot raise and cannot change
// (imported cells cannot be assigned), so it behaves like a constant.
bool constant_global(Node* n) {
  if (n->kind != NodeKind::GlobalRef) return false;
  GlobalCell* c = static_cast<GlobalRefNode*>(n)->cell.as<GlobalCell>();
  return t_core && c->owner == make_ptr(t_core) && c->value != kUnbound && is_procedure(c->value);
}

void count_uses(Node* n, UseMap& uses) {
  if (n->kind == NodeKind::LocalRef) uses[static_cast<LocalRefNode*>(n)->var]++;
  for_each_child_slot(n, [&](Node*& c) { count_uses(c, uses); });
}

bool occurs(Node* n, Var* v) {
  if (n->kind == NodeKind::LocalRef) return static_cast<LocalRefNode*>(n)->var == v;
  if (n->kind == NodeKind::LocalSet && static_cast<LocalSetNode*>(n)->var == v) return true;
  bool found = false;
  for_each_child_slot(n, [&](Node*& c) { found = found || occurs(c, v); });
  return found;
}

bool trivial(Node* n) {
  return n->kind == NodeKind::Const ||
         (n->kind == NodeKind::LocalRef && !static_cast<LocalRefNode*>(n)->var->assigned);
}

// Evaluating n has no effect and cannot raise: it may be dropped when its value is unused. The
// toolkit's one definition of purity (ir/util.hpp).
bool droppable(Node* n) { return is_pure(n, t_core); }

Node* clone_trivial(Node* n) {
  if (n->kind == NodeKind::Const) return gc_new<ConstNode>(static_cast<ConstNode*>(n)->value, n->loc);
  return gc_new<LocalRefNode>(static_cast<LocalRefNode*>(n)->var, n->loc);
}

void substitute_all(Node*& slot, Var* v, Node* repl) {
  if (slot->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(slot)->var == v) {
    slot = clone_trivial(repl);
    return;
  }
  for_each_child_slot(slot, [&](Node*& c) { substitute_all(c, v, repl); });
}

// Finds the single use of v if it is the first thing evaluated in n that could observe or be
// observed by moving an expression there. A functor over the IR: each case gets the node and the
// slot that holds it (so the use can be replaced).
enum class Scan { kContinue, kFound, kBlocked };
class FirstUse : public ExprFunctor<Scan(Node*, Node**)> {
 public:
  explicit FirstUse(Var* v) : v_(v) {}
  Node** slot = nullptr;

  Scan scan(Node*& n) { return visit(n, &n); }

  Scan visit_const(ConstNode*, Node**) override { return Scan::kContinue; }
  Scan visit_local_ref(LocalRefNode* n, Node** at) override {
    if (n->var == v_) {
      slot = at;
      return Scan::kFound;
    }
    return n->var->assigned ? Scan::kBlocked : Scan::kContinue;
  }
  Scan visit_global_ref(GlobalRefNode* n, Node**) override {
    return constant_global(n) ? Scan::kContinue : Scan::kBlocked;
  }
  Scan visit_lambda(LambdaNode* n, Node**) override { return occurs(n, v_) ? Scan::kBlocked : Scan::kContinue; }
  Scan visit_call(CallNode* c, Node**) override {
    Scan r = scan(c->fn);
    for (size_t i = 0; r == Scan::kContinue && i < c->args.size(); i++) r = scan(c->args[i]);
    return r == Scan::kContinue ? Scan::kBlocked : r;
  }
  Scan visit_prim_call(PrimCallNode* c, Node**) override {
    Scan r = Scan::kContinue;
    for (size_t i = 0; r == Scan::kContinue && i < c->args.size(); i++) r = scan(c->args[i]);
    if (r != Scan::kContinue) return r;
    const Primitive* p = c->prim.as<Primitive>();
    return quiet_primitive(p) && arity_ok(p, c->args.size()) ? Scan::kContinue : Scan::kBlocked;
  }
  Scan visit_if(IfNode* n, Node**) override {
    Scan r = scan(n->test);
    return r == Scan::kContinue ? Scan::kBlocked : r;
  }
  Scan visit_let(LetNode* l, Node**) override {
    for (Node*& i : l->inits) {
      Scan r = scan(i);
      if (r != Scan::kContinue) return r;
    }
    return scan(l->body);
  }
  Scan visit_letrec(LetNode* l, Node** at) override { return visit_let(l, at); }
  Scan visit_seq(SeqNode* n, Node**) override {
    for (Node*& e : n->exprs) {
      Scan r = scan(e);
      if (r != Scan::kContinue) return r;
    }
    return Scan::kContinue;
  }
  Scan visit_local_set(LocalSetNode* n, Node**) override {
    Scan r = scan(n->value);
    return r == Scan::kContinue ? Scan::kBlocked : r;
  }
  Scan visit_global_set(GlobalSetNode* n, Node**) override {
    Scan r = scan(n->value);
    return r == Scan::kContinue ? Scan::kBlocked : r;
  }

 private:
  Var* v_;
};

void uncount(Node* n, UseMap& uses) {
  if (n->kind == NodeKind::LocalRef) uses[static_cast<LocalRefNode*>(n)->var]--;
  for_each_child_slot(n, [&](Node*& c) { uncount(c, uses); });
}

// Rewrites the residual code in place (it owns it): a functor over the IR.
class Simplifier : public ExprFunctor<Node*(Node*)> {
 public:
  Simplifier(UseMap& uses, PeState& st) : uses_(uses), st_(st) {}
  bool changed = false;

  Node* run(Node* n) { return visit(n); }

  Node* visit(Node* n) override {
    if (done_.count(n)) return n;
    return ExprFunctor::visit(n);
  }
  Node* visit_let(LetNode* l) override {
    // A binding split off a multi-binding let: its init is simplified already.
    if (done_inits_.count(l)) return bind1(l->vars[0], l->inits[0], l->body, l->loc);
    return let(l);
  }
  Node* visit_letrec(LetNode* l) override { return letrec(l); }
  Node* visit_seq(SeqNode* n) override { return seq(n); }
  Node* visit_if(IfNode* i) override {
    i->test = run(i->test);
    if (i->test->kind == NodeKind::Const)
      return run(static_cast<ConstNode*>(i->test)->value.is_true() ? i->then : i->otherwise);
    i->then = run(i->then);
    i->otherwise = run(i->otherwise);
    return i;
  }
  Node* visit_prim_call(PrimCallNode* n) override {
    for_each_child_slot(n, [&](Node*& c) { c = run(c); });
    return list_form(n);
  }
  Node* visit_const(ConstNode* n) override { return n; }
  Node* visit_local_ref(LocalRefNode* n) override { return n; }
  Node* visit_global_ref(GlobalRefNode* n) override { return n; }
  Node* visit_local_set(LocalSetNode* n) override { return children(n); }
  Node* visit_global_set(GlobalSetNode* n) override { return children(n); }
  Node* visit_lambda(LambdaNode* n) override { return children(n); }
  Node* visit_call(CallNode* n) override { return children(n); }

 private:
  UseMap& uses_;
  PeState& st_;
  Node* children(Node* n) {
    for_each_child_slot(n, [&](Node*& c) { c = run(c); });
    return n;
  }
  std::unordered_set<Node*> done_;        // simplified already (moved inits)
  std::unordered_set<Node*> done_inits_;  // single lets whose init is simplified already

  // (cons a '()) -> (list a); (cons a (list b ...)) -> (list a b ...): the same fresh pairs.
  Node* list_form(PrimCallNode* c) {
    if (c->prim != st_.cons_prim || c->args.size() != 2 || !is_primitive(st_.list_prim)) return c;
    Node* d = c->args[1];
    PrimCallNode* out = gc_new<PrimCallNode>(st_.list_prim, c->loc);
    out->args.push_back(c->args[0]);
    if (d->kind == NodeKind::Const && static_cast<ConstNode*>(d)->value == kNil) return out;
    if (d->kind == NodeKind::PrimCall && static_cast<PrimCallNode*>(d)->prim == st_.list_prim) {
      for (Node* a : static_cast<PrimCallNode*>(d)->args) out->args.push_back(a);
      return out;
    }
    return c;
  }

  // Top-down, so a binding's use is found near the top of its (not yet simplified) body; an
  // init moved into place is already simplified and is not walked again (`done_`). Bottom-up
  // would rescan ever deeper nests: quadratic on a chain like (* x (* x ... )).
  Node* let(LetNode* l) {
    if (l->vars.empty()) return run(l->body);
    for (Node*& i : l->inits) i = run(i);
    // Bindings are independent (fresh variables): the let is a chain of single bindings.
    Node* body = l->body;
    for (size_t k = l->vars.size(); k-- > 1;) {
      LetNode* inner = gc_new<LetNode>(NodeKind::Let, l->loc);
      inner->vars.push_back(l->vars[k]);
      inner->inits.push_back(l->inits[k]);
      inner->body = body;
      body = inner;
      done_inits_.insert(inner);
    }
    return bind1(l->vars[0], l->inits[0], body, l->loc);
  }

  Node* bind1(Var* v, Node* init, Node* body, SrcLoc loc) {
    if (!v->assigned) {
      int n = uses_[v];
      if (n == 0) {
        changed = true;
        if (droppable(init)) {
          uncount(init, uses_);
          return run(body);
        }
        SeqNode* s = gc_new<SeqNode>(loc);
        s->exprs.push_back(init);
        s->exprs.push_back(body);
        done_.insert(init);
        return run(s);
      }
      if (trivial(init)) {
        changed = true;
        if (init->kind == NodeKind::LocalRef) uses_[static_cast<LocalRefNode*>(init)->var] += n - 1;
        substitute_all(body, v, init);
        body = run(body);
        return init->kind == NodeKind::Const ? fold_ifs(body) : body;
      }
      if (n == 1) {
        FirstUse fu(v);
        if (fu.scan(body) == Scan::kFound) {
          changed = true;
          *fu.slot = init;
          done_.insert(init);
          return run(body);
        }
      }
    }
    LetNode* out = gc_new<LetNode>(NodeKind::Let, loc);
    out->vars.push_back(v);
    out->inits.push_back(init);
    out->body = run(body);
    return out;
  }

  // A substituted constant may decide an `if` test.
  Node* fold_ifs(Node* n) {
    if (n->kind == NodeKind::If) {
      auto* i = static_cast<IfNode*>(n);
      if (i->test->kind == NodeKind::Const)
        return fold_ifs(static_cast<ConstNode*>(i->test)->value.is_true() ? i->then : i->otherwise);
    }
    for_each_child_slot(n, [&](Node*& c) { c = fold_ifs(c); });
    return n;
  }

  Node* letrec(LetNode* l) {
    for (Node*& i : l->inits) i = run(i);
    l->body = run(l->body);
    // Live bindings: those the body reaches, directly or through other live bindings.
    size_t n = l->vars.size();
    std::vector<bool> live(n, false);
    bool changed = true;
    for (size_t k = 0; k < n; k++)
      if (occurs(l->body, l->vars[k]) || l->vars[k]->assigned || !droppable(l->inits[k])) live[k] = true;
    while (changed) {
      changed = false;
      for (size_t k = 0; k < n; k++) {
        if (!live[k]) continue;
        for (size_t j = 0; j < n; j++)
          if (!live[j] && occurs(l->inits[k], l->vars[j])) {
            live[j] = true;
            changed = true;
          }
      }
    }
    gc_vector<Var*> vars;
    gc_vector<Node*> inits;
    for (size_t k = 0; k < n; k++)
      if (live[k]) {
        vars.push_back(l->vars[k]);
        inits.push_back(l->inits[k]);
      }
    if (vars.empty()) return l->body;
    l->vars = vars;
    l->inits = inits;
    return l;
  }

  Node* seq(SeqNode* s) {
    gc_vector<Node*> out;
    for (size_t k = 0; k < s->exprs.size(); k++) {
      Node* e = run(s->exprs[k]);
      bool last = k + 1 == s->exprs.size();
      if (!last && droppable(e)) {
        uncount(e, uses_);
        changed = true;
        continue;
      }
      if (e->kind == NodeKind::Seq && !last) {
        for (Node* x : static_cast<SeqNode*>(e)->exprs) out.push_back(x);
      } else if (e->kind == NodeKind::Seq) {
        for (Node* x : static_cast<SeqNode*>(e)->exprs) out.push_back(x);
      } else {
        out.push_back(e);
      }
    }
    // (begin ... (set! x v) #!unspecified): the assignment's value is already unspecified.
    if (out.size() >= 2 && out.back()->kind == NodeKind::Const &&
        static_cast<ConstNode*>(out.back())->value == kUnspecified &&
        (out[out.size() - 2]->kind == NodeKind::LocalSet || out[out.size() - 2]->kind == NodeKind::GlobalSet))
      out.pop_back();
    if (out.size() == 1) return out[0];
    s->exprs = out;
    return s;
  }
};

// ---- helpers: inlining and dead parameters -----------------------------------------------------

struct CallSite {
  Node** slot;      // where the call sits (valid until something resizes the vector holding it)
  CallNode* call;   // the call itself (stable)
  Var* helper;
};

void find_calls(Node*& slot, const std::unordered_set<Var*>& helpers, std::vector<CallSite>& out,
                std::unordered_map<Var*, int>& refs) {
  Node* n = slot;
  if (n->kind == NodeKind::LocalRef) {
    Var* v = static_cast<LocalRefNode*>(n)->var;
    if (helpers.count(v)) refs[v]++;
    return;
  }
  if (n->kind == NodeKind::Call) {
    auto* c = static_cast<CallNode*>(n);
    if (c->fn->kind == NodeKind::LocalRef) {
      Var* v = static_cast<LocalRefNode*>(c->fn)->var;
      if (helpers.count(v)) out.push_back(CallSite{&slot, c, v});
    }
  }
  for_each_child_slot(n, [&](Node*& c) { find_calls(c, helpers, out, refs); });
}

bool round(LambdaNode* root, gc_vector<Helper>& helpers) {
  bool changed = false;
  std::unordered_set<Var*> hset;
  std::unordered_map<Var*, LambdaNode*> code;
  for (Helper& h : helpers) {
    hset.insert(h.var);
    code[h.var] = h.code;
  }
  // References and call sites, per place the code lives (root clauses, each helper).
  std::vector<CallSite> root_calls;
  std::unordered_map<Var*, int> refs;
  for (LambdaClause* c : root->clauses) find_calls(c->body, hset, root_calls, refs);
  std::unordered_map<Var*, std::vector<CallSite>> calls_in;  // helper -> call sites in its body
  std::unordered_map<Var*, int> refs_in_helpers;
  for (Helper& h : helpers) {
    std::unordered_map<Var*, int> r;
    find_calls(h.code->clauses[0]->body, hset, calls_in[h.var], r);
    for (auto& [v, n] : r) refs[v] += n;
  }
  // Reachability from the root.
  std::unordered_set<Var*> reached;
  std::vector<Var*> work;
  for (CallSite& c : root_calls)
    if (reached.insert(c.helper).second) work.push_back(c.helper);
  auto callees = [&](Var* h) {
    std::unordered_set<Var*> out;
    for (CallSite& c : calls_in[h]) out.insert(c.helper);
    // Helpers referenced other than as callees (never made by the evaluator, but be safe).
    return out;
  };
  while (!work.empty()) {
    Var* h = work.back();
    work.pop_back();
    for (Var* x : callees(h))
      if (reached.insert(x).second) work.push_back(x);
  }
  // On a cycle: reachable from itself.
  auto on_cycle = [&](Var* h) {
    std::unordered_set<Var*> seen;
    std::vector<Var*> w;
    for (Var* x : callees(h)) w.push_back(x);
    while (!w.empty()) {
      Var* x = w.back();
      w.pop_back();
      if (x == h) return true;
      if (!seen.insert(x).second) continue;
      for (Var* y : callees(x)) w.push_back(y);
    }
    return false;
  };
  // Sites by helper (any location).
  std::unordered_map<Var*, std::vector<CallSite>> sites;
  for (CallSite& c : root_calls) sites[c.helper].push_back(c);
  for (auto& [h, cs] : calls_in)
    if (reached.count(h))
      for (CallSite& c : cs) sites[c.helper].push_back(c);

  gc_vector<Helper> kept;
  for (Helper& h : helpers) {
    if (!reached.count(h.var)) {
      changed = true;
      continue;
    }
    auto& s = sites[h.var];
    LambdaClause* cl = h.code->clauses[0];
    if (refs[h.var] == 1 && s.size() == 1 && !on_cycle(h.var)) {
      CallNode* call = s[0].call;
      if (*s[0].slot == call && call->args.size() == cl->params.size() && !cl->rest) {
        LetNode* let = gc_new<LetNode>(NodeKind::Let, call->loc);
        let->vars = cl->params;
        let->inits = call->args;
        let->body = cl->body;
        *s[0].slot = let;
        changed = true;
        continue;
      }
    }
    kept.push_back(h);
  }
  helpers = kept;

  // Dead parameters.
  UseMap uses;
  for (LambdaClause* c : root->clauses) count_uses(c->body, uses);
  for (Helper& h : helpers) count_uses(h.code->clauses[0]->body, uses);
  for (Helper& h : helpers) {
    LambdaClause* cl = h.code->clauses[0];
    auto& s = sites[h.var];
    bool all_calls = int(s.size()) == refs[h.var];
    if (!all_calls) continue;
    for (size_t k = cl->params.size(); k-- > 0;) {
      if (uses[cl->params[k]] != 0) continue;
      bool ok = true;
      for (CallSite& c : s)
        if (c.call->args.size() != cl->params.size() || !droppable(c.call->args[k])) ok = false;
      if (!ok) continue;
      for (CallSite& c : s) c.call->args.erase(c.call->args.begin() + long(k));
      cl->params.erase(cl->params.begin() + long(k));
      changed = true;
    }
  }
  // Invariant parameters (lambda dropping): the helpers are bound inside the root lambda, so a
  // parameter that always holds the same root parameter or constant — every call passes that
  // value, or a parameter of the calling helper that itself always holds it — can read the value
  // directly. Solved as a fixpoint over the call sites (mutually recursive helpers pass such
  // values around each other).
  if (root->clauses.size() == 1) {
    LambdaClause* rc = root->clauses[0];
    std::unordered_set<Var*> outer(rc->params.begin(), rc->params.end());
    if (rc->rest) outer.insert(rc->rest);
    struct Slot {
      Node* value = nullptr;  // the outer value it holds
      bool dead = false;
    };
    std::unordered_map<Var*, Slot> slot;  // helper parameter -> what it holds
    std::unordered_set<Var*> usable;      // helpers whose every reference is a call
    for (Helper& h : helpers) {
      if (int(sites[h.var].size()) != refs[h.var] || sites[h.var].empty()) continue;
      usable.insert(h.var);
      for (Var* p : h.code->clauses[0]->params) slot[p];
    }
    auto same_value = [](Node* a, Node* b) {
      if (a->kind != b->kind) return false;
      if (a->kind == NodeKind::Const) return static_cast<ConstNode*>(a)->value == static_cast<ConstNode*>(b)->value;
      return static_cast<LocalRefNode*>(a)->var == static_cast<LocalRefNode*>(b)->var;
    };
    for (bool again = true; again;) {
      again = false;
      for (Helper& h : helpers) {
        if (!usable.count(h.var)) continue;
        LambdaClause* cl = h.code->clauses[0];
        for (CallSite& c : sites[h.var]) {
          for (size_t k = 0; k < cl->params.size(); k++) {
            Slot& to = slot[cl->params[k]];
            if (to.dead) continue;
            if (c.call->args.size() != cl->params.size()) {
              to.dead = again = true;
              continue;
            }
            Node* a = c.call->args[k];
            Node* v = nullptr;
            if (a->kind == NodeKind::Const ||
                (a->kind == NodeKind::LocalRef && outer.count(static_cast<LocalRefNode*>(a)->var))) {
              v = a;
            } else if (a->kind == NodeKind::LocalRef && slot.count(static_cast<LocalRefNode*>(a)->var)) {
              Var* from = static_cast<LocalRefNode*>(a)->var;
              if (from == cl->params[k]) continue;  // passed along unchanged
              Slot& fs = slot[from];
              if (fs.dead) {
                to.dead = again = true;
                continue;
              }
              if (!fs.value) continue;  // not known yet
              v = fs.value;
            } else {
              to.dead = again = true;
              continue;
            }
            if (!to.value) {
              to.value = v;
              again = true;
            } else if (!same_value(to.value, v)) {
              to.dead = again = true;
            }
          }
        }
      }
    }
    for (Helper& h : helpers) {
      if (!usable.count(h.var)) continue;
      LambdaClause* cl = h.code->clauses[0];
      for (size_t k = cl->params.size(); k-- > 0;) {
        Slot& sl = slot[cl->params[k]];
        if (sl.dead || !sl.value) continue;
        for (Helper& g : helpers) substitute_all(g.code->clauses[0]->body, cl->params[k], sl.value);
        for (CallSite& c : sites[h.var]) c.call->args.erase(c.call->args.begin() + long(k));
        cl->params.erase(cl->params.begin() + long(k));
        changed = true;
      }
    }
  }
  return changed;
}

// ---- tiny helpers: copied into every call site -------------------------------------------------

// Nodes in n, stopping early past `limit`; false when n binds variables (a copy would rebind them).
bool tiny(Node* n, int& budget) {
  if (--budget < 0) return false;
  if (n->kind == NodeKind::Let || n->kind == NodeKind::Letrec || n->kind == NodeKind::Lambda ||
      n->kind == NodeKind::LocalSet)
    return false;
  bool ok = true;
  for_each_child_slot(n, [&](Node*& c) { ok = ok && tiny(c, budget); });
  return ok;
}

// Inlines, one at a time, helpers whose body is tiny and binder-free into all their call sites.
bool inline_tiny(LambdaNode* root, gc_vector<Helper>& helpers) {
  bool changed = false;
  for (size_t guard = 0; guard <= helpers.size() + 1; guard++) {
    std::unordered_set<Var*> hset;
    for (Helper& h : helpers) hset.insert(h.var);
    std::vector<CallSite> sites;
    std::unordered_map<Var*, int> refs;
    for (LambdaClause* c : root->clauses) find_calls(c->body, hset, sites, refs);
    for (Helper& h : helpers) find_calls(h.code->clauses[0]->body, hset, sites, refs);
    size_t pick = helpers.size();
    for (size_t k = 0; k < helpers.size() && pick == helpers.size(); k++) {
      Helper& h = helpers[k];
      LambdaClause* cl = h.code->clauses[0];
      int budget = int(kInlineBodyLimit);
      if (cl->rest || occurs(cl->body, h.var) || !tiny(cl->body, budget)) continue;
      int n = 0;
      for (CallSite& c : sites) n += c.helper == h.var;
      if (n != refs[h.var]) continue;
      bool arity = true;
      for (CallSite& c : sites)
        if (c.helper == h.var && c.call->args.size() != cl->params.size()) arity = false;
      if (arity) pick = k;
    }
    if (pick == helpers.size()) break;
    Helper h = helpers[pick];
    LambdaClause* cl = h.code->clauses[0];
    for (CallSite& c : sites) {
      if (c.helper != h.var) continue;
      // A copy of the helper with fresh parameters; its body has no binders (tiny).
      auto* copy = static_cast<LambdaNode*>(copy_with_fresh_vars(h.code));
      if (!copy) continue;  // too deep to copy: the call stays
      LetNode* let = gc_new<LetNode>(NodeKind::Let, c.call->loc);
      let->vars = copy->clauses[0]->params;
      let->inits = c.call->args;
      let->body = copy->clauses[0]->body;
      *c.slot = let;
    }
    helpers.erase(helpers.begin() + long(pick));
    changed = true;
  }
  return changed;
}

bool simplify_all(PeState& st, LambdaNode* root, gc_vector<Helper>& helpers) {
  UseMap uses;
  for (LambdaClause* c : root->clauses) count_uses(c->body, uses);
  for (Helper& h : helpers) count_uses(h.code->clauses[0]->body, uses);
  Simplifier s(uses, st);
  for (LambdaClause* c : root->clauses) c->body = s.run(c->body);
  for (Helper& h : helpers) h.code->clauses[0]->body = s.run(h.code->clauses[0]->body);
  return s.changed;
}


// Every walk here recurses over the code: each round starts only while the code is within the
// depth the toolkit's guarded walks reach (inlining a helper nests its body deeper).
bool shallow_enough(LambdaNode* root, const gc_vector<Helper>& helpers) {
  bool ok = for_each_node(root, [](Node*) {});
  for (const Helper& h : helpers) ok = ok && for_each_node(h.code, [](Node*) {});
  return ok;
}

}  // namespace

void cleanup_residual(PeState& st, LambdaNode* root, gc_vector<Helper>& helpers) {
  t_core = st.core;
  for (int r = 0; r < kCleanupRounds; r++) {
    if (!shallow_enough(root, helpers)) break;
    bool changed = round(root, helpers);
    changed = inline_tiny(root, helpers) || changed;
    for (int k = 0; k < kCleanupRounds && simplify_all(st, root, helpers); k++) changed = true;
    if (!changed) break;
  }
}

}  // namespace quasi::pe
