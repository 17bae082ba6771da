// whistle.cpp — homeomorphic embedding of helper keys (whistle.hpp has the definition).
//
// A term is a subtree of a key: a key item, by index. Pairs of terms already compared are
// remembered in a table of |a| x |b| entries, so a test costs at most the product of the two
// sizes (and never more than kEmbedWork pairs).
#include "pe/whistle.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "core/numbers.hpp"

namespace quasi::pe {

namespace {

// Atoms `atom_embeds` relates only to themselves.
bool rigid(Value v) {
  if (is_exact_integer(v)) return v.is_fixnum() && v.fixnum() > -kEmbedIntegerFloor && v.fixnum() < kEmbedIntegerFloor;
  if (is_number(v)) return false;
  if (has_type(v, Type::String)) return v.as<String>()->length() < kEmbedIntegerFloor;
  return true;  // symbols, characters, booleans, '(), frozen pairs and vectors, identities
}

// `counted`: a is a loop counter under dynamic control (whistle.hpp): no floor, and 0 embeds in
// an integer of either sign.
bool atom_embeds(Value a, Value b, bool counted) {
  if (a == b) return true;
  if (is_exact_integer(a) && is_exact_integer(b)) {
    int sa = num_compare(a, make_fixnum(0), "embed"), sb = num_compare(b, make_fixnum(0), "embed");
    if (sa != sb && !(counted && sa == 0)) return false;
    Value ma = num_abs(a), mb = num_abs(b);
    Value floor = make_fixnum(counted ? 0 : kEmbedIntegerFloor);
    return num_compare(ma, floor, "embed") >= 0 && num_compare(ma, mb, "embed") <= 0;
  }
  if (is_number(a) && is_number(b)) return has_type(a, Type::Flonum) == has_type(b, Type::Flonum) && !is_exact_integer(a) && !is_exact_integer(b);
  if (has_type(a, Type::String) && has_type(b, Type::String)) {
    int64_t la = a.as<String>()->length(), lb = b.as<String>()->length();
    return la >= kEmbedIntegerFloor && la <= lb;
  }
  return false;
}

class Embedder {
 public:
  Embedder(const gc_vector<KeyItem>& a, const gc_vector<KeyItem>& b, const std::function<size_t(LambdaNode*)>& arity,
           const std::vector<bool>* a_counted)
      : a_(a), b_(b), arity_(arity), a_counted_(a_counted) {
    ends(a_, a_end_);
    ends(b_, b_end_);
    if (a.size() * b.size() <= kFlatMemo) flat_.assign(a.size() * b.size(), kUnknown);
  }

  // Does the subtree of key a at s embed in the subtree of key b at t?
  bool embeds(size_t s, size_t t) {
    if (++work_ > kEmbedWork) return true;
    size_t at = s * b_.size() + t;
    if (!flat_.empty()) {
      if (flat_[at] != kUnknown) return flat_[at] == kYes;
    } else if (auto it = sparse_.find(at); it != sparse_.end()) {
      return it->second == kYes;
    }
    bool r = coupled(s, t);
    for (size_t j = t + 1, k = 0, n = nkids(b_[t]); !r && k < n && j < b_.size(); k++, j = b_end_[j])
      r = embeds(s, j);
    if (!flat_.empty()) flat_[at] = r ? kYes : kNo;
    else sparse_[at] = r ? kYes : kNo;
    return r;
  }

 private:
  static constexpr int8_t kUnknown = -1, kNo = 0, kYes = 1;
  const gc_vector<KeyItem>& a_;
  const gc_vector<KeyItem>& b_;
  const std::function<size_t(LambdaNode*)>& arity_;
  const std::vector<bool>* a_counted_;  // per item of a: a counter (Entry::counted); may be null
  std::vector<size_t> a_end_, b_end_;
  static constexpr size_t kFlatMemo = size_t(1) << 16;  // a table up to this many pairs, else a map
  std::vector<int8_t> flat_;
  std::unordered_map<size_t, int8_t> sparse_;
  int64_t work_ = 0;

