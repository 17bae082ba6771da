// forward.cpp — the forward pass: a let-bound expression used exactly once moves to its use.
//
// (let ((t (f x))) (+ t 1)) is (+ (f x) 1): the binding goes and its init takes the place of the
// one reference, when that reference is the first thing evaluated after the binding that could
// tell the difference. Walking the code that follows the binding in evaluation order, the move
// is allowed only if everything evaluated before the reference is *inert*: it has no effect,
// cannot raise, and does not read anything an effect could change (constants, references to
// variables that are never assigned, bound cells of the core environment, lambdas that do not
// mention the variable, calls of quiet primitives on such operands). Inert code commutes with
// any expression, so the init still runs exactly once, in the same order relative to every
// effect and error. The reference must not be inside a lambda (it would run at another time, or
// never, or many times) nor in a branch of an `if` (it might not run): the walk stops at the
// first `if` test, call, assignment or lambda that mentions the variable.
//
// One exception to "inert commutes with anything": an init that may return more than once (it
// calls something that may capture a continuation, later re-entered) must not move past a fresh
// allocation (an allocating primitive's call, a lambda). In the original every return makes a new
// object; moved, the object is made once and every re-entry shares it (eq?, mutations).
//
// Two rewrites that read better ride along: the value of a `begin` that ends with an assignment
// followed by the unspecified value is the assignment; and in residual code only, cons chains
// become list forms, (cons a (cons b '())) -> (list a b), the same fresh pairs. Not in code the
// user wrote: a call of list there would follow a later definition of list, and no longer one of
// cons, which the program names. A residual is never moved to new cells (a later define of list
// leaves its list the built-in), and a define of a core procedure it read invalidates it: it
// calls its original from then on (lib/pe/README.md, "Globals"), so there the two are the same.
//
// The partial evaluator's residual code is let-inserted (every computation bound to a variable
// where the original computes it); this pass is what turns it back into nested expressions.
// The decisions are made on the input tree; each move is justified there, and a move into a
// place that another move filled keeps the order argument (what it passes over is inert).
#include <unordered_map>

#include "ir/functor.hpp"
#include "core/procedure.hpp"
#include "eval/environment.hpp"
#include "ir/util.hpp"
#include "passes/pass_manager.hpp"

namespace quasi {

namespace {

enum class Scan { kContinue, kFound, kBlocked };

// Whether evaluating `n` may return more than once: it calls a procedure or a control primitive
// (call/cc, apply, eval, ...), which may capture a continuation that is re-entered later. Other
// primitives cannot: one that calls back into Scheme (a hash table's hash function) does so in a
// nested run, whose continuations do not return into the primitive once it has returned.
// Conservative: an unknown shape counts.
bool may_return_twice(Node* n, Environment* core) {
  bool twice = false;
  bool complete = for_each_node(n, [&](Node* x) {
    if (twice) return;
    if (x->kind == NodeKind::Call) {
      const gc_vector<Node*>* args = nullptr;
      Primitive* p = called_primitive(x, core, &args);
      twice = !p || (p->flags & kVmSpecial);
    } else if (x->kind == NodeKind::PrimCall) {
      twice = static_cast<PrimCallNode*>(x)->prim.as<Primitive>()->flags & kVmSpecial;
    }
  });
  return twice || !complete;
}

// Finds the single reference of `v` if it is reached in evaluation order before anything that is
// not inert; `at` is then the node to replace.
class FirstUse : public ExprFunctor<Scan(Node*)> {
 public:
  // `init_returns_twice`: the moved init may return more than once (see the header).
  FirstUse(Var* v, Environment* core, bool init_returns_twice)
      : v_(v), core_(core), init_returns_twice_(init_returns_twice) {}
  LocalRefNode* at = nullptr;
  bool operator_position = false;  // the reference found is a call's operator

