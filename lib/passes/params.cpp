// params.cpp — the params pass: dead and invariant parameters of known procedures.
//
// A *known procedure* is a variable bound by let or letrec to a one-clause lambda without a rest
// parameter, never assigned, every reference of which is the operator of a call with as many
// operands as it has parameters. Its parameters can change without anyone noticing:
//
//  - invariant: every call passes the same value for a parameter — a constant, a variable bound
//    (and never assigned) outside the binding of the procedure, or a parameter of a known
//    procedure that is itself invariant with that value (loops pass it along). References become
//    that value and the parameter goes (lambda dropping; the partial evaluator's helpers pass the
//    residual procedure's parameters around, a named-let loop its invariants);
//  - dead: no reference of the parameter survives. A reference counts unless it sits in an
//    operand that is dropped — the operand for a parameter that goes, at a call of a known
//    procedure — so a value only passed along a loop, or used only to compute the next value of
//    such a parameter, is dead. An operand is dropped only when it is pure (ir/util.hpp:
//    is_pure: no effect, cannot raise); a parameter some call passes an impure operand stays.
//
// Both are fixpoints over the call sites, so mutually recursive procedures are handled. The pass
// never changes what runs: dropped operands are pure, substituted values are atoms that hold the
// same value wherever the parameter is read.
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/functor.hpp"
#include "ir/util.hpp"
#include "passes/pass_manager.hpp"

namespace quasi {

namespace {

struct Proc {
  LambdaNode* lam = nullptr;
  uint32_t binder = 0;          // preorder number of the let/letrec that binds it
  std::vector<CallNode*> calls;  // every reference is one of these calls' operator
  bool known = true;
};

// A parameter of a known procedure: (procedure variable, position).
struct Param {
  Var* proc;
  size_t index;
};

// First walk: binders (preorder numbers), candidate procedures and their references.
class Survey : public ExprVisitor {
 public:
  std::unordered_map<Var*, Proc> procs;
  std::unordered_map<Var*, uint32_t> binder_of;  // variable -> preorder number of its binder

  void visit(Node* n) override {
    if (n->kind == NodeKind::Lambda || n->kind == NodeKind::Let || n->kind == NodeKind::Letrec) counter_++;
    ExprVisitor::visit(n);
  }
  void visit_lambda(LambdaNode* n) override {
    uint32_t me = counter_;
    for (LambdaClause* c : n->clauses) {
      for (Var* p : c->params) binder_of[p] = me;
      if (c->rest) binder_of[c->rest] = me;
    }
    ExprVisitor::visit_lambda(n);
  }
  void visit_let(LetNode* n) override {
    note(n);
    ExprVisitor::visit_let(n);
  }
  void visit_letrec(LetNode* n) override {
    note(n);
    ExprVisitor::visit_letrec(n);
  }
  void visit_call(CallNode* n) override {
    if (n->fn->kind == NodeKind::LocalRef) {
      Var* f = static_cast<LocalRefNode*>(n->fn)->var;
      auto it = procs.find(f);
      if (it != procs.end()) {
        LambdaClause* c = it->second.lam->clauses[0];
        if (c->params.size() == n->args.size()) it->second.calls.push_back(n);
        else it->second.known = false;
        for (Node* a : n->args) visit(a);
        return;
      }
    }
    ExprVisitor::visit_call(n);
  }
  void visit_local_ref(LocalRefNode* n) override {
    // A reference that is not a call's operator (visit_call does not come here for those).
    auto it = procs.find(n->var);
    if (it != procs.end()) it->second.known = false;
  }

 private:
  uint32_t counter_ = 0;
  void note(LetNode* n) {
    uint32_t me = counter_;
    for (size_t i = 0; i < n->vars.size(); i++) {
      Var* v = n->vars[i];
      binder_of[v] = me;
      if (v->assigned || n->inits[i]->kind != NodeKind::Lambda) continue;
      auto* lam = static_cast<LambdaNode*>(n->inits[i]);
      if (lam->clauses.size() != 1 || lam->clauses[0]->rest) continue;
      Proc p;
      p.lam = lam;
      p.binder = me;
      procs[v] = p;
    }
  }
};

// Second walk: for each reference of a parameter of a known procedure, the innermost operand of a
// known call it sits in (or none).
class Carried : public ExprVisitor {
 public:
  Carried(const std::unordered_map<Var*, Proc>& procs, const std::unordered_map<Var*, Param>& param_of)
      : procs_(procs), param_of_(param_of) {}
  // param -> operands (proc, index) its references sit in; a free reference makes it `used`.
  std::unordered_map<Var*, std::vector<Param>> carried_into;
  std::unordered_set<Var*> used;

