// fold_constants.cpp — the fold-constants pass (also run again as `refold` after inline-small).
//
// What it does, in one walk (a Relay-style ExprMutator; ir/functor.hpp):
//  - a call of a known primitive (ir/util.hpp: known_primitive) flagged kPure|kFoldable, and
//    neither kAllocates, kHasEffects nor kVmSpecial, whose operands are all immutable constants,
//    is replaced by its value, computed by calling the real primitive. If the call raises, the
//    call stays and raises at run time, where the program says. A result larger than the size
//    limits below stays unfolded;
//  - "shape" folds: (vector-length (make-vector 10 x)) → 10, (length (list a b c)) → 3, ... from
//    kShapeRules, keeping the effects of operands that have some;
//  - let: a variable that is never assigned and is bound to a constant, to another such
//    variable, or to a known primitive is replaced by it; a binding left unused is dropped when
//    its init is pure (ir/util.hpp: is_pure), else its init stays, in order, as an effect;
//    letrec: the same for constants bound before any code can run, and for unused bindings;
//  - a direct call of a lambda, ((lambda (x) body) e), becomes (let ((x e)) body);
//  - if: a test whose value is known picks its branch; (if (not x) a b) becomes (if x b a);
//  - begin: nested sequences are spliced and pure expressions before the last are dropped.
//
// Bookkeeping: uses_ counts the references of each variable in the tree being built (the output
// so far plus the input not yet visited). It starts as a count over the input and moves with every
// rewrite: a substituted reference moves its count to the replacement, a dropped subtree gives
// its references back (forget). A binding is dropped only when its count is 0. When the first
// count could not see the whole tree (too deep), no binding is ever dropped.
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"
#include "ir/functor.hpp"
#include "ir/limits.hpp"
#include "ir/util.hpp"
#include "passes/pass_manager.hpp"

namespace quasi {

namespace {

// ---- budgets ----------------------------------------------------------------------------------
// Folding must not make the program text bigger than what it replaces by much, nor spend long
// at compile time building a huge constant: the fold limits are ir/limits.hpp's.
// A shape fold replaces (vector-length (make-vector n ...)) by n without making the vector, so
// it must be sure the allocation would have succeeded: only lengths up to this bound fold.
constexpr int64_t kMaxShapeFoldLength = int64_t(1) << 20;

bool foldable(const Primitive* p) {
  return (p->flags & kPure) && (p->flags & kFoldable) &&
         !(p->flags & (kAllocates | kHasEffects | kVmSpecial));
}

bool is_const(Node* n) { return n->kind == NodeKind::Const; }
Value const_value(Node* n) { return static_cast<ConstNode*>(n)->value; }

class Folder : public ExprMutator {
 public:
  explicit Folder(PassContext& ctx) : ctx_(ctx), core_(ctx.core) {}

  Node* run(Node* root) {
    counts_ok_ = for_each_node(root, [&](Node* n) {
      if (n->kind == NodeKind::LocalRef) uses_[static_cast<LocalRefNode*>(n)->var]++;
    });
    return visit(root);
  }

  Node* visit_local_ref(LocalRefNode* n) override {
    auto it = subst_.find(n->var);
    if (it == subst_.end()) return n;
    uses_[n->var]--;
    Node* r = it->second;
    // r is an atom (propagate's three kinds): a constant, a variable or a known primitive.
    if (is_const(r)) return gc_new<ConstNode>(const_value(r), n->loc);
    if (r->kind == NodeKind::LocalRef) {
      Var* target = static_cast<LocalRefNode*>(r)->var;
      uses_[target]++;
      return gc_new<LocalRefNode>(target, n->loc);
    }
    return gc_new<GlobalRefNode>(static_cast<GlobalRefNode*>(r)->cell, n->loc);
  }

