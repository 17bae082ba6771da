// inline_small.cpp — the inline-small pass: beta reduction of small known procedures.
//
// A procedure bound by let or letrec to a lambda, never assigned, with one clause of fixed
// arity, is "known": a call (f e ...) with the right number of operands can be replaced by
// ((lambda (x ...) body) e ...), which refold then turns into (let ((x e) ...) body) and folds.
// Argument evaluation order is kept by construction (a let evaluates its inits in order).
// Two cases:
//  - called once: the procedure has exactly one reference, that call, and is not on a cycle of
//    references between the procedures of its letrec group, or its caller has more than one
//    reference (it is then never moved itself). The lambda itself moves to the call and its
//    binding goes (no copy, the Vars keep their one binding site);
//  - tiny: its body has at most kInlineBodyLimit nodes and it does not refer to its own letrec
//    group (no recursion). Each call gets a copy with fresh Vars (ir/util.hpp:
//    copy_with_fresh_vars); the binding stays until refold finds it unused.
// Top-level definitions are not known (a later `define` may replace them) and are left alone.
#include <unordered_map>
#include <unordered_set>

#include "ir/early_reads.hpp"
#include "ir/functor.hpp"
#include "ir/limits.hpp"
#include "ir/util.hpp"
#include "passes/pass_manager.hpp"

namespace quasi {

namespace {

// ---- budgets (in the spirit of Chez cp0's score-limit) -----------------------------------------
// The largest body copied into every call site is kInlineBodyLimit (ir/limits.hpp).
// Most IR nodes one run of the pass may copy in total, so a program full of small procedures
// grows by a bounded amount.
constexpr size_t kInlineGrowthLimit = 4000;

struct Known {
  LambdaNode* lambda = nullptr;  // the init, as in the input
  LetNode* binder = nullptr;
  size_t index = 0;              // position in binder
  bool recursive = false;        // its init refers to its own letrec group
  bool from_group_init = false;  // referenced from some init of its own letrec group
  Var* referrer = nullptr;       // the member whose init refers to it (the last one seen)
};

// Finds the known procedures and counts references.
class Survey : public ExprVisitor {
 public:
  std::unordered_map<Var*, Known> known;
  std::unordered_map<Var*, int64_t> refs;

  void visit_local_ref(LocalRefNode* n) override {
    refs[n->var]++;
    auto g = group_of_.find(n->var);
    if (g == group_of_.end()) return;
    auto cur = current_init_.find(g->second);
    if (cur == current_init_.end() || cur->second < 0) return;
    // We are inside an init of v's own letrec group.
    LetNode* group = g->second;
    Var* from = group->vars[size_t(cur->second)];
    auto k = known.find(from);
    if (k != known.end()) k->second.recursive = true;
    auto self = known.find(n->var);
    if (self != known.end()) {
      self->second.from_group_init = true;
      self->second.referrer = from;
    }
    edges_[from].push_back(n->var);
  }

  // Whether v can reach itself through the references between the inits of its letrec group.
  bool on_cycle(Var* v) {
    std::unordered_set<Var*> seen;
    std::vector<Var*> work(edges_[v].begin(), edges_[v].end());
    while (!work.empty()) {
      Var* x = work.back();
      work.pop_back();
      if (x == v) return true;
      if (!seen.insert(x).second) continue;
      for (Var* y : edges_[x]) work.push_back(y);
    }
    return false;
  }

  void visit_let(LetNode* n) override {
    note_binders(n);
    ExprVisitor::visit_let(n);
  }

  void visit_letrec(LetNode* n) override {
    note_binders(n);
    for (Var* v : n->vars) group_of_[v] = n;
    for (size_t i = 0; i < n->inits.size(); i++) {
      int saved = current_init_.count(n) ? current_init_[n] : -1;
      current_init_[n] = int(i);
      visit(n->inits[i]);
      current_init_[n] = saved;
    }
    visit(n->body);
  }

 private:
  std::unordered_map<Var*, LetNode*> group_of_;
  std::unordered_map<LetNode*, int> current_init_;
  std::unordered_map<Var*, std::vector<Var*>> edges_;  // letrec member -> members its init references