  Scan visit(Node* n) override {
    if (++steps_ > kMaxSteps || depth_ > kMaxPassDepth || stack_exhausted()) return Scan::kBlocked;
    depth_++;
    Scan r = ExprFunctor::visit(n);
    depth_--;
    return r;
  }
  Scan visit_const(ConstNode*) override { return Scan::kContinue; }
  Scan visit_local_ref(LocalRefNode* n) override {
    if (n->var == v_) {
      at = n;
      return Scan::kFound;
    }
    return n->var->assigned ? Scan::kBlocked : Scan::kContinue;
  }
  Scan visit_global_ref(GlobalRefNode* n) override {
    GlobalCell* c = n->cell.as<GlobalCell>();
    bool constant = core_ && cell_owned_by(c, core_) && c->value != kUnbound && is_procedure(c->value);
    return constant ? Scan::kContinue : Scan::kBlocked;
  }
  Scan visit_lambda(LambdaNode* n) override {
    return mentions(n) || init_returns_twice_ ? Scan::kBlocked : Scan::kContinue;
  }
  Scan visit_call(CallNode* c) override {
    Scan r = visit(c->fn);
    if (r == Scan::kFound && at == c->fn) operator_position = true;
    for (size_t i = 0; r == Scan::kContinue && i < c->args.size(); i++) r = visit(c->args[i]);
    if (r != Scan::kContinue) return r;
    const gc_vector<Node*>* args = nullptr;
    Primitive* p = called_primitive(c, core_, &args);
    return p && passable(p, c->args.size()) ? Scan::kContinue : Scan::kBlocked;
  }
  Scan visit_prim_call(PrimCallNode* c) override {
    Scan r = Scan::kContinue;
    for (size_t i = 0; r == Scan::kContinue && i < c->args.size(); i++) r = visit(c->args[i]);
    if (r != Scan::kContinue) return r;
    const Primitive* p = c->prim.as<Primitive>();
    return passable(p, c->args.size()) ? Scan::kContinue : Scan::kBlocked;
  }
  Scan visit_if(IfNode* n) override { return stop_after(visit(n->test)); }
  Scan visit_let(LetNode* l) override {
    for (Node* i : l->inits) {
      Scan r = visit(i);
      if (r != Scan::kContinue) return r;
    }
    return visit(l->body);
  }
  Scan visit_letrec(LetNode* l) override { return visit_let(l); }
  Scan visit_seq(SeqNode* n) override {
    for (Node* e : n->exprs) {
      Scan r = visit(e);
      if (r != Scan::kContinue) return r;
    }
    return Scan::kContinue;
  }
  Scan visit_local_set(LocalSetNode* n) override { return stop_after(visit(n->value)); }
  Scan visit_global_set(GlobalSetNode* n) override { return stop_after(visit(n->value)); }

 private:
  // A long inert prefix is rare; the bound keeps the pass linear in practice on huge bodies.
  static constexpr int kMaxSteps = 4096;
  Var* v_;
  Environment* core_;
  bool init_returns_twice_;
  int steps_ = 0;
  int depth_ = 0;

  static Scan stop_after(Scan r) { return r == Scan::kContinue ? Scan::kBlocked : r; }
  bool passable(const Primitive* p, size_t nargs) const {
    return quiet_primitive(p) && arity_ok(p, nargs) && !(init_returns_twice_ && (p->flags & kAllocates));
  }
  bool mentions(Node* n) {
    bool found = false;
    bool complete = for_each_node(n, [&](Node* x) {
      if (x->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(x)->var == v_) found = true;
    });
    return found || !complete;
  }
};

class Forward : public ExprMutator {
 public:
  Forward(Environment* core, bool list_forms) : core_(core), list_forms_(list_forms) {}

  Node* run(Node* root) {
    bool complete = for_each_node(root, [&](Node* n) {
      if (n->kind == NodeKind::LocalRef) uses_[static_cast<LocalRefNode*>(n)->var]++;
    });
    // A use count that missed part of the tree could call a variable with two uses "used once".
    if (!complete) return root;
    return visit(root);
  }

  Node* visit_local_ref(LocalRefNode* n) override {
    auto it = moved_.find(n);
    // The init is visited here, at its new place (it is placed exactly once).
    return it == moved_.end() ? n : visit(it->second);
  }

  Node* visit_let(LetNode* n) override {
    // Decided on the input: which bindings move to their one reference.
    std::vector<bool> gone(n->vars.size(), false);
    bool any_gone = false;
    for (size_t k = 0; k < n->vars.size(); k++) {
      Var* v = n->vars[k];
      if (v->assigned || uses_[v] != 1) continue;
      // What follows the binding in evaluation order: the later inits, then the body.
      FirstUse fu(v, core_, may_return_twice(n->inits[k], core_));
      Scan r = Scan::kContinue;
      for (size_t j = k + 1; r == Scan::kContinue && j < n->inits.size(); j++) r = fu.visit(n->inits[j]);
      if (r == Scan::kContinue) r = fu.visit(n->body);
      if (r != Scan::kFound) continue;
      // A lambda moved to be called where it is bound is inlining, inline-small's decision.
      if (n->inits[k]->kind == NodeKind::Lambda && fu.operator_position) continue;
      moved_[fu.at] = n->inits[k];
      gone[k] = any_gone = true;
    }
    if (!any_gone) return ExprMutator::visit_let(n);
    LetNode* out = gc_new<LetNode>(NodeKind::Let, n->loc);
    for (size_t k = 0; k < n->vars.size(); k++) {
      if (gone[k]) continue;
      out->vars.push_back(n->vars[k]);
      out->inits.push_back(visit(n->inits[k]));
    }
    Node* body = visit(n->body);
    if (out->vars.empty()) return body;
    out->body = body;
    return out;
  }