  Node* visit_if(IfNode* n) override {
    Node* test = visit(n->test);
    bool swap = false;
    // (if (not x) a b) is (if x b a).
    while (is_not_call(test) && args_of(test).size() == 1) {
      test = args_of(test)[0];
      swap = !swap;
    }
    Node* then_in = swap ? n->otherwise : n->then;
    Node* else_in = swap ? n->then : n->otherwise;
    // A test whose value is known: only one branch can run.
    gc_vector<Node*> effects;
    if (std::optional<bool> known = known_truth(test, &effects)) {
      Node* chosen = visit(*known ? then_in : else_in);
      forget(*known ? else_in : then_in);
      effects.push_back(chosen);
      return make_seq(effects, n->loc);
    }
    Node* c = visit(then_in);
    Node* a = visit(else_in);
    if (test == n->test && c == n->then && a == n->otherwise) return n;
    return gc_new<IfNode>(test, c, a, n->loc);
  }

  Node* visit_call(CallNode* n) override {
    // ((lambda (x ...) body) e ...) is (let ((x e) ...) body).
    if (n->fn->kind == NodeKind::Lambda) {
      auto* lam = static_cast<LambdaNode*>(n->fn);
      LambdaClause* c = lam->clauses.size() == 1 ? lam->clauses[0] : nullptr;
      if (c && !c->rest && c->params.size() == n->args.size()) {
        bool changed = false;
        gc_vector<Node*> inits = visit_all(n->args, &changed);
        for (size_t i = 0; i < c->params.size(); i++) propagate(c->params[i], inits[i]);
        Node* body = visit(c->body);
        return rebuild_bindings(NodeKind::Let, c->params, inits, body, n->loc, nullptr);
      }
    }
    Node* fn = visit(n->fn);
    bool changed = fn != n->fn;
    gc_vector<Node*> args = visit_all(n->args, &changed);
    if (Primitive* p = known_primitive(fn, core_))
      if (Node* folded = fold_call(p, args, n->loc)) return folded;
    if (!changed) return n;
    CallNode* out = gc_new<CallNode>(fn, n->loc);
    out->args = std::move(args);
    return out;
  }

  Node* visit_prim_call(PrimCallNode* n) override {
    bool changed = false;
    gc_vector<Node*> args = visit_all(n->args, &changed);
    if (Node* folded = fold_call(n->prim.as<Primitive>(), args, n->loc)) return folded;
    if (!changed) return n;
    PrimCallNode* out = gc_new<PrimCallNode>(n->prim, n->loc);
    out->args = std::move(args);
    return out;
  }

  Node* visit_let(LetNode* n) override {
    bool changed = false;
    gc_vector<Node*> inits = visit_all(n->inits, &changed);
    for (size_t i = 0; i < n->vars.size(); i++) propagate(n->vars[i], inits[i]);
    Node* body = visit(n->body);
    return rebuild_bindings(NodeKind::Let, n->vars, inits, body, n->loc, n);
  }

  Node* visit_letrec(LetNode* n) override {
    // While init i runs, variables i, i+1, ... hold the unbound marker: no copy propagation of
    // them (a copy made now would see a later value).
    for (Var* v : n->vars) uninitialized_.insert(v);
    gc_vector<Node*> inits;
    bool inert_prefix = true;  // inits so far are constants or lambdas: evaluating them runs nothing
    for (size_t i = 0; i < n->vars.size(); i++) {
      Node* init = visit(n->inits[i]);
      uninitialized_.erase(n->vars[i]);
      // No code has run before this constant is stored, so no reference can see the variable
      // unbound: it may be replaced by the constant.
      if (inert_prefix && is_const(init) && !n->vars[i]->assigned) subst_[n->vars[i]] = init;
      inert_prefix = inert_prefix && (is_const(init) || init->kind == NodeKind::Lambda);
      inits.push_back(init);
    }
    Node* body = visit(n->body);
    return rebuild_bindings(NodeKind::Letrec, n->vars, inits, body, n->loc, n);
  }

