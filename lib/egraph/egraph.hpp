// egraph.hpp — the e-graph: hash-consed e-nodes, union-find e-classes, deferred rebuilding and
// e-class analyses, after egg (Willsey et al., "egg: Fast and Extensible Equality Saturation",
// POPL 2021). The engine knows nothing of Scheme: an operator or a leaf is an `Op`, a number the
// language layer above interns (lib/builtins/egraph.cpp interns datums, lib/passes/eqsat.cpp IR
// primitives and variables); what a class "means" beyond equality is the analysis's business.
//
// Invariants (after rebuild(); between a union and the next rebuild only the first holds):
//  - union-find: find(id) is the canonical id of id's class; classes_[find(id)] is that class;
//  - hash-consing: memo_ maps every canonical e-node (children canonical) to its class, so a node
//    exists in at most one class;
//  - congruence: two canonical nodes with the same op and the same canonical children are in the
//    same class (unions queue the parents of the merged class in pending_; rebuild repairs them
//    all at once, egg's "deferred rebuilding");
//  - analysis: a class's data is the join (Analysis::merge) of make() over its nodes; unions whose
//    join changed a side queue that side's parents in analysis_pending_, which rebuild drains;
//  - each class's nodes are canonical, sorted and unique, and by_op_ lists, per operator, the
//    canonical classes holding a node with that operator (the e-matcher's index).
//
// The Analysis contract (egg's):
//   using Data = ...;                                  copyable
//   Data make(EGraph<A>& eg, const ENode& n);          data of a new node (children are classes)
//   DidMerge merge(Data& into, Data from);             semilattice join into `into`; says whether
//                                                      `into` changed and whether the result
//                                                      differs from `from`
//   void modify(EGraph<A>& eg, Id id);                 may add nodes and union (e.g. add the
//                                                      constant a class folded to, then prune)
// NoAnalysis is the unit analysis.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace quasi::egraph {

using Id = uint32_t;
using Op = uint32_t;
constexpr Id kNoId = UINT32_MAX;

// An operator applied to e-classes. A leaf has no children. Children are class ids (canonical
// once canonicalized). Kept small: the common arities (0..3) store their children inline.
class ENode {
 public:
  Op op = 0;

  ENode() = default;
  explicit ENode(Op o) : op(o) {}
  ENode(Op o, std::initializer_list<Id> kids) : op(o) {
    for (Id k : kids) push(k);
  }
  template <class It>
  ENode(Op o, It first, It last) : op(o) {
    for (; first != last; ++first) push(*first);
  }
  ENode(const ENode& o) : op(o.op) { for (Id k : o.children()) push(k); }
  ENode(ENode&& o) noexcept : op(o.op), n_(o.n_), heap_(std::move(o.heap_)) {
    std::copy(o.inline_, o.inline_ + kInline, inline_);
  }
  ENode& operator=(const ENode& o) {
    if (this != &o) { op = o.op; n_ = 0; heap_.clear(); for (Id k : o.children()) push(k); }
    return *this;
  }
  ENode& operator=(ENode&& o) noexcept {
    op = o.op; n_ = o.n_; heap_ = std::move(o.heap_);
    std::copy(o.inline_, o.inline_ + kInline, inline_);
    return *this;
  }

  void push(Id k) {
    if (n_ < kInline) {
      inline_[n_] = k;
    } else {
      if (n_ == kInline) heap_.assign(inline_, inline_ + kInline);
      heap_.push_back(k);
    }
    n_++;
  }
  uint32_t arity() const { return n_; }
  bool is_leaf() const { return n_ == 0; }
  Id* begin() { return n_ <= kInline ? inline_ : heap_.data(); }
  Id* end() { return begin() + n_; }
  const Id* begin() const { return n_ <= kInline ? inline_ : heap_.data(); }
  const Id* end() const { return begin() + n_; }
  Id operator[](size_t i) const { return begin()[i]; }
  Id& operator[](size_t i) { return begin()[i]; }
  struct Span {
    const Id* b; const Id* e;
    const Id* begin() const { return b; }
    const Id* end() const { return e; }
    size_t size() const { return size_t(e - b); }
    Id operator[](size_t i) const { return b[i]; }
  };
  Span children() const { return {begin(), end()}; }

  // Same operator and arity (what e-matching compares before looking at children).
  bool matches(const ENode& o) const { return op == o.op && n_ == o.n_; }
  bool operator==(const ENode& o) const {
    return op == o.op && n_ == o.n_ && std::equal(begin(), end(), o.begin());
  }
  bool operator<(const ENode& o) const {
    if (op != o.op) return op < o.op;
    if (n_ != o.n_) return n_ < o.n_;
    return std::lexicographical_compare(begin(), end(), o.begin(), o.end());
  }
  size_t hash() const {
    uint64_t h = uint64_t(op) * 0x9E3779B97F4A7C15ull ^ n_;
    for (Id k : children()) h = (h ^ k) * 0xff51afd7ed558ccdull, h ^= h >> 32;
    return size_t(h);
  }

