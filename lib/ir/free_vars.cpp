#include "ir/free_vars.hpp"

namespace quasi {

void FreeVariables::bind(Var* v) { depth_[v] = stack_.size(); }

bool FreeVariables::ref(Var* v) {
  auto it = depth_.find(v);
  // Bound outside the walked tree: free in every lambda being walked.
  size_t d = it == depth_.end() ? 0 : it->second;
  if (d >= stack_.size()) return false;
  for (size_t k = d; k < stack_.size(); k++) {
    Info& info = lambdas[stack_[k]];
    if (info.free_set.insert(v).second) info.free.push_back(v);
  }
  return true;
}

void FreeVariables::lambda(LambdaNode* l, Var* self) {
  lambdas[l];
  stack_.push_back(l);
  size_t saved = 0;
  bool had = false;
  if (self) {
    auto it = depth_.find(self);
    had = it != depth_.end();
    saved = had ? it->second : 0;
    depth_[self] = stack_.size();
  }
  for (LambdaClause* c : l->clauses) {
    for (Var* p : c->params) bind(p);
    if (c->rest) bind(c->rest);
    visit(c->body);
  }
  if (self) {
    if (had) depth_[self] = saved;
    else depth_.erase(self);
  }
  stack_.pop_back();
}

void FreeVariables::visit_local_ref(LocalRefNode* n) { ref(n->var); }
void FreeVariables::visit_local_set(LocalSetNode* n) {
  ref(n->var);
  visit(n->value);
}
void FreeVariables::visit_lambda(LambdaNode* n) { lambda(n, nullptr); }
void FreeVariables::visit_let(LetNode* n) {
  for (Node* i : n->inits) visit(i);
  for (Var* v : n->vars) bind(v);
  visit(n->body);
}
void FreeVariables::visit_letrec(LetNode* n) {
  for (Var* v : n->vars) bind(v);
  for (Node* i : n->inits) visit(i);
  visit(n->body);
}

const std::vector<Var*>* free_vars(const FreeVariables& fv, LambdaNode* lam) {
  if (fv.truncated()) return nullptr;
  auto it = fv.lambdas.find(lam);
  return it == fv.lambdas.end() ? nullptr : &it->second.free;
}

namespace {
class Layout : public FreeVariables {
 public:
  std::vector<Var*> of(LambdaNode* l, Var* self) {
    lambda(l, self);
    return lambdas[l].free;
  }
};
}  // namespace

std::vector<Var*> closure_layout(LambdaNode* l, Var* self) {
  Layout layout;
  return layout.of(l, self);
}

}  // namespace quasi