  Node* visit_seq(SeqNode* n) override {
    gc_vector<Node*> all;
    for (Node* e : n->exprs) {
      Node* x = visit(e);
      if (x->kind == NodeKind::Seq) {
        for (Node* y : static_cast<SeqNode*>(x)->exprs) all.push_back(y);
      } else {
        all.push_back(x);
      }
    }
    // A pure expression whose value nobody uses does nothing.
    gc_vector<Node*> kept;
    for (size_t k = 0; k + 1 < all.size(); k++) {
      if (is_pure(all[k], core_)) forget(all[k]);
      else kept.push_back(all[k]);
    }
    kept.push_back(all.back());
    if (kept.size() == 1) return kept[0];
    if (kept == n->exprs) return n;
    SeqNode* out = gc_new<SeqNode>(n->loc);
    out->exprs = std::move(kept);
    return out;
  }

 private:
  PassContext& ctx_;
  Environment* core_;
  std::unordered_map<Var*, int64_t> uses_;
  bool counts_ok_ = true;
  TracedMap<Var*, Node*> subst_;  // variable -> what its references become
  std::unordered_set<Var*> uninitialized_;

  // A call of `not` (known by its facts, not its name).
  bool is_not_call(Node* n) {
    const gc_vector<Node*>* args = nullptr;
    Primitive* p = called_primitive(n, core_, &args);
    return p && p->facts.inline_op == InlineOp::kNot;
  }
  const gc_vector<Node*>& args_of(Node* call) {
    return call->kind == NodeKind::Call ? static_cast<CallNode*>(call)->args
                                        : static_cast<PrimCallNode*>(call)->args;
  }

  // Gives back the references of a subtree that leaves the tree.
  void forget(Node* n) {
    for_each_node(n, [&](Node* x) {
      if (x->kind == NodeKind::LocalRef) uses_[static_cast<LocalRefNode*>(x)->var]--;
    });
  }

  // Records that references to `v` may become `init` (already visited).
  void propagate(Var* v, Node* init) {
    // An assigned variable may hold another value by the time it is read.
    if (v->assigned) return;
    if (is_const(init)) {
      subst_[v] = init;
    } else if (init->kind == NodeKind::LocalRef) {
      Var* w = static_cast<LocalRefNode*>(init)->var;
      if (!w->assigned && !uninitialized_.count(w)) subst_[v] = init;
    } else if (known_primitive(init, core_)) {
      subst_[v] = init;
    }
  }

  bool unused(Var* v, Node* init, NodeKind kind) {
    if (!counts_ok_ || v->assigned) return false;
    int64_t uses = uses_[v];
    if (uses == 0) return true;
    // A letrec-bound lambda referenced only from its own body is dead too.
    if (kind != NodeKind::Letrec || init->kind != NodeKind::Lambda) return false;
    int64_t own = 0;
    for_each_node(init, [&](Node* x) {
      if (x->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(x)->var == v) own++;
    });
    return own == uses;
  }

  // The let/letrec of the bindings that are still used. An unused binding with a pure init
  // goes; one with effects keeps them, in order: they join the next init, or the body.
  Node* rebuild_bindings(NodeKind kind, const gc_vector<Var*>& vars, const gc_vector<Node*>& inits,
                         Node* body, SrcLoc loc, LetNode* original) {
    LetNode* out = gc_new<LetNode>(kind, loc);
    gc_vector<Node*> pending;
    for (size_t i = 0; i < vars.size(); i++) {
      Node* init = inits[i];
      if (unused(vars[i], init, kind)) {
        if (is_pure(init, core_)) forget(init);
        else pending.push_back(init);
        continue;
      }
      if (!pending.empty()) {
        pending.push_back(init);
        init = make_seq(pending, init->loc);
        pending.clear();
      }
      out->vars.push_back(vars[i]);
      out->inits.push_back(init);
    }
    if (!pending.empty()) {
      pending.push_back(body);
      body = make_seq(pending, loc);
    }
    if (out->vars.empty()) return body;
    if (original && body == original->body && out->inits == original->inits &&
        out->vars.size() == original->vars.size())
      return original;
    out->body = body;
    return out;
  }

  // The truth value of a visited test when it is certain; effects to keep go to *effects.
  std::optional<bool> known_truth(Node* test, gc_vector<Node*>* effects) {
    Node* last = test;
    gc_vector<Node*> before;
    if (test->kind == NodeKind::Seq) {
      auto& xs = static_cast<SeqNode*>(test)->exprs;
      before.assign(xs.begin(), xs.end() - 1);
      last = xs.back();
    }
    std::optional<bool> known;
    if (is_const(last)) known = const_value(last).is_true();
    else if (last->kind == NodeKind::Lambda || known_primitive(last, core_)) known = true;
    if (!known) return std::nullopt;
    for (Node* e : before) effects->push_back(e);
    forget(last);
    return known;
  }