  Node* visit_call(CallNode* n) override {
    // ((letrec* ((f (lambda ...)) ...) f) e ...) is (letrec* ((f (lambda ...)) ...) (f e ...)), the
    // shape of a named let: evaluating the operator runs nothing (its inits are lambdas), and the
    // operands cannot see the letrec's variables (each Var has one binder). Then f is known.
    if (n->fn->kind == NodeKind::Letrec) {
      auto* rec = static_cast<LetNode*>(n->fn);
      bool inert = rec->body->kind == NodeKind::LocalRef;
      for (Node* i : rec->inits) inert = inert && i->kind == NodeKind::Lambda;
      if (inert) {
        LetNode* out = gc_new<LetNode>(NodeKind::Letrec, rec->loc);
        out->vars = rec->vars;
        bool changed = false;
        out->inits = visit_all(rec->inits, &changed);
        CallNode* call = gc_new<CallNode>(rec->body, n->loc);
        call->args = visit_all(n->args, &changed);
        out->body = call;
        return out;
      }
    }
    return list_form(ExprMutator::visit_call(n));
  }
  Node* visit_prim_call(PrimCallNode* n) override { return list_form(ExprMutator::visit_prim_call(n)); }

  Node* visit_seq(SeqNode* n) override {
    Node* out = ExprMutator::visit_seq(n);
    if (out->kind != NodeKind::Seq) return out;
    auto& xs = static_cast<SeqNode*>(out)->exprs;
    // (begin ... (set! x v) <unspecified>): an assignment's value is already the unspecified value.
    size_t k = xs.size();
    if (k >= 2 && xs[k - 1]->kind == NodeKind::Const && static_cast<ConstNode*>(xs[k - 1])->value == kUnspecified &&
        (xs[k - 2]->kind == NodeKind::LocalSet || xs[k - 2]->kind == NodeKind::GlobalSet)) {
      gc_vector<Node*> kept(xs.begin(), xs.end() - 1);
      return make_seq(kept, out->loc);
    }
    return out;
  }

 private:
  Environment* core_;
  bool list_forms_;
  std::unordered_map<Var*, int64_t> uses_;
  TracedMap<LocalRefNode*, Node*> moved_;  // the one reference of a moved binding -> its init

  // The list primitive (by its facts), or null.
  Primitive* list_prim() {
    if (!list_prim_checked_) {
      list_prim_checked_ = true;
      if (core_)
        for (auto& [sym, binding] : *core_->table) {
          if (!has_type(binding, Type::GlobalCell)) continue;
          GlobalCell* cell = binding.as<GlobalCell>();
          if (cell_owned_by(cell, core_) && is_primitive(cell->value) &&
              cell->value.as<Primitive>()->facts.structure == Structure::kList) {
            list_cell_ = binding;
            break;
          }
        }
    }
    return list_cell_.is_true() ? list_cell_.as<GlobalCell>()->value.as<Primitive>() : nullptr;
  }
  bool list_prim_checked_ = false;
  Value list_cell_ = kFalse;

  static constexpr size_t kMaxListForm = 16;
  // (cons a (cons b '())) -> (list a b); (cons a (list b ...)) -> (list a b ...): the same fresh
  // pairs. A one-element (cons a '()) stays: cons is an inline op (a few machine instructions),
  // a call of list is a call (gcbig's leaves, (cons '() '()), ran through p_list).
  Node* list_form(Node* n) {
    if (!list_forms_) return n;
    const gc_vector<Node*>* args = nullptr;
    Primitive* p = called_primitive(n, core_, &args);
    if (!p || p->facts.structure != Structure::kCons || args->size() != 2) return n;
    Primitive* list = list_prim();
    if (!list) return n;
    gc_vector<Node*> elems{(*args)[0]};
    Node* d = (*args)[1];
    // The tail: a chain of conses ending in '() (left as conses by the rule above), or a list call.
    for (;;) {
      if (d->kind == NodeKind::Const && static_cast<ConstNode*>(d)->value == kNil) break;
      const gc_vector<Node*>* rest = nullptr;
      Primitive* q = called_primitive(d, core_, &rest);
      if (q == list) {
        // Only short lists: a call with very many operands costs the JIT more than the pairs.
        if (elems.size() + rest->size() > kMaxListForm) return n;
        for (Node* a : *rest) elems.push_back(a);
        break;
      }
      if (q != p || rest->size() != 2 || elems.size() >= kMaxListForm) return n;
      elems.push_back((*rest)[0]);
      d = (*rest)[1];
    }
    if (elems.size() < 2) return n;
    // Written as a reference to the core cell of `list`, as the expander writes a call.
    CallNode* out = gc_new<CallNode>(gc_new<GlobalRefNode>(list_cell_, n->loc), n->loc);
    out->args = std::move(elems);
    return out;
  }
};

}  // namespace

Pass forward_pass() {
  Pass p;
  p.name = "forward";
  p.level = 2;
  p.description = "move a let-bound expression used once to its use when only inert code runs in between";
  p.run = [](Node* ir, PassContext& ctx) {
    Forward f(ctx.core, ctx.residual);
    return f.run(ir);
  };
  return p;
}

}  // namespace quasi
