#include "ir/functor.hpp"

namespace quasi {

namespace {

// Counts nesting for the depth guard of both walks.
struct DepthGuard {
  int& d;
  explicit DepthGuard(int& x) : d(x) { d++; }
  ~DepthGuard() { d--; }
};

bool too_deep(int depth) { return depth > kMaxPassDepth || stack_exhausted(); }

}  // namespace

// ---- ExprVisitor -------------------------------------------------------------------------------

void ExprVisitor::visit(Node* n) {
  DepthGuard guard(depth_);
  // Too deep to walk safely: the caller learns it from truncated().
  if (too_deep(depth_)) {
    truncated_ = true;
    return;
  }
  ExprFunctor<void(Node*)>::visit(n);
}

void ExprVisitor::visit_const(ConstNode*) {}
void ExprVisitor::visit_local_ref(LocalRefNode*) {}
void ExprVisitor::visit_local_set(LocalSetNode* n) { visit(n->value); }
void ExprVisitor::visit_global_ref(GlobalRefNode*) {}
void ExprVisitor::visit_global_set(GlobalSetNode* n) { visit(n->value); }
void ExprVisitor::visit_if(IfNode* n) {
  visit(n->test);
  visit(n->then);
  visit(n->otherwise);
}
void ExprVisitor::visit_lambda(LambdaNode* n) {
  for (LambdaClause* c : n->clauses) visit(c->body);
}
void ExprVisitor::visit_call(CallNode* n) {
  visit(n->fn);
  for (Node* a : n->args) visit(a);
}
void ExprVisitor::visit_prim_call(PrimCallNode* n) {
  for (Node* a : n->args) visit(a);
}
void ExprVisitor::visit_let(LetNode* n) {
  for (Node* i : n->inits) visit(i);
  visit(n->body);
}
void ExprVisitor::visit_letrec(LetNode* n) {
  for (Node* i : n->inits) visit(i);
  visit(n->body);
}
void ExprVisitor::visit_seq(SeqNode* n) {
  for (Node* e : n->exprs) visit(e);
}

bool for_each_node(Node* root, const std::function<void(Node*)>& f) {
  struct Walker : ExprVisitor {
    const std::function<void(Node*)>& f;
    explicit Walker(const std::function<void(Node*)>& fn) : f(fn) {}
    void visit(Node* n) override {
      f(n);
      ExprVisitor::visit(n);
    }
  } w(f);
  w.visit(root);
  return !w.truncated();
}

// ---- ExprMutator -------------------------------------------------------------------------------

Node* ExprMutator::visit(Node* n) {
  auto it = memo_.find(n);
  if (it != memo_.end()) return it->second;
  DepthGuard guard(depth_);
  // Too deep to walk safely: leaving a subtree as it is is always correct.
  if (too_deep(depth_)) return n;
  Node* out = ExprFunctor<Node*(Node*)>::visit(n);
  memo_[n] = out;
  return out;
}

gc_vector<Node*> ExprMutator::visit_all(const gc_vector<Node*>& xs, bool* changed) {
  gc_vector<Node*> out;
  out.reserve(xs.size());
  for (Node* x : xs) {
    Node* y = visit(x);
    if (y != x) *changed = true;
    out.push_back(y);
  }
  return out;
}

LambdaClause* ExprMutator::visit_clause(LambdaClause* c) {
  Node* body = visit(c->body);
  if (body == c->body) return c;
  LambdaClause* copy = gc_new<LambdaClause>();
  copy->params = c->params;
  copy->rest = c->rest;
  copy->body = body;
  return copy;
}

Node* ExprMutator::visit_const(ConstNode* n) { return n; }
Node* ExprMutator::visit_local_ref(LocalRefNode* n) { return n; }
Node* ExprMutator::visit_global_ref(GlobalRefNode* n) { return n; }

Node* ExprMutator::visit_local_set(LocalSetNode* n) {
  Node* v = visit(n->value);
  if (v == n->value) return n;
  return gc_new<LocalSetNode>(n->var, v, n->loc);
}

Node* ExprMutator::visit_global_set(GlobalSetNode* n) {
  Node* v = visit(n->value);
  if (v == n->value) return n;
  return gc_new<GlobalSetNode>(n->cell, v, n->is_define, n->loc);
}

Node* ExprMutator::visit_if(IfNode* n) {
  Node* t = visit(n->test);
  Node* c = visit(n->then);
  Node* a = visit(n->otherwise);
  if (t == n->test && c == n->then && a == n->otherwise) return n;
  return gc_new<IfNode>(t, c, a, n->loc);
}

Node* ExprMutator::visit_lambda(LambdaNode* n) {
  gc_vector<LambdaClause*> clauses;
  bool changed = false;
  for (LambdaClause* c : n->clauses) {
    LambdaClause* d = visit_clause(c);
    changed = changed || d != c;
    clauses.push_back(d);
  }
  if (!changed) return n;
  LambdaNode* out = gc_new<LambdaNode>(n->name, n->loc);
  out->clauses = std::move(clauses);
  return out;
}

Node* ExprMutator::visit_call(CallNode* n) {
  Node* fn = visit(n->fn);
  bool changed = fn != n->fn;
  gc_vector<Node*> args = visit_all(n->args, &changed);
  if (!changed) return n;
  CallNode* out = gc_new<CallNode>(fn, n->loc);
  out->args = std::move(args);
  return out;
}

Node* ExprMutator::visit_prim_call(PrimCallNode* n) {
  bool changed = false;
  gc_vector<Node*> args = visit_all(n->args, &changed);
  if (!changed) return n;
  PrimCallNode* out = gc_new<PrimCallNode>(n->prim, n->loc);
  out->args = std::move(args);
  return out;
}

Node* ExprMutator::visit_let(LetNode* n) {
  bool changed = false;
  gc_vector<Node*> inits = visit_all(n->inits, &changed);
  Node* body = visit(n->body);
  if (!changed && body == n->body) return n;
  LetNode* out = gc_new<LetNode>(n->kind, n->loc);
  out->vars = n->vars;
  out->inits = std::move(inits);
  out->body = body;
  return out;
}

Node* ExprMutator::visit_letrec(LetNode* n) { return ExprMutator::visit_let(n); }

Node* ExprMutator::visit_seq(SeqNode* n) {
  bool changed = false;
  gc_vector<Node*> exprs = visit_all(n->exprs, &changed);
  if (!changed) return n;
  SeqNode* out = gc_new<SeqNode>(n->loc);
  out->exprs = std::move(exprs);
  return out;
}

}  // namespace quasi
