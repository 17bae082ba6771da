// functor.hpp — traversals over the core IR (ir/ir.hpp): the shape TVM Relay made familiar.
//
//   ExprFunctor<R(Node*, Args...)>  dispatches on NodeKind to one virtual per kind. No defaults.
//   ExprVisitor                     read-only walk of every child; override the kinds you care
//                                   about and call the base to keep walking.
//   ExprMutator                     rebuilding walk: a node is rebuilt only when one of its
//                                   children changed (functional update: input nodes are never
//                                   written), and each input node is transformed once (a memo
//                                   keyed by node pointer keeps shared subtrees shared).
//
// A pass is only the cases it changes; the base class supplies the rest of the traversal.
//
// Invariants a mutator must keep (ir.hpp states them for the expander):
//  - Var objects are shared between the input and the output tree. Every Var must still be bound
//    by exactly one binder of the OUTPUT tree: when a pass copies a subtree that binds variables
//    (inlining), the copy gets fresh Vars (copy_with_fresh_vars in ir/util.hpp).
//  - Var::assigned must stay true while a LocalSet of the Var remains. Passes never clear it
//    (a dropped set leaves it conservatively true).
//
// Depth: IR nesting follows the source nesting, which the expander bounds. As a second guard a
// walk that gets too deep (or near the end of the C stack) stops descending: a mutator returns the
// subtree unchanged (always sound), a visitor records that it was truncated (`truncated()`), and
// an analysis built on a truncated visit must not be trusted.
#pragma once

#include <functional>
#include <unordered_map>

#include "core/cstack.hpp"
#include "core/gc.hpp"
#include "ir/ir.hpp"

namespace quasi {

// Deepest IR nesting a pass walks (see "Depth" above).
constexpr int kMaxPassDepth = 20000;

// A hash map whose storage the collector scans (keys and values may be GC objects only this map
// holds, e.g. nodes built by a pass). Passes are objects on the C stack, so the storage comes
// from scratch_allocator (core/gc.hpp).
template <class K, class V>
using TracedMap = std::unordered_map<K, V, std::hash<K>, std::equal_to<K>,
                                     scratch_allocator<std::pair<const K, V>>>;

// ---- one child enumeration -----------------------------------------------------------------------
// Calls f(child) for every direct child of n, in evaluation order (a Let's inits before its body, a
// Call's operator before its operands, a Lambda's clause bodies). The one place besides
// ExprFunctor::visit that knows each kind's children.
template <class F>
void for_each_child(Node* n, F&& f);
// The same, with f(Node*& slot): a walk that owns the tree (residual code being built) may
// replace a child in place. Passes never do (the pass contract); they rebuild through ExprMutator.
template <class F>
void for_each_child_slot(Node* n, F&& f);

template <class F>
class ExprFunctor;

template <class R, class... Args>
class ExprFunctor<R(Node*, Args...)> {
 public:
  virtual ~ExprFunctor() = default;

  R operator()(Node* n, Args... args) { return visit(n, args...); }

  // Dispatches on the node kind. Overriders (memo tables, depth guards) call this base.
  virtual R visit(Node* n, Args... args) {
    switch (n->kind) {
      case NodeKind::Const: return visit_const(static_cast<ConstNode*>(n), args...);
      case NodeKind::LocalRef: return visit_local_ref(static_cast<LocalRefNode*>(n), args...);
      case NodeKind::LocalSet: return visit_local_set(static_cast<LocalSetNode*>(n), args...);
      case NodeKind::GlobalRef: return visit_global_ref(static_cast<GlobalRefNode*>(n), args...);
      case NodeKind::GlobalSet: return visit_global_set(static_cast<GlobalSetNode*>(n), args...);
      case NodeKind::If: return visit_if(static_cast<IfNode*>(n), args...);
      case NodeKind::Lambda: return visit_lambda(static_cast<LambdaNode*>(n), args...);
      case NodeKind::Call: return visit_call(static_cast<CallNode*>(n), args...);
      case NodeKind::PrimCall: return visit_prim_call(static_cast<PrimCallNode*>(n), args...);
      case NodeKind::Let: return visit_let(static_cast<LetNode*>(n), args...);
      case NodeKind::Letrec: return visit_letrec(static_cast<LetNode*>(n), args...);
      case NodeKind::Seq: return visit_seq(static_cast<SeqNode*>(n), args...);
    }
    __builtin_unreachable();
  }

