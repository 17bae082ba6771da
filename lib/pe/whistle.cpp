// whistle.cpp — homeomorphic embedding of helper keys (whistle.hpp has the definition).
//
// A term is a subtree of a key: a key item (by index), or a Scheme value inside a frozen item's
// datum. Pairs of terms already compared are remembered, so a test costs at most the product of
// the two sizes (and never more than kEmbedWork pairs).
#include "pe/whistle.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "core/numbers.hpp"

namespace quasi::pe {

namespace {

struct Term {
  bool item;        // a key item (index) or a Scheme value
  uint64_t x;       // index, or value bits
};

class Embedder {
 public:
  Embedder(const gc_vector<KeyItem>& a, const gc_vector<KeyItem>& b, const std::function<size_t(LambdaNode*)>& arity)
      : a_(a), b_(b), arity_(arity) {
    ends(a_, a_end_);
    ends(b_, b_end_);
  }

  bool out_of_work() const { return work_ > kEmbedWork; }

  // Does the subtree of key a at ia (to a1) embed in the subtree of key b at ib?
  bool embeds(Term s, Term t) {
    if (++work_ > kEmbedWork) return true;
    uint64_t k = (s.x * 0x9e3779b97f4a7c15ull) ^ (t.x + (uint64_t(s.item) << 1) + uint64_t(t.item));
    auto range = memo_.equal_range(k);
    for (auto it = range.first; it != range.second; ++it)
      if (it->second.s.item == s.item && it->second.s.x == s.x && it->second.t.item == t.item && it->second.t.x == t.x)
        return it->second.r;
    // Embedding is reflexive: the same frozen datum on both sides (an interpreter's program
    // text, a pattern) embeds without walking it, which would cost the product of its sizes.
    uint64_t sv, tv;
    if (datum(s, true, &sv) && datum(t, false, &tv) && sv == tv) return true;
    bool r = coupled(s, t);
    if (!r) {
      std::vector<Term> kids;
      children(t, false, kids);
      for (const Term& c : kids)
        if ((r = embeds(s, c))) break;
    }
    memo_.emplace(k, Memo{s, t, r});
    return r;
  }

 private:
  struct Memo {
    Term s, t;
    bool r;
  };
  const gc_vector<KeyItem>& a_;
  const gc_vector<KeyItem>& b_;
  const std::function<size_t(LambdaNode*)>& arity_;
  std::vector<size_t> a_end_, b_end_;
  std::unordered_multimap<uint64_t, Memo> memo_;
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

  // The Scheme value a term stands for when it is frozen data (not a hole or a back reference).
  bool datum(Term t, bool left, uint64_t* bits) {
    if (!t.item) {
      *bits = t.x;
      return true;
    }
    const KeyItem& it = key(left)[t.x];
    if (it.tag != KeyItem::kFrozen) return false;
    *bits = it.value.bits;
    return true;
  }

  // Key items on side a (left) or b (right).
  const gc_vector<KeyItem>& key(bool left) { return left ? a_ : b_; }

  // The constructor of a term: 0 for atoms; else a code that two terms share when they are
  // built the same way (pairs with pairs, vectors of one length, closures of one lambda).
  enum Shape : uint8_t { kAtom, kPairShape, kVectorShape, kClosureShape, kViewShape };
  Shape shape(Term t, bool left, int64_t* n, LambdaNode** lam) {
    if (t.item) {
      const KeyItem& it = key(left)[t.x];
      switch (it.tag) {
        case KeyItem::kPair: return kPairShape;
        case KeyItem::kView: return kViewShape;
        case KeyItem::kVector: *n = it.n; return kVectorShape;
        case KeyItem::kClosure: *lam = it.lam; return kClosureShape;
        case KeyItem::kFrozen: return shape(Term{false, it.value.bits}, left, n, lam);
        default: return kAtom;
      }
    }
    Value v{t.x};
    if (is_pair(v)) return kPairShape;
    if (has_type(v, Type::Vector)) {
      *n = v.as<Vector>()->length();
      return kVectorShape;
    }
    return kAtom;
  }

  void children(Term t, bool left, std::vector<Term>& out) {
    if (t.item) {
      const KeyItem& it = key(left)[t.x];
      if (it.tag == KeyItem::kFrozen) return children(Term{false, it.value.bits}, left, out);
      const std::vector<size_t>& end = left ? a_end_ : b_end_;
      size_t n = nkids(it);
      size_t j = t.x + 1;
      for (size_t k = 0; k < n && j < key(left).size(); k++) {
        out.push_back(Term{true, j});
        j = end[j];
      }
      return;
    }
    Value v{t.x};
    if (is_pair(v)) {
      out.push_back(Term{false, car(v).bits});
      out.push_back(Term{false, cdr(v).bits});
    } else if (has_type(v, Type::Vector)) {
      Vector* vec = v.as<Vector>();
      for (int64_t i = 0; i < vec->length(); i++) out.push_back(Term{false, vec->items()[i].bits});
    }
  }