  void visit_call(CallNode* n) override {
    if (n->fn->kind == NodeKind::LocalRef) {
      Var* f = static_cast<LocalRefNode*>(n->fn)->var;
      auto it = procs_.find(f);
      if (it != procs_.end() && it->second.known) {
        for (size_t k = 0; k < n->args.size(); k++) {
          stack_.push_back(Param{f, k});
          visit(n->args[k]);
          stack_.pop_back();
        }
        return;
      }
    }
    ExprVisitor::visit_call(n);
  }
  void visit_local_ref(LocalRefNode* n) override {
    if (!param_of_.count(n->var)) return;
    if (stack_.empty()) used.insert(n->var);
    else carried_into[n->var].push_back(stack_.back());
  }
  void visit_local_set(LocalSetNode* n) override {
    used.insert(n->var);
    ExprVisitor::visit_local_set(n);
  }

 private:
  const std::unordered_map<Var*, Proc>& procs_;
  const std::unordered_map<Var*, Param>& param_of_;
  std::vector<Param> stack_;
};

bool same_atom(Node* a, Node* b) {
  if (a->kind != b->kind) return false;
  if (a->kind == NodeKind::Const) return static_cast<ConstNode*>(a)->value == static_cast<ConstNode*>(b)->value;
  return static_cast<LocalRefNode*>(a)->var == static_cast<LocalRefNode*>(b)->var;
}

Node* copy_atom(Node* a, SrcLoc loc) {
  if (a->kind == NodeKind::Const) return gc_new<ConstNode>(static_cast<ConstNode*>(a)->value, loc);
  return gc_new<LocalRefNode>(static_cast<LocalRefNode*>(a)->var, loc);
}

class Rewriter : public ExprMutator {
 public:
  std::unordered_map<Var*, Proc>* procs = nullptr;
  std::unordered_map<LambdaNode*, Var*> proc_of_lambda;
  std::unordered_set<Var*> removed;           // parameters that go
  TracedMap<Var*, Node*> value_of;            // invariant parameter -> its atom

