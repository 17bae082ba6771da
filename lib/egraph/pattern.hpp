// pattern.hpp — patterns with variables, substitutions, and e-matching over a rebuilt e-graph.
//
// A Pattern is a flat tree like RecExpr (children index earlier nodes, root last) whose nodes are
// either an operator applied to sub-patterns (a leaf when it has none) or a variable. Variables
// are numbered 0..n_vars-1 in order of first appearance; `var_names` keeps the caller's names.
// A Subst binds variable i to an e-class id (kNoId while unbound).
//
// Matching is backtracking top-down e-matching: for the root operator only the classes the
// e-graph's operator index lists are visited (no scan of the whole graph), and within a class
// only the nodes with that operator and arity (a class's nodes are sorted, so they are one run).
// A variable seen twice must bind the same class both times. Matching needs a rebuilt graph.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "egraph/egraph.hpp"

namespace quasi::egraph {

struct PatNode {
  bool is_var = false;
  Op op = 0;          // !is_var
  uint32_t var = 0;   // is_var
  std::vector<uint32_t> children;  // indexes of earlier PatNodes
};

struct Pattern {
  std::vector<PatNode> nodes;  // root last
  std::vector<std::string> var_names;

  uint32_t root() const { return uint32_t(nodes.size() - 1); }
  size_t n_vars() const { return var_names.size(); }
  // The variable numbered for `name`, made if new.
  uint32_t var_index(const std::string& name) {
    for (size_t i = 0; i < var_names.size(); i++) if (var_names[i] == name) return uint32_t(i);
    var_names.push_back(name);
    return uint32_t(var_names.size() - 1);
  }
  int find_var(const std::string& name) const {
    for (size_t i = 0; i < var_names.size(); i++) if (var_names[i] == name) return int(i);
    return -1;
  }
  uint32_t add_var(const std::string& name) {
    PatNode n;
    n.is_var = true;
    n.var = var_index(name);
    nodes.push_back(n);
    return root();
  }
  uint32_t add_op(Op op, std::vector<uint32_t> kids) {
    PatNode n;
    n.op = op;
    n.children = std::move(kids);
    nodes.push_back(std::move(n));
    return root();
  }
};

using Subst = std::vector<Id>;

// All the substitutions under which a pattern matches one class.
struct SearchMatches {
  Id eclass;
  std::vector<Subst> substs;
};

// A non-owning callable reference (cheaper than std::function for the matcher's continuations).
template <class Sig> class FnRef;
template <class R, class... Args>
class FnRef<R(Args...)> {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FnRef>)
  FnRef(F& f) : obj_(&f), call_([](void* o, Args... a) -> R { return (*static_cast<F*>(o))(a...); }) {}
  R operator()(Args... a) const { return call_(obj_, a...); }

 private:
  void* obj_;
  R (*call_)(void*, Args...);
};

template <class A>
class Matcher {
 public:
  Matcher(const EGraph<A>& eg, const Pattern& p) : eg_(eg), p_(p) {}

  // Calls k(subst) for every way `pattern` matches class `cls`; k returns false to stop.
  // Returns false if stopped.
  bool match(Id cls, FnRef<bool(Subst&)> k) {
    Subst s(p_.n_vars(), kNoId);
    return match_at(p_.root(), eg_.find(cls), s, k);
  }

 private:
  const EGraph<A>& eg_;
  const Pattern& p_;

  bool match_at(uint32_t pi, Id cls, Subst& s, FnRef<bool(Subst&)> k) {
    const PatNode& pn = p_.nodes[pi];
    if (pn.is_var) {
      Id& slot = s[pn.var];
      if (slot == kNoId) {
        slot = cls;
        bool go = k(s);
        slot = kNoId;
        return go;
      }
      return slot == cls ? k(s) : true;
    }
    const auto& nodes = eg_[cls].nodes;
    // Nodes are sorted by (op, arity, children): the run with this op.
    ENode key(pn.op);
    auto it = std::lower_bound(nodes.begin(), nodes.end(), key);
    for (; it != nodes.end() && it->op == pn.op; ++it) {
      if (it->arity() != pn.children.size()) continue;
      if (!match_kids(pn, *it, 0, s, k)) return false;
    }
    return true;
  }

  bool match_kids(const PatNode& pn, const ENode& n, size_t i, Subst& s, FnRef<bool(Subst&)> k) {
    if (i == pn.children.size()) return k(s);
    auto next = [&](Subst& s2) { return match_kids(pn, n, i + 1, s2, k); };
    return match_at(pn.children[i], eg_.find(n[i]), s, FnRef<bool(Subst&)>(next));
  }
};

// Every match of `p` in `eg` (rebuilt), grouped by class, stopping once more than `limit`
// substitutions were found (the backoff scheduler's budget; the result then has limit+1).
template <class A>
std::vector<SearchMatches> search(const EGraph<A>& eg, const Pattern& p, size_t limit = SIZE_MAX) {
  std::vector<SearchMatches> out;
  size_t total = 0;
  Matcher<A> m(eg, p);
  auto collect_class = [&](Id cls) {
    SearchMatches sm{cls, {}};
    auto k = [&](Subst& s) {
      // No duplicates to remove: in a rebuilt graph a class's nodes are unique and a ground
      // sub-pattern matches at most one node per class, so two paths give two substitutions.
      sm.substs.push_back(s);
      return ++total <= limit;
    };
    bool go = m.match(cls, FnRef<bool(Subst&)>(k));
    if (!sm.substs.empty()) out.push_back(std::move(sm));
    return go;
  };
  const PatNode& root = p.nodes[p.root()];
  if (root.is_var) {
    std::vector<Id> all;
    eg.for_each_class([&](const auto& c) { all.push_back(c.id); });
    for (Id c : all) if (!collect_class(c)) break;
  } else {
    for (Id c : eg.classes_with_op(root.op)) if (!collect_class(c)) break;
  }
  return out;
}

// Adds the instance of `p` under `s` (every variable of p bound): its class.
template <class A>
Id instantiate(EGraph<A>& eg, const Pattern& p, const Subst& s) {
  std::vector<Id> ids(p.nodes.size());
  for (size_t i = 0; i < p.nodes.size(); i++) {
    const PatNode& pn = p.nodes[i];
    if (pn.is_var) {
      ids[i] = s[pn.var];
    } else {
      ENode n(pn.op);
      for (uint32_t c : pn.children) n.push(ids[c]);
      ids[i] = eg.add(std::move(n));
    }
  }
  return ids.back();
}

}  // namespace quasi::egraph