 private:
  static constexpr uint32_t kInline = 3;
  uint32_t n_ = 0;
  Id inline_[kInline] = {0, 0, 0};
  std::vector<Id> heap_;  // all children once there are more than kInline
};

struct ENodeHash {
  size_t operator()(const ENode& n) const { return n.hash(); }
};

// A term as a flat list of nodes whose children index earlier nodes; the root is the last node
// (egg's RecExpr). Extraction produces one, add_expr adds one.
struct RecExpr {
  std::vector<ENode> nodes;
  Id add(ENode n) { nodes.push_back(std::move(n)); return Id(nodes.size() - 1); }
  Id root() const { return Id(nodes.size() - 1); }
  bool empty() const { return nodes.empty(); }
};

// What a join changed: into_changed — the joined value differs from the old `into`;
// from_changed — it differs from `from`. (egg's DidMerge.)
struct DidMerge {
  bool into_changed;
  bool from_changed;
};

class UnionFind {
 public:
  Id make_set() { parents_.push_back(Id(parents_.size())); return Id(parents_.size() - 1); }
  size_t size() const { return parents_.size(); }
  Id find(Id x) const {
    while (parents_[x] != x) x = parents_[x];
    return x;
  }
  // With path halving: the next find of x is shorter.
  Id find_mut(Id x) {
    while (parents_[x] != x) {
      parents_[x] = parents_[parents_[x]];
      x = parents_[x];
    }
    return x;
  }
  // root becomes the parent of other (both roots).
  void unite(Id root, Id other) { parents_[other] = root; }

 private:
  std::vector<Id> parents_;
};

template <class A>
class EGraph;

struct NoAnalysis {
  struct Data {};
  template <class EG> Data make(EG&, const ENode&) { return {}; }
  DidMerge merge(Data&, Data) { return {false, false}; }
  template <class EG> void modify(EG&, Id) {}
};

template <class A>
struct EClass {
  Id id;
  std::vector<ENode> nodes;
  typename A::Data data;
  // Nodes that have this class as a child, with the class each was in when it was added. Stale
  // (non-canonical) entries are fine: rebuild canonicalizes what it takes from here.
  std::vector<std::pair<ENode, Id>> parents;
};

template <class A>
class EGraph {
 public:
  using Data = typename A::Data;
  using Class = EClass<A>;

  A analysis;

  EGraph() = default;
  explicit EGraph(A a) : analysis(std::move(a)) {}
  EGraph(const EGraph&) = delete;
  EGraph& operator=(const EGraph&) = delete;

  // ---- queries ----------------------------------------------------------------------------
  Id find(Id id) const { return uf_.find(id); }
  Id find_mut(Id id) { return uf_.find_mut(id); }
  // The class of `id` (any id of it).
  Class& operator[](Id id) { return *classes_[find(id)]; }
  const Class& operator[](Id id) const { return *classes_[find(id)]; }
  // All ids ever made (canonical or not): valid arguments of find.
  size_t id_count() const { return uf_.size(); }
  // e-nodes in the hash-cons (egg's total_size: what node limits count).
  size_t total_size() const { return memo_.size(); }
  // e-nodes in the classes (after rebuild: each canonical node once).
  size_t total_number_of_nodes() const {
    size_t n = 0;
    for (const auto& c : classes_) if (c) n += c->nodes.size();
    return n;
  }
  size_t number_of_classes() const { return n_classes_; }
  bool clean() const { return pending_.empty() && analysis_pending_.empty(); }

  // Calls f(Class&) on every canonical class.
  template <class F> void for_each_class(F&& f) {
    for (auto& c : classes_) if (c) f(*c);
  }
  template <class F> void for_each_class(F&& f) const {
    for (const auto& c : classes_) if (c) f(static_cast<const Class&>(*c));
  }
  // Canonical classes with a node of operator `op` (exact after rebuild; between a union and the
  // rebuild the list may name merged-away ids, which find() maps to their class).
  const std::vector<Id>& classes_with_op(Op op) const {
    static const std::vector<Id> kEmpty;
    auto it = by_op_.find(op);
    return it == by_op_.end() ? kEmpty : it->second;
  }

  ENode canonicalize(ENode n) const {
    for (Id& k : n) k = find(k);
    return n;
  }
  // The class holding `n`, if any (children may be non-canonical).
  Id lookup(const ENode& n) const {
    auto it = memo_.find(canonicalize(n));
    return it == memo_.end() ? kNoId : find(it->second);
  }

  // ---- building ------------------------------------------------------------------------------
  // Adds `n` (or finds it): its class id.
  Id add(ENode n) {
    for (Id& k : n) k = find_mut(k);
    auto it = memo_.find(n);
    if (it != memo_.end()) return find_mut(it->second);
    Id id = uf_.make_set();
    auto c = std::make_unique<Class>();
    c->id = id;
    c->data = analysis.make(*this, n);
    for (Id k : n) classes_[k]->parents.emplace_back(n, id);
    c->nodes.push_back(n);
    by_op_[n.op].push_back(id);
    memo_.emplace(std::move(n), id);
    classes_.push_back(std::move(c));
    n_classes_++;
    analysis.modify(*this, id);
    return id;
  }

