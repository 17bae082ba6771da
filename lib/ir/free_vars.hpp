// free_vars.hpp — free variables of lambdas: the one scan, used by the compiler's closure
// conversion and by the partial evaluator.
//
// Owner: ir. A variable is free in a lambda when the lambda's body (its clauses, nested lambdas
// included) references or assigns it and no binder inside the lambda binds it. Each lambda's list
// is in first-reference order of a left-to-right walk (ExprVisitor's order); the compiler lays a
// closure out in that order and the partial evaluator numbers a helper's slots by it, so the order
// is part of the contract.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/functor.hpp"

namespace quasi {

// One walk over a tree that records, for every lambda in it, its free variables. Subclasses (the
// compiler's analysis) override visit_* and call the base to keep the bookkeeping.
class FreeVariables : public ExprVisitor {
 public:
  struct Info {
    std::vector<Var*> free;  // first-reference order
    std::unordered_set<Var*> free_set;
  };
  // Every lambda met, with its free variables. Valid when !truncated().
  std::unordered_map<LambdaNode*, Info> lambdas;

  // Walks `lam` as the outermost lambda (its own free variables are the tree's).
  void run(LambdaNode* lam) { visit(lam); }

  void visit_local_ref(LocalRefNode* n) override;
  void visit_local_set(LocalSetNode* n) override;
  void visit_lambda(LambdaNode* n) override;
  void visit_let(LetNode* n) override;
  void visit_letrec(LetNode* n) override;

 protected:
  // Binds v at the current lambda depth (a parameter, or a let/letrec variable).
  virtual void bind(Var* v);
  // A reference to v from the current lambda: v becomes free in every lambda between its binder
  // and here. Returns whether it crossed a lambda (v is captured).
  bool ref(Var* v);
  // Walks the lambda `l`; `self`, when not null, is a letrec variable bound to l that l's own
  // body reads without capturing it (the compiler's R[0]).
  void lambda(LambdaNode* l, Var* self);

  std::vector<LambdaNode*> stack_;             // lambdas being walked, outermost first
  std::unordered_map<Var*, size_t> depth_;     // stack_ size when the variable was bound
};

// The free slots of a closure of `l` as the compiler lays them out (first-reference order);
// `self`, when not null, is the letrec variable bound to l, which l reads from the closure itself
// (R[0]) rather than capturing. Automatic differentiation indexes a closure's cotangent by this
// layout (lib/ad, and the partial evaluator's J of the closures it makes).
std::vector<Var*> closure_layout(LambdaNode* l, Var* self);

// The free variables of `lam` (first-reference order). Null when the lambda is too deeply nested
// to scan (callers must then not rely on the answer).
const std::vector<Var*>* free_vars(const FreeVariables& fv, LambdaNode* lam);

}  // namespace quasi