  virtual R visit_const(ConstNode* n, Args... args) = 0;
  virtual R visit_local_ref(LocalRefNode* n, Args... args) = 0;
  virtual R visit_local_set(LocalSetNode* n, Args... args) = 0;
  virtual R visit_global_ref(GlobalRefNode* n, Args... args) = 0;
  virtual R visit_global_set(GlobalSetNode* n, Args... args) = 0;
  virtual R visit_if(IfNode* n, Args... args) = 0;
  virtual R visit_lambda(LambdaNode* n, Args... args) = 0;
  virtual R visit_call(CallNode* n, Args... args) = 0;
  virtual R visit_prim_call(PrimCallNode* n, Args... args) = 0;
  virtual R visit_let(LetNode* n, Args... args) = 0;     // NodeKind::Let
  virtual R visit_letrec(LetNode* n, Args... args) = 0;  // NodeKind::Letrec
  virtual R visit_seq(SeqNode* n, Args... args) = 0;
};

// Read-only walk of the whole tree, children left to right in evaluation order (a Let's inits
// before its body; a Call's operator before its operands).
class ExprVisitor : public ExprFunctor<void(Node*)> {
 public:
  using ExprFunctor<void(Node*)>::visit;
  void visit(Node* n) override;
  // True when some subtree was skipped because the walk got too deep.
  bool truncated() const { return truncated_; }

  void visit_const(ConstNode* n) override;
  void visit_local_ref(LocalRefNode* n) override;
  void visit_local_set(LocalSetNode* n) override;
  void visit_global_ref(GlobalRefNode* n) override;
  void visit_global_set(GlobalSetNode* n) override;
  void visit_if(IfNode* n) override;
  void visit_lambda(LambdaNode* n) override;
  void visit_call(CallNode* n) override;
  void visit_prim_call(PrimCallNode* n) override;
  void visit_let(LetNode* n) override;
  void visit_letrec(LetNode* n) override;
  void visit_seq(SeqNode* n) override;

 protected:
  int depth_ = 0;
  bool truncated_ = false;
};

// Calls `f` on every node of the tree (pre-order). Returns false when the walk was truncated.
bool for_each_node(Node* root, const std::function<void(Node*)>& f);

// Rebuilding walk. Each visit_* returns the node that replaces its input: the input itself when
// nothing below changed.
class ExprMutator : public ExprFunctor<Node*(Node*)> {
 public:
  using ExprFunctor<Node*(Node*)>::visit;
  // Memoized: an input node seen before returns the same output node.
  Node* visit(Node* n) override;

  Node* visit_const(ConstNode* n) override;
  Node* visit_local_ref(LocalRefNode* n) override;
  Node* visit_local_set(LocalSetNode* n) override;
  Node* visit_global_ref(GlobalRefNode* n) override;
  Node* visit_global_set(GlobalSetNode* n) override;
  Node* visit_if(IfNode* n) override;
  Node* visit_lambda(LambdaNode* n) override;
  Node* visit_call(CallNode* n) override;
  Node* visit_prim_call(PrimCallNode* n) override;
  Node* visit_let(LetNode* n) override;
  Node* visit_letrec(LetNode* n) override;
  Node* visit_seq(SeqNode* n) override;

 protected:
  // Visits each node of `xs`; sets *changed when some result differs from its input.
  gc_vector<Node*> visit_all(const gc_vector<Node*>& xs, bool* changed);
  // The clause with its body visited (a new clause only when the body changed).
  LambdaClause* visit_clause(LambdaClause* c);
  // Forgets every memoized result (for passes that visit the same node under new facts).
  void clear_memo() { memo_.clear(); }

  int depth_ = 0;

 private:
  TracedMap<Node*, Node*> memo_;
};

template <class F>
void for_each_child_slot(Node* n, F&& f) {
  switch (n->kind) {
    case NodeKind::Const:
    case NodeKind::LocalRef:
    case NodeKind::GlobalRef:
      return;
    case NodeKind::LocalSet:
      f(static_cast<LocalSetNode*>(n)->value);
      return;
    case NodeKind::GlobalSet:
      f(static_cast<GlobalSetNode*>(n)->value);
      return;
    case NodeKind::If: {
      auto* i = static_cast<IfNode*>(n);
      f(i->test);
      f(i->then);
      f(i->otherwise);
      return;
    }
    case NodeKind::Lambda:
      for (LambdaClause* c : static_cast<LambdaNode*>(n)->clauses) f(c->body);
      return;
    case NodeKind::Call: {
      auto* c = static_cast<CallNode*>(n);
      f(c->fn);
      for (Node*& a : c->args) f(a);
      return;
    }
    case NodeKind::PrimCall:
      for (Node*& a : static_cast<PrimCallNode*>(n)->args) f(a);
      return;
    case NodeKind::Let:
    case NodeKind::Letrec: {
      auto* l = static_cast<LetNode*>(n);
      for (Node*& i : l->inits) f(i);
      f(l->body);
      return;
    }
    case NodeKind::Seq:
      for (Node*& e : static_cast<SeqNode*>(n)->exprs) f(e);
      return;
  }
}

template <class F>
void for_each_child(Node* n, F&& f) {
  for_each_child_slot(n, [&f](Node*& slot) { f(slot); });
}

}  // namespace quasi
