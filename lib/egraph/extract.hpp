// extract.hpp — picks the cheapest term of each e-class under a cost function (egg's Extractor).
//
// Costs are computed bottom-up to a fixpoint: a node's cost is known once all its children's
// classes have one; a class's cost is its cheapest node's, and it only ever decreases (strictly),
// so the iteration ends. The cost function must be monotone (a node costs at least as much as each
// child) for the chosen nodes to form a term rather than a cycle; extract() checks and throws
// std::runtime_error on a cycle instead of looping.
#pragma once

#include <functional>
#include <stdexcept>
#include <vector>

#include "egraph/egraph.hpp"
#include "egraph/limits.hpp"

namespace quasi::egraph {

// cost(node, costs of its children's classes, in order)
using CostFn = std::function<double(const ENode&, const std::vector<double>&)>;

// The default: the number of nodes of the term (egg's AstSize).
inline double ast_size(const ENode&, const std::vector<double>& kids) {
  double c = 1;
  for (double k : kids) c += k;
  return c;
}

template <class A>
class Extractor {
 public:
  Extractor(const EGraph<A>& eg, CostFn cost = ast_size)
      : eg_(eg), cost_(std::move(cost)), costs_(eg.id_count(), kInfiniteCost), best_(eg.id_count()) {
    std::vector<double> kids;
    for (bool changed = true; changed;) {
      changed = false;
      eg.for_each_class([&](const auto& c) {
        for (const ENode& n : c.nodes) {
          kids.clear();
          bool ok = true;
          for (Id k : n.children()) {
            double ck = costs_[eg.find(k)];
            if (ck >= kInfiniteCost) { ok = false; break; }
            kids.push_back(ck);
          }
          if (!ok) continue;
          double cn = cost_(n, kids);
          if (cn < costs_[c.id]) {
            costs_[c.id] = cn;
            best_[c.id] = n;
            changed = true;
          }
        }
      });
    }
  }

  // The cost of the best term of id's class (kInfiniteCost if it has none).
  double cost(Id id) const { return costs_[eg_.find(id)]; }
  const ENode& best_node(Id id) const { return best_[eg_.find(id)]; }

  // The best term of id's class; shared subterms are shared in the RecExpr.
  RecExpr extract(Id id) const {
    RecExpr out;
    std::vector<Id> done(costs_.size(), kNoId);
    std::vector<char> on_path(costs_.size(), 0);
    build(eg_.find(id), out, done, on_path);
    return out;
  }

 private:
  const EGraph<A>& eg_;
  CostFn cost_;
  std::vector<double> costs_;
  std::vector<ENode> best_;

  Id build(Id cls, RecExpr& out, std::vector<Id>& done, std::vector<char>& on_path) const {
    if (done[cls] != kNoId) return done[cls];
    if (costs_[cls] >= kInfiniteCost) throw std::runtime_error("e-class has no finite term");
    if (on_path[cls]) throw std::runtime_error("the cost function is not monotone: extraction met a cycle");
    on_path[cls] = 1;
    ENode n = best_[cls];
    for (Id& k : n) k = build(eg_.find(k), out, done, on_path);
    on_path[cls] = 0;
    return done[cls] = out.add(std::move(n));
  }
};

}  // namespace quasi::egraph