  // end[i]: the index just past the subtree of item i.
  void ends(const gc_vector<KeyItem>& key, std::vector<size_t>& end) {
    end.assign(key.size(), 0);
    for (size_t i = key.size(); i-- > 0;) {
      size_t n = nkids(key[i]);
      size_t j = i + 1;
      for (size_t k = 0; k < n && j < key.size(); k++) j = end[j];
      end[i] = j;
    }
  }
  size_t nkids(const KeyItem& it) {
    switch (it.tag) {
      case KeyItem::kPair: return 2;
      case KeyItem::kView: return 2;
      case KeyItem::kVector: return size_t(it.n);
      case KeyItem::kClosure: return arity_(it.lam);
      default: return 0;
    }
  }

  // Same constructor: pairs with pairs (a view is its own kind), vectors of one length, closures
  // of one lambda. Frozen data is an atom: it comes from the program's literals and the static
  // arguments — a finite set during a request (static runs and folds use only data that is
  // frozen already), so it cannot grow, and a piece of program text must not count as embedded
  // in a larger piece (an interpreter's loop body holds the expressions of its arms).
  bool coupled(size_t s, size_t t) {
    const KeyItem& x = a_[s];
    const KeyItem& y = b_[t];
    bool xa = nkids(x) == 0 && x.tag != KeyItem::kVector && x.tag != KeyItem::kPair && x.tag != KeyItem::kView &&
              x.tag != KeyItem::kClosure;
    bool ya = nkids(y) == 0 && y.tag != KeyItem::kVector && y.tag != KeyItem::kPair && y.tag != KeyItem::kView &&
              y.tag != KeyItem::kClosure;
    if (xa || ya) {
      if (!xa || !ya) return false;
      bool xh = x.tag == KeyItem::kHole || x.tag == KeyItem::kSameHole || x.tag == KeyItem::kUnknown;
      bool yh = y.tag == KeyItem::kHole || y.tag == KeyItem::kSameHole || y.tag == KeyItem::kUnknown;
      if (xh || yh) return xh && yh;
      bool xv = x.tag == KeyItem::kFrozen || x.tag == KeyItem::kRef;
      bool yv = y.tag == KeyItem::kFrozen || y.tag == KeyItem::kRef;
      if (!xv || !yv) return xv == yv && x.n == y.n;  // back references: by position
      return atom_embeds(x.value, y.value, a_counted_ && s < a_counted_->size() && (*a_counted_)[s]);
    }
    if (x.tag != y.tag || x.lam != y.lam || (x.tag == KeyItem::kVector && x.n != y.n)) return false;
    size_t n = nkids(x);
    for (size_t i = s + 1, j = t + 1, k = 0; k < n; k++, i = a_end_[i], j = b_end_[j]) {
      if (i >= a_.size() || j >= b_.size()) return false;
      if (!embeds(i, j)) return false;
    }
    return true;
  }
};

}  // namespace

bool rigid_atoms(const gc_vector<KeyItem>& key, gc_vector<uint64_t>& out, const std::vector<bool>& counted) {
  out.clear();
  for (size_t k = 0; k < key.size(); k++) {
    const KeyItem& it = key[k];
    if (k < counted.size() && counted[k]) continue;
    if ((it.tag == KeyItem::kFrozen || it.tag == KeyItem::kRef) && rigid(it.value)) out.push_back(it.value.bits);
  }
  std::sort(out.begin(), out.end());
  return true;
}

bool key_embedded(const gc_vector<KeyItem>& a, const gc_vector<uint32_t>& a_slots, const gc_vector<KeyItem>& b,
                  const gc_vector<uint32_t>& b_slots, const std::function<size_t(LambdaNode*)>& arity,
                  const std::vector<bool>* a_counted) {
  if (a_slots.size() != b_slots.size()) return false;
  Embedder e(a, b, arity, a_counted);
  for (size_t s = 0; s < a_slots.size(); s++) {
    size_t a0 = a_slots[s], b0 = b_slots[s];
    if (a0 >= a.size() || b0 >= b.size()) return false;
    if (!e.embeds(a0, b0)) return false;
  }
  return true;
}

}  // namespace quasi::pe