  Id add_expr(const RecExpr& e) {
    std::vector<Id> ids(e.nodes.size());
    for (size_t i = 0; i < e.nodes.size(); i++) {
      ENode n = e.nodes[i];
      for (Id& k : n) k = ids[k];
      ids[i] = add(std::move(n));
    }
    return ids.empty() ? kNoId : ids.back();
  }

  // Merges the classes of a and b: true if they were different. Congruence and the analysis are
  // restored by the next rebuild().
  bool merge(Id a, Id b) {
    a = find_mut(a);
    b = find_mut(b);
    if (a == b) return false;
    // The class with more parents stays the root: fewer parent entries move.
    if (classes_[a]->parents.size() < classes_[b]->parents.size()) std::swap(a, b);
    uf_.unite(a, b);
    n_classes_--;
    std::unique_ptr<Class> from = std::move(classes_[b]);
    Class& into = *classes_[a];
    for (auto& p : from->parents) pending_.push_back(p);
    DidMerge d = analysis.merge(into.data, std::move(from->data));
    if (d.into_changed)
      for (auto& p : into.parents) analysis_pending_.push_back(p);
    if (d.from_changed)
      for (auto& p : from->parents) analysis_pending_.push_back(p);
    into.nodes.insert(into.nodes.end(), std::make_move_iterator(from->nodes.begin()),
                      std::make_move_iterator(from->nodes.end()));
    into.parents.insert(into.parents.end(), std::make_move_iterator(from->parents.begin()),
                        std::make_move_iterator(from->parents.end()));
    analysis.modify(*this, a);
    return true;
  }

  // Keeps only the leaves of `id`'s class (egg's math example prunes a class that folded to a
  // constant this way, so no rule keeps growing it). The removed nodes stay in the hash-cons.
  void prune_to_leaves(Id id) {
    Class& c = (*this)[id];
    bool any_leaf = std::any_of(c.nodes.begin(), c.nodes.end(), [](const ENode& n) { return n.is_leaf(); });
    if (!any_leaf) return;
    c.nodes.erase(std::remove_if(c.nodes.begin(), c.nodes.end(), [](const ENode& n) { return !n.is_leaf(); }),
                  c.nodes.end());
  }

  // Restores the invariants above after unions: repairs congruence (parents of merged classes
  // are re-canonicalized; two that became equal are unioned, which may queue more), then
  // propagates analysis data upward until nothing changes, then canonicalizes every class's node
  // list and the operator index. Returns the number of unions it made.
  size_t rebuild() {
    size_t unions = 0;
    while (!pending_.empty() || !analysis_pending_.empty()) {
      while (!pending_.empty()) {
        auto [node, cls] = std::move(pending_.back());
        pending_.pop_back();
        for (Id& k : node) k = find_mut(k);
        auto [it, inserted] = memo_.try_emplace(std::move(node), cls);
        if (!inserted) {
          Id old = it->second;
          it->second = find_mut(cls);
          if (merge(old, cls)) unions++;
        }
      }
      while (!analysis_pending_.empty()) {
        auto [node, cls] = std::move(analysis_pending_.back());
        analysis_pending_.pop_back();
        Id id = find_mut(cls);
        for (Id& k : node) k = find_mut(k);
        Data d = analysis.make(*this, node);
        Class& c = *classes_[id];
        DidMerge dm = analysis.merge(c.data, std::move(d));
        if (dm.into_changed) {
          for (auto& p : c.parents) analysis_pending_.push_back(p);
          analysis.modify(*this, id);
        }
      }
    }
    rebuild_classes();
    return unions;
  }

 private:
  UnionFind uf_;
  std::vector<std::unique_ptr<Class>> classes_;  // by id; null for ids merged away
  size_t n_classes_ = 0;
  std::unordered_map<ENode, Id, ENodeHash> memo_;
  std::unordered_map<Op, std::vector<Id>> by_op_;
  std::vector<std::pair<ENode, Id>> pending_;
  std::vector<std::pair<ENode, Id>> analysis_pending_;

  void rebuild_classes() {
    for (auto& [op, ids] : by_op_) ids.clear();
    for (auto& cp : classes_) {
      if (!cp) continue;
      Class& c = *cp;
      for (ENode& n : c.nodes) for (Id& k : n) k = find(k);
      std::sort(c.nodes.begin(), c.nodes.end());
      c.nodes.erase(std::unique(c.nodes.begin(), c.nodes.end()), c.nodes.end());
      Op last = 0;
      bool first = true;
      for (const ENode& n : c.nodes) {
        if (first || n.op != last) by_op_[n.op].push_back(c.id);
        last = n.op;
        first = false;
      }
      // Parents: drop duplicates (canonicalized) so they do not grow without bound.
      for (auto& p : c.parents) { for (Id& k : p.first) k = find(k); p.second = find(p.second); }
      std::sort(c.parents.begin(), c.parents.end(), [](const auto& x, const auto& y) {
        if (x.first == y.first) return x.second < y.second;
        return x.first < y.first;
      });
      c.parents.erase(std::unique(c.parents.begin(), c.parents.end()), c.parents.end());
    }
  }
};

}  // namespace quasi::egraph