  Node* visit_local_ref(LocalRefNode* n) override {
    auto it = value_of.find(n->var);
    return it == value_of.end() ? n : copy_atom(it->second, n->loc);
  }
  Node* visit_lambda(LambdaNode* n) override {
    auto it = proc_of_lambda.find(n);
    if (it == proc_of_lambda.end()) return ExprMutator::visit_lambda(n);
    LambdaClause* c = n->clauses[0];
    LambdaClause* out = gc_new<LambdaClause>();
    for (Var* p : c->params)
      if (!removed.count(p)) out->params.push_back(p);
    out->body = visit(c->body);
    if (out->params.size() == c->params.size() && out->body == c->body) return n;
    LambdaNode* lam = gc_new<LambdaNode>(n->name, n->loc);
    lam->clauses.push_back(out);
    return lam;
  }
  Node* visit_call(CallNode* n) override {
    if (n->fn->kind != NodeKind::LocalRef) return ExprMutator::visit_call(n);
    auto it = procs->find(static_cast<LocalRefNode*>(n->fn)->var);
    if (it == procs->end() || !it->second.known) return ExprMutator::visit_call(n);
    LambdaClause* c = it->second.lam->clauses[0];
    CallNode* out = gc_new<CallNode>(n->fn, n->loc);
    bool changed = false;
    for (size_t k = 0; k < n->args.size(); k++) {
      if (removed.count(c->params[k])) {
        changed = true;
        continue;
      }
      Node* a = visit(n->args[k]);
      changed = changed || a != n->args[k];
      out->args.push_back(a);
    }
    return changed ? out : n;
  }
};

Node* run_params(Node* root, Environment* core) {
  Survey survey;
  survey.visit(root);
  // An incomplete survey could miss a reference that makes a procedure unknown.
  if (survey.truncated()) return root;
  std::unordered_map<Var*, Param> param_of;
  for (auto& [f, p] : survey.procs) {
    if (!p.known || p.calls.empty()) continue;
    LambdaClause* c = p.lam->clauses[0];
    for (size_t k = 0; k < c->params.size(); k++) param_of[c->params[k]] = Param{f, k};
  }
  if (param_of.empty()) return root;
  auto param_var = [&](const Param& q) { return survey.procs.at(q.proc).lam->clauses[0]->params[q.index]; };

  // ---- invariant parameters: an optimistic fixpoint (unknown until a call says otherwise) ----
  enum class State : uint8_t { kUnknown, kAtom, kVarying };
  struct Inv {
    State state = State::kUnknown;
    Node* atom = nullptr;
  };
  std::unordered_map<Var*, Inv> inv;
  // An atom a call passes is usable for f when it is in scope where f is bound.
  auto outer_atom = [&](Node* a, const Proc& f) -> bool {
    if (a->kind == NodeKind::Const) return true;
    if (a->kind != NodeKind::LocalRef) return false;
    Var* v = static_cast<LocalRefNode*>(a)->var;
    if (v->assigned) return false;
    auto b = survey.binder_of.find(v);
    return b != survey.binder_of.end() && b->second < f.binder;
  };
  for (bool again = true; again;) {
    again = false;
    for (auto& [f, p] : survey.procs) {
      if (!p.known || p.calls.empty()) continue;
      LambdaClause* c = p.lam->clauses[0];
      for (CallNode* call : p.calls)
        for (size_t k = 0; k < c->params.size(); k++) {
          Inv& to = inv[c->params[k]];
          if (to.state == State::kVarying) continue;
          if (c->params[k]->assigned) {  // holds other values after an assignment
            to.state = State::kVarying;
            again = true;
            continue;
          }
          Node* a = call->args[k];
          Node* value = nullptr;
          bool varying = false;
          if (a->kind == NodeKind::LocalRef && param_of.count(static_cast<LocalRefNode*>(a)->var)) {
            Var* from = static_cast<LocalRefNode*>(a)->var;
            if (from == c->params[k]) continue;  // passed along unchanged
            Inv& fs = inv[from];
            if (fs.state == State::kUnknown) continue;  // not known yet
            if (fs.state == State::kVarying || !outer_atom(fs.atom, p)) varying = true;
            else value = fs.atom;
          } else if (outer_atom(a, p)) {
            value = a;
          } else {
            varying = true;
          }
          if (!varying && to.state == State::kAtom && !same_atom(to.atom, value)) varying = true;
          if (varying) {
            to.state = State::kVarying;
            again = true;
          } else if (to.state == State::kUnknown) {
            to.state = State::kAtom;
            to.atom = value;
            again = true;
          }
        }
    }
  }

  Rewriter rw;
  rw.procs = &survey.procs;
  for (auto& [v, s] : inv)
    if (s.state == State::kAtom) {
      rw.value_of[v] = s.atom;
      rw.removed.insert(v);
    }

  // ---- dead parameters: kept = used, or fed an impure operand, or carried into a kept one ----
  Carried carried(survey.procs, param_of);
  carried.visit(root);
  if (carried.truncated()) return root;
  std::unordered_set<Var*> kept;
  std::vector<Var*> work;
  auto keep = [&](Var* p) {
    if (rw.removed.count(p)) return;  // invariant: its references become the atom
    if (kept.insert(p).second) work.push_back(p);
  };
  for (Var* p : carried.used) keep(p);
  for (auto& [f, p] : survey.procs) {
    if (!p.known || p.calls.empty()) continue;
    LambdaClause* c = p.lam->clauses[0];
    for (CallNode* call : p.calls)
      for (size_t k = 0; k < c->params.size(); k++)
        if (!is_pure(call->args[k], core)) keep(c->params[k]);
  }
  // Reverse edges: parameter q -> parameters whose references sit in q's operands.
  std::unordered_map<Var*, std::vector<Var*>> feeds;
  for (auto& [p, into] : carried.carried_into)
    for (const Param& q : into) feeds[param_var(q)].push_back(p);
  while (!work.empty()) {
    Var* q = work.back();
    work.pop_back();
    for (Var* p : feeds[q]) keep(p);
  }
  for (auto& [p, where] : param_of)
    if (!kept.count(p)) rw.removed.insert(p);
  if (rw.removed.empty()) return root;
  for (auto& [f, p] : survey.procs)
    if (p.known && !p.calls.empty()) rw.proc_of_lambda[p.lam] = f;
  return rw.visit(root);
}

}  // namespace

Pass params_pass() {
  Pass p;
  p.name = "params";
  p.level = 2;
  p.description = "drop dead and invariant parameters of let/letrec-bound procedures only called directly";
  p.run = [](Node* ir, PassContext& ctx) { return run_params(ir, ctx.core); };
  return p;
}

}  // namespace quasi
