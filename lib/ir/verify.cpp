// verify.cpp — verify_ir: checks the invariants of ir/ir.hpp that passes must keep.
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.hpp"
#include "ir/verify.hpp"

namespace quasi {

namespace {

class Verifier : public ExprVisitor {
 public:
  std::string problem;

  void visit(Node* n) override {
    if (!problem.empty()) return;
    ExprVisitor::visit(n);
  }

  void visit_local_ref(LocalRefNode* n) override { in_scope(n->var); }
  void visit_local_set(LocalSetNode* n) override {
    in_scope(n->var);
    if (!n->var->assigned) fail("set! of a variable not marked assigned:", n->var);
    visit(n->value);
  }
  void visit_if(IfNode* n) override {
    if (!n->test || !n->then || !n->otherwise) return fail("if with a missing part", nullptr);
    ExprVisitor::visit_if(n);
  }
  void visit_lambda(LambdaNode* n) override {
    if (n->clauses.empty()) return fail("lambda without clauses", nullptr);
    for (LambdaClause* c : n->clauses) {
      for (Var* p : c->params) bind(p);
      if (c->rest) bind(c->rest);
      visit(c->body);
      for (Var* p : c->params) unbind(p);
      if (c->rest) unbind(c->rest);
    }
  }
  void visit_let(LetNode* n) override {
    if (n->vars.size() != n->inits.size()) return fail("let with unequal vars and inits", nullptr);
    for (Node* i : n->inits) visit(i);
    for (Var* v : n->vars) bind(v);
    visit(n->body);
    for (Var* v : n->vars) unbind(v);
  }
  void visit_letrec(LetNode* n) override {
    if (n->vars.size() != n->inits.size()) return fail("letrec with unequal vars and inits", nullptr);
    for (Var* v : n->vars) bind(v);
    for (Node* i : n->inits) visit(i);
    visit(n->body);
    for (Var* v : n->vars) unbind(v);
  }
  void visit_seq(SeqNode* n) override {
    if (n->exprs.empty()) return fail("empty sequence", nullptr);
    ExprVisitor::visit_seq(n);
  }

 private:
  std::unordered_set<Var*> bound_ever_;
  std::unordered_map<Var*, int> in_scope_;

  void fail(const std::string& what, Var* v) {
    if (!problem.empty()) return;
    problem = what;
    if (v) problem += std::string(" ") + symbol_name(v->name) + "." + std::to_string(v->id);
  }
  void bind(Var* v) {
    if (!bound_ever_.insert(v).second) fail("variable bound twice:", v);
    in_scope_[v]++;
  }
  void unbind(Var* v) { in_scope_[v]--; }
  void in_scope(Var* v) {
    auto it = in_scope_.find(v);
    if (it == in_scope_.end() || it->second <= 0) fail("reference to a variable out of scope:", v);
  }
};

}  // namespace

std::string verify_ir(Node* root) {
  Verifier v;
  v.visit(root);
  if (v.problem.empty() && v.truncated()) return "";  // too deep to check: nothing found
  return v.problem;
}

}  // namespace quasi
