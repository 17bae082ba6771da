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
//  - begin: nested sequences are spliced and pure expressions before the last are dropped;
//  - numbers (PrimFacts::on_numbers, NumResult): a variable bound to arithmetic's result holds a
//    number (an inexact one when an operand was inexact), and one that a call requiring numbers
//    received is a number in the code that call dominates (the let body, the rest of a begin).
//    So an unused call that cannot raise on numbers goes like a pure one, (exact? x) of an
//    inexact x is #f, (* 1.0 x) of an inexact x is x, and (if t c c) with two equal constants
//    is c (the shapes the partial evaluator's residuals of gradients have: lib/ad/README.md,
//    "Residuals");
//  - a call of such a primitive on variables and constants that a let bound before, in code the
//    binding dominates, is that let's variable (numbers have no identity to lose): unrolled
//    residual code recomputes the same products at every step.
//
// Bookkeeping: uses_ counts the references of each variable in the tree being built (the output
// so far plus the input not yet visited). It starts as a count over the input and moves with every
// rewrite: a substituted reference moves its count to the replacement, a dropped subtree gives
// its references back (forget). A binding is dropped only when its count is 0. When the first
// count could not see the whole tree (too deep), no binding is ever dropped.
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/equality.hpp"
#include "core/error.hpp"
#include "core/numbers.hpp"
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
    // Both arms the same constant: the test only matters for its effects.
    if (is_const(c) && is_const(a) && eqv(const_value(c), const_value(a))) {
      forget(a);
      if (droppable(test)) {
        forget(test);
        return c;
      }
      return make_seq(gc_vector<Node*>{test, c}, n->loc);
    }
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
    size_t mark = learned_.size(), avail_mark = avail_log_.size();
    for (size_t i = 0; i < n->vars.size(); i++) {
      learn_operands(inits[i]);
      if (uint8_t k = number_kind(inits[i]); k && !n->vars[i]->assigned) numbers_[n->vars[i]] = k;
      if (!n->vars[i]->assigned) make_available(inits[i], n->vars[i]);
    }
    Node* body = visit(n->body);
    unlearn(mark);
    unavail(avail_mark);
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
    std::vector<bool> drop;  // decided with what was known before the expression ran
    size_t mark = learned_.size();
    for (Node* e : n->exprs) {
      Node* x = visit(e);
      auto one = [&](Node* y) {
        all.push_back(y);
        drop.push_back(droppable(y));
        learn_operands(y);
      };
      if (x->kind == NodeKind::Seq) {
        for (Node* y : static_cast<SeqNode*>(x)->exprs) one(y);
      } else {
        one(x);
      }
    }
    unlearn(mark);
    // A pure expression whose value nobody uses does nothing.
    gc_vector<Node*> kept;
    for (size_t k = 0; k + 1 < all.size(); k++) {
      if (drop[k]) forget(all[k]);
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
  // What is known about never-assigned variables holding numbers: kNumber or kInexact (which
  // includes kNumber). A binding's fact holds wherever the variable is referenced; a fact learned
  // from a call's operands holds in the code that call dominates, and is undone after it.
  static constexpr uint8_t kNumber = 1, kInexact = 3;
  std::unordered_map<Var*, uint8_t> numbers_;
  std::vector<Var*> learned_;

  // The primitive a visited call calls, with its arguments.
  Primitive* callee(Node* n, const gc_vector<Node*>** args) { return called_primitive(n, core_, args); }

  // What a visited expression's value is known to be, when it returns: 0, kNumber or kInexact.
  uint8_t number_kind(Node* n) {
    switch (n->kind) {
      case NodeKind::Const: {
        Value v = const_value(n);
        return is_flonum(v) ? kInexact : is_number(v) ? kNumber : 0;
      }
      case NodeKind::LocalRef: {
        auto* r = static_cast<LocalRefNode*>(n);
        if (r->var->assigned) return 0;
        auto it = numbers_.find(r->var);
        return it == numbers_.end() ? 0 : it->second;
      }
      case NodeKind::If: {
        auto* i = static_cast<IfNode*>(n);
        return number_kind(i->then) & number_kind(i->otherwise);
      }
      case NodeKind::Seq:
        return number_kind(static_cast<SeqNode*>(n)->exprs.back());
      case NodeKind::Call:
      case NodeKind::PrimCall: {
        const gc_vector<Node*>* args = nullptr;
        Primitive* p = callee(n, &args);
        if (!p || !arity_ok(p, args->size())) return 0;
        switch (p->facts.num_result) {
          case NumResult::kExactInteger:
          case NumResult::kNumber:
            return kNumber;
          case NumResult::kContagion: {
            // an inexact operand makes an inexact result
            for (Node* a : *args)
              if (number_kind(a) == kInexact) return kInexact;
            return kNumber;
          }
          default:
            return 0;
        }
      }
      default:
        return 0;
    }
  }

  // A visited call that returned proves its operands (and those of the calls among them) are
  // numbers, when its primitive requires numbers: recorded until unlearn.
  void learn_operands(Node* n, int depth = 0) {
    const gc_vector<Node*>* args = nullptr;
    Primitive* p = callee(n, &args);
    if (!p || p->facts.on_numbers == OnNumbers::kNone || !arity_ok(p, args->size()) || depth > 8) return;
    for (Node* a : *args) {
      if (a->kind == NodeKind::LocalRef) {
        Var* v = static_cast<LocalRefNode*>(a)->var;
        if (!v->assigned && !numbers_.count(v)) {
          numbers_[v] = kNumber;
          learned_.push_back(v);
        }
      } else {
        learn_operands(a, depth + 1);
      }
    }
  }
  void unlearn(size_t mark) {
    while (learned_.size() > mark) {
      numbers_.erase(learned_.back());
      learned_.pop_back();
    }
  }

  // Calls of number primitives on atoms that a dominating let bound: hash -> (call, variable).
  struct Avail {
    Node* call;
    Var* var;
  };
  std::unordered_multimap<uint64_t, Avail> avail_;
  std::vector<std::pair<uint64_t, Var*>> avail_log_;

  static bool is_atom(Node* a) {
    return is_const(a) || (a->kind == NodeKind::LocalRef && !static_cast<LocalRefNode*>(a)->var->assigned);
  }
  // The key of a call that CSE may share, or 0: a pure primitive of numbers (the same operands
  // give the same number, or raise), on atoms.
  uint64_t avail_key(Node* n, Primitive** prim = nullptr, const gc_vector<Node*>** argv = nullptr) {
    const gc_vector<Node*>* args = nullptr;
    Primitive* p = callee(n, &args);
    if (!p || p->facts.on_numbers == OnNumbers::kNone || !arity_ok(p, args->size())) return 0;
    if (!(p->flags & kPure) || (p->flags & (kHasEffects | kVmSpecial))) return 0;
    uint64_t h = reinterpret_cast<uintptr_t>(p) * 0x9E3779B97F4A7C15ull;
    for (Node* a : *args) {
      if (!is_atom(a)) return 0;
      uint64_t x = is_const(a) ? eqv_hash(const_value(a))
                               : reinterpret_cast<uintptr_t>(static_cast<LocalRefNode*>(a)->var);
      h = (h ^ x) * 0x100000001B3ull;
    }
    if (prim) *prim = p;
    if (argv) *argv = args;
    return h | 1;
  }
  bool same_call(Node* a, Node* b) {
    const gc_vector<Node*>*x = nullptr, *y = nullptr;
    Primitive* p = callee(a, &x);
    Primitive* q = callee(b, &y);
    if (p != q || x->size() != y->size()) return false;
    for (size_t i = 0; i < x->size(); i++) {
      Node* u = (*x)[i];
      Node* v = (*y)[i];
      if (u->kind != v->kind) return false;
      if (is_const(u) ? !eqv(const_value(u), const_value(v))
                      : static_cast<LocalRefNode*>(u)->var != static_cast<LocalRefNode*>(v)->var)
        return false;
    }
    return true;
  }
  void make_available(Node* init, Var* v) {
    if (uint64_t h = avail_key(init)) {
      avail_.emplace(h, Avail{init, v});
      avail_log_.emplace_back(h, v);
    }
  }
  void unavail(size_t mark) {
    while (avail_log_.size() > mark) {
      auto [h, v] = avail_log_.back();
      avail_log_.pop_back();
      auto range = avail_.equal_range(h);
      for (auto it = range.first; it != range.second; ++it)
        if (it->second.var == v) {
          avail_.erase(it);
          break;
        }
    }
  }
  // The variable a dominating let bound to the same call (p args), or null.
  Var* available_call(Primitive* p, const gc_vector<Node*>& args) {
    PrimCallNode probe(make_ptr(p), SrcLoc{});
    probe.args = args;
    return available(&probe);
  }
  Var* available(Node* call) {
    uint64_t h = avail_key(call);
    if (!h) return nullptr;
    auto range = avail_.equal_range(h);
    for (auto it = range.first; it != range.second; ++it)
      if (same_call(it->second.call, call)) return it->second.var;
    return nullptr;
  }

  // Whether a visited expression whose value is unused may go: it is pure, or it is a call that
  // cannot raise on numbers given operands known to be numbers (and that may go themselves).
  bool droppable(Node* n, int depth = 0) {
    if (is_pure(n, core_)) return true;
    const gc_vector<Node*>* args = nullptr;
    Primitive* p = callee(n, &args);
    if (!p || depth > 8 || !arity_ok(p, args->size())) return false;
    OnNumbers o = p->facts.on_numbers;
    if (o != OnNumbers::kTotal && o != OnNumbers::kExactness) return false;
    if (!(p->flags & kPure) || (p->flags & (kHasEffects | kVmSpecial))) return false;
    for (Node* a : *args)
      if (!number_kind(a) || !droppable(a, depth + 1)) return false;
    return true;
  }

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
        if (droppable(init)) forget(init);
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
    // (* 1.0 x) of an inexact x (a flonum or an inexact complex) is x, to the bit.
    if (p->facts.inline_op == InlineOp::kMul && args.size() == 2)
      for (int i = 0; i < 2; i++)
        if (is_const(args[i]) && is_flonum(const_value(args[i])) && flonum_value(const_value(args[i])) == 1.0 &&
            number_kind(args[1 - i]) == kInexact)
          return args[1 - i];
    // exact? / inexact? of a value known to be inexact: the answer for any inexact number.
    if (p->facts.on_numbers == OnNumbers::kExactness && args.size() == 1 && number_kind(args[0]) == kInexact &&
        droppable(args[0])) {
      Value one = make_flonum(1.0);
      Value r = p->fn(ctx_.vm, p, 1, &one);
      forget(args[0]);
      return gc_new<ConstNode>(r, loc);
    }
    if (Node* shaped = fold_shape(p, args, loc)) return shaped;
    if (Var* v = available_call(p, args)) {
      for (Node* a : args) forget(a);
      uses_[v]++;
      return gc_new<LocalRefNode>(v, loc);
    }
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
