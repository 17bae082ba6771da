#include "ir/early_reads.hpp"

#include "ir/util.hpp"

namespace quasi {

void EarlyReads::visit_lambda(LambdaNode* n) {
  lambdas_++;
  ExprVisitor::visit_lambda(n);
  lambdas_--;
}

void EarlyReads::visit_local_ref(LocalRefNode* n) {
  auto it = initializing_.find(n->var);
  if (it == initializing_.end()) return;
  auto [g, j] = it->second;
  if (g->at > j) return;  // its init has returned
  // At once, or from a lambda an init from `at` to j may call.
  if (lambdas_ == g->lambdas || g->calls_before[j + 1] > g->calls_before[g->at]) reads.insert(n);
}

void EarlyReads::visit_letrec(LetNode* n) {
  Group g;
  g.lambdas = lambdas_;
  g.calls_before.push_back(0);
  for (Node* init : n->inits)
    g.calls_before.push_back(g.calls_before.back() + (only_pure_primitive_calls(init, core_) ? 0 : 1));
  for (size_t i = 0; i < n->vars.size(); i++) initializing_[n->vars[i]] = {&g, i};
  for (size_t i = 0; i < n->inits.size(); i++) {
    g.at = i;
    visit(n->inits[i]);
  }
  for (Var* v : n->vars) initializing_.erase(v);
  visit(n->body);
}

}  // namespace quasi