  void note_binders(LetNode* n) {
    for (size_t i = 0; i < n->vars.size(); i++) {
      Var* v = n->vars[i];
      if (v->assigned || n->inits[i]->kind != NodeKind::Lambda) continue;
      auto* lam = static_cast<LambdaNode*>(n->inits[i]);
      if (lam->clauses.size() != 1 || lam->clauses[0]->rest) continue;
      Known k;
      k.lambda = lam;
      k.binder = n;
      k.index = i;
      known[v] = k;
    }
  }
};

class Inliner : public ExprMutator {
 public:
  Inliner(Node* root, Environment* core) : early_(core) {
    survey_.visit(root);
    early_.visit(root);
    // An incomplete count could call a procedure with two references "called once".
    usable_ = !survey_.truncated() && !early_.truncated();
  }

  Node* visit_call(CallNode* n) override {
    if (!usable_ || n->fn->kind != NodeKind::LocalRef) return ExprMutator::visit_call(n);
    // A call that may come before the procedure's init has run raises naming it (the compiler
    // checks that read): inlining would run the procedure instead.
    if (early_.reads.count(static_cast<LocalRefNode*>(n->fn))) return ExprMutator::visit_call(n);
    Var* f = static_cast<LocalRefNode*>(n->fn)->var;
    auto it = survey_.known.find(f);
    if (it == survey_.known.end()) return ExprMutator::visit_call(n);
    const Known& k = it->second;
    LambdaClause* clause = k.lambda->clauses[0];
    // A wrong number of operands raises at run time: keep the call.
    if (clause->params.size() != n->args.size()) return ExprMutator::visit_call(n);
    // Inside its own body (through a chain of inlining): would never end.
    if (active_.count(k.lambda)) return ExprMutator::visit_call(n);

    // Called once: from the body, or from another procedure of its group when that does not make
    // a cycle (a chain of procedures each called once by the previous becomes straight code), or
    // does but the caller has other references too (so it is never moved itself: a loop split
    // over two procedures, a calling b once and b calling a, becomes one).
    bool once = survey_.refs[f] == 1 &&
                (k.binder->kind == NodeKind::Let || !k.from_group_init || !survey_.on_cycle(f) ||
                 (k.referrer && k.referrer != f && survey_.refs[k.referrer] > 1));
    Node* fn = nullptr;
    if (once) {
      fn = visit_known(k.lambda);
      moved_.insert(f);
    } else if (!k.recursive) {
      Node* lam = visit_known(k.lambda);
      size_t size = node_size(static_cast<LambdaNode*>(lam)->clauses[0]->body, kInlineBodyLimit);
      // Too big to copy into every caller, or the pass's growth budget is spent.
      if (size > kInlineBodyLimit || copied_ + size > kInlineGrowthLimit)
        return ExprMutator::visit_call(n);
      fn = copy_with_fresh_vars(lam);
      if (!fn) return ExprMutator::visit_call(n);
      copied_ += size;
    } else {
      return ExprMutator::visit_call(n);
    }
    CallNode* out = gc_new<CallNode>(fn, n->loc);
    bool changed = false;
    out->args = visit_all(n->args, &changed);
    return out;
  }

  Node* visit_let(LetNode* n) override { return drop_moved(n, ExprMutator::visit_let(n)); }
  Node* visit_letrec(LetNode* n) override { return drop_moved(n, ExprMutator::visit_letrec(n)); }

 private:
  Survey survey_;
  EarlyReads early_;
  bool usable_ = true;
  std::unordered_set<Var*> moved_;        // called-once procedures whose lambda moved to the call
  std::unordered_set<LambdaNode*> active_;  // known lambdas being visited
  size_t copied_ = 0;

  Node* visit_known(LambdaNode* lam) {
    active_.insert(lam);
    Node* out = visit(lam);
    active_.erase(lam);
    return out;
  }

  // The binding of a procedure that moved to its only call is gone.
  Node* drop_moved(LetNode* in, Node* visited) {
    bool any = false;
    for (Var* v : in->vars) any = any || moved_.count(v);
    if (!any || visited->kind != in->kind) return visited;
    auto* l = static_cast<LetNode*>(visited);
    LetNode* out = gc_new<LetNode>(l->kind, l->loc);
    for (size_t i = 0; i < l->vars.size(); i++) {
      if (moved_.count(l->vars[i])) continue;
      out->vars.push_back(l->vars[i]);
      out->inits.push_back(l->inits[i]);
    }
    if (out->vars.empty()) return l->body;
    out->body = l->body;
    return out;
  }
};

}  // namespace

Pass inline_small_pass() {
  Pass p;
  p.name = "inline-small";
  p.level = 2;
  p.description = "inline let/letrec-bound procedures that are called once or are tiny";
  p.run = [](Node* ir, PassContext& ctx) {
    Inliner inliner(ir, ctx.core);
    return inliner.visit(ir);
  };
  return p;
}

}  // namespace quasi