  // The atom of a term, as a value, or `hole`.
  bool atom(Term t, bool left, Value* v, bool* hole) {
    *hole = false;
    if (!t.item) {
      *v = Value{t.x};
      return true;
    }
    const KeyItem& it = key(left)[t.x];
    switch (it.tag) {
      case KeyItem::kFrozen:
      case KeyItem::kRef:
        *v = it.value;
        return true;
      case KeyItem::kHole:
      case KeyItem::kSameHole:
      case KeyItem::kUnknown:
        *hole = true;
        return true;
      default:  // back references: compared by position
        *v = make_fixnum(it.n);
        return false;
    }
  }

  static bool atom_embeds(Value a, Value b) {
    if (a == b) return true;
    if (is_exact_integer(a) && is_exact_integer(b)) {
      int sa = num_compare(a, make_fixnum(0), "embed"), sb = num_compare(b, make_fixnum(0), "embed");
      if (sa != sb) return false;
      Value ma = num_abs(a), mb = num_abs(b);
      return num_compare(ma, make_fixnum(kEmbedIntegerFloor), "embed") >= 0 && num_compare(ma, mb, "embed") <= 0;
    }
    if (is_number(a) && is_number(b)) return has_type(a, Type::Flonum) == has_type(b, Type::Flonum) && !is_exact_integer(a) && !is_exact_integer(b);
    if (has_type(a, Type::String) && has_type(b, Type::String)) {
      int64_t la = a.as<String>()->length(), lb = b.as<String>()->length();
      return la >= kEmbedIntegerFloor && la <= lb;
    }
    return false;
  }

  bool coupled(Term s, Term t) {
    int64_t sn = 0, tn = 0;
    LambdaNode* sl = nullptr;
    LambdaNode* tl = nullptr;
    Shape ss = shape(s, true, &sn, &sl), ts = shape(t, false, &tn, &tl);
    if (ss != ts) return false;
    if (ss == kAtom) {
      Value av = kFalse, bv = kFalse;
      bool ah, bh;
      bool ak = atom(s, true, &av, &ah), bk = atom(t, false, &bv, &bh);
      if (ah || bh) return ah && bh;
      if (!ak || !bk) return ak == bk && av == bv;
      return atom_embeds(av, bv);
    }
    if (sn != tn || sl != tl) return false;
    std::vector<Term> sk, tk;
    children(s, true, sk);
    children(t, false, tk);
    if (sk.size() != tk.size()) return false;
    for (size_t i = 0; i < sk.size(); i++)
      if (!embeds(sk[i], tk[i])) return false;
    return true;
  }
};

}  // namespace

namespace {

// Atoms `atom_embeds` relates only to themselves.
bool rigid(Value v) {
  if (is_exact_integer(v)) return v.is_fixnum() && v.fixnum() > -kEmbedIntegerFloor && v.fixnum() < kEmbedIntegerFloor;
  if (is_number(v)) return false;
  if (has_type(v, Type::String)) return v.as<String>()->length() < kEmbedIntegerFloor;
  return true;
}

// Leaves of frozen data listed per key; past it the filter is not used.
constexpr size_t kRigidWalk = 4096;

bool datum_atoms(Value v, gc_vector<uint64_t>& out, size_t& budget) {
  for (;;) {
    if (budget == 0) return false;
    budget--;
    if (is_pair(v)) {
      if (!datum_atoms(car(v), out, budget)) return false;
      v = cdr(v);
      continue;
    }
    if (has_type(v, Type::Vector)) {
      Vector* vec = v.as<Vector>();
      for (int64_t i = 0; i < vec->length(); i++)
        if (!datum_atoms(vec->items()[i], out, budget)) return false;
      return true;
    }
    if (rigid(v)) out.push_back(v.bits);
    return true;
  }
}

}  // namespace

bool rigid_atoms(const gc_vector<KeyItem>& key, gc_vector<uint64_t>& out) {
  out.clear();
  size_t budget = kRigidWalk;
  for (const KeyItem& it : key) {
    if (it.tag == KeyItem::kFrozen) {
      if (!datum_atoms(it.value, out, budget)) return false;
    } else if (it.tag == KeyItem::kRef) {
      if (rigid(it.value)) out.push_back(it.value.bits);
    }
  }
  std::sort(out.begin(), out.end());
  return true;
}

bool key_embedded(const gc_vector<KeyItem>& a, const gc_vector<uint32_t>& a_slots, const gc_vector<KeyItem>& b,
                  const gc_vector<uint32_t>& b_slots, const std::function<size_t(LambdaNode*)>& arity) {
  if (a_slots.size() != b_slots.size()) return false;
  Embedder e(a, b, arity);
  for (size_t s = 0; s < a_slots.size(); s++) {
    size_t a0 = a_slots[s], b0 = b_slots[s];
    if (a0 >= a.size() || b0 >= b.size()) return false;
    if (!e.embeds(Term{true, a0}, Term{true, b0})) return false;
  }
  return true;
}

}  // namespace quasi::pe