  Node* fold_call(Primitive* p, const gc_vector<Node*>& args, SrcLoc loc) {
    // A wrong number of arguments raises at run time.
    if (!arity_ok(p, args.size())) return nullptr;
    if (Node* shaped = fold_shape(p, args, loc)) return shaped;
    // Identity, effects or VM state matter: never evaluated early.
    if (!foldable(p)) return nullptr;
    root_vector<Value> argv;
    argv.reserve(args.size() + 1);
    for (Node* a : args) {
      // Only constants whose contents cannot change may be read now.
      if (!is_const(a) || !is_frozen_shallow(const_value(a))) return nullptr;
      argv.push_back(const_value(a));
    }
    Value result;
    try {
      result = p->fn(ctx_.vm, p, int(argv.size()), argv.data());
    } catch (SchemeError&) {
      return nullptr;  // the error belongs to run time, at this call's location
    } catch (std::bad_alloc&) {
      return nullptr;
    }
    // A fresh mutable object or a huge one is made at run time.
    if (!is_frozen_shallow(result) || !within_fold_limits(result)) return nullptr;
    return gc_new<ConstNode>(result, loc);
  }

  // (measure (maker arg ...)) is the length the maker was asked for: the measure's
  // PrimFacts::measures is the maker's `makes` (vector-length of make-vector or vector, ...).
  Node* fold_shape(Primitive* p, const gc_vector<Node*>& args, SrcLoc loc) {
    if (args.size() != 1 || p->facts.measures == Sequence::kNone) return nullptr;
    const gc_vector<Node*>* made = nullptr;
    Primitive* maker = called_primitive(args[0], core_, &made);
    if (!maker || maker->facts.makes != p->facts.measures || !arity_ok(maker, made->size())) return nullptr;
    const PrimFacts& f = maker->facts;
    int64_t length = 0;
    size_t first_fill = 0;
    if (f.make_length == MakerLength::kFirstArg) {
      Node* n = (*made)[0];
      // The maker raises (or may fail to allocate) for other lengths.
      if (!is_const(n) || !const_value(n).is_fixnum()) return nullptr;
      length = const_value(n).fixnum();
      if (length < 0 || length > kMaxShapeFoldLength) return nullptr;
      first_fill = 1;
    } else {
      length = int64_t(made->size());
    }
    for (size_t i = first_fill; i < made->size(); i++) {
      Node* a = (*made)[i];
      Value v = is_const(a) ? const_value(a) : kUnbound;
      // An operand the maker would reject raises at run time.
      if (f.fill == MakerFill::kChar && !v.is_char()) return nullptr;
      if (f.fill == MakerFill::kByte && !(v.is_fixnum() && v.fixnum() >= 0 && v.fixnum() <= 255)) return nullptr;
    }
    gc_vector<Node*> seq;
    for (size_t i = 0; i < made->size(); i++) {
      Node* a = (*made)[i];
      if (is_pure(a, core_)) forget(a);
      else seq.push_back(a);
    }
    seq.push_back(gc_new<ConstNode>(make_fixnum(length), loc));
    return make_seq(seq, loc);
  }
};

Pass make_fold_pass(const char* name, int level, const char* description) {
  Pass p;
  p.name = name;
  p.level = level;
  p.description = description;
  p.run = [](Node* ir, PassContext& ctx) {
    Folder folder(ctx);
    return folder.run(ir);
  };
  return p;
}

}  // namespace

Pass fold_constants_pass() {
  return make_fold_pass("fold-constants", 1,
                        "fold pure primitives over constants, propagate let constants, prune "
                        "branches and dead code");
}

Pass refold_pass() {
  return make_fold_pass("refold", 2, "fold-constants again over what inline-small exposed");
}

}  // namespace quasi
