// memo.cpp — memoization and generalization: the key of a specialized call (the static skeleton of
// its arguments), helpers built from keys, rebuilding partial values inside a helper, restarts
// that generalize a pending helper (accumulators, the whistle), and the call to a helper.
// The design is described in specializer.hpp and lib/pe/README.md ("Termination and size").
#include "pe/specializer.hpp"
#include "pe/whistle.hpp"

#include <algorithm>
#include <functional>

#include "core/equality.hpp"
#include "core/cstack.hpp"
#include "core/error.hpp"

namespace quasi::pe {

// Pointer -> index for the key being built (which objects, views, dynamic variables and boxes
// it holds already, for back references and repeated holes), cleared in O(1) by a generation
// count. Keys of the KMP matcher's restarts have ~85 items: scanning the vectors for each was
// quadratic (a third of the instructions of entering a helper).
class PtrIndex {
 public:
  enum Kind : uintptr_t { kSeen = 0, kView = 1, kVar = 2, kInput = 3 };
  void clear() {
    if (++gen_ == 0) {  // wrapped: forget every slot explicitly
      for (Slot& s : slots_) s.gen = 0;
      gen_ = 1;
    }
    used_ = 0;
  }
  const uint32_t* find(const void* p, Kind k) const {
    if (slots_.empty()) return nullptr;
    uintptr_t key = reinterpret_cast<uintptr_t>(p) | k;
    for (size_t i = slot_of(key);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& s = slots_[i];
      if (s.gen != gen_) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  // The first index put for `p` stays (the scans this replaces found the first).
  void put(const void* p, Kind k, uint32_t value) {
    if ((used_ + 1) * 2 > slots_.size()) grow();
    uintptr_t key = reinterpret_cast<uintptr_t>(p) | k;
    for (size_t i = slot_of(key);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.gen != gen_) {
        s = Slot{key, value, gen_};
        used_++;
        return;
      }
      if (s.key == key) return;
    }
  }

 private:
  struct Slot {
    uintptr_t key = 0;  // the pointer (8-aligned) with its Kind in the low bits
    uint32_t value = 0;
    uint32_t gen = 0;   // the slot is used iff gen == gen_
  };
  // Fibonacci hashing: the top bits of the product (objects' addresses differ in their low bits).
  size_t slot_of(uintptr_t key) const { return size_t((key * 0x9E3779B97F4A7C15ull) >> shift_); }
  void grow() {
    gc_vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    shift_ = 64 - unsigned(__builtin_ctzll(slots_.size()));
    uint32_t g = gen_;
    gen_ = 1;
    used_ = 0;
    for (Slot& s : old)
      if (s.gen == g) put(reinterpret_cast<const void*>(s.key & ~uintptr_t(3)), Kind(s.key & 3), s.value);
  }
  gc_vector<Slot> slots_;
  unsigned shift_ = 58;
  uint32_t gen_ = 1;
  size_t used_ = 0;
};

struct Specializer::KeyBuild {
  gc_vector<KeyItem> items;
  gc_vector<uint32_t> slot_start;
  gc_vector<PVal*> inputs;     // one per helper parameter: a Dyn, or an object passed materialized
  gc_vector<Value> input_names;
  gc_vector<PVal*> seen;       // objects encoded so far (for back references)
  gc_vector<uint32_t> seen_at;
  quasi::gc_vector<Var*> view_vars;   // dynamic pairs encoded as views so far, and where
  gc_vector<uint32_t> view_at;
  PtrIndex index;              // the four above (inputs by variable or box), by pointer
  Value name = kFalse;         // the parameter name of the slot being encoded
  // Where each item's value sits: the partially static object holding it and which field (or
  // no object and the slot number), for generalizing just that part (a restart's `parts`).
  gc_vector<PVal*> owner;
  gc_vector<int32_t> field;
  PVal* cur_owner = nullptr;
  int32_t cur_field = 0;
  bool ok = true;
  bool probe = false;          // only to compare: boxes are not made to escape
  // Only the key's hash and size, not its items (enters_helper: most probes find no helper with
  // that hash, and need not build the key).
  bool hash_only = false;
  size_t count = 0;            // items pushed (items.size() unless hash_only)
  uint64_t hash = 0;

  void add_input(PVal* v, Value input_name) {
    if (v->kind == PKind::Dyn) index.put(v->var, PtrIndex::kVar, uint32_t(inputs.size()));
    else if (v->kind == PKind::Box) index.put(v, PtrIndex::kInput, uint32_t(inputs.size()));
    inputs.push_back(v);
    input_names.push_back(input_name);
  }
  void see(PVal* v, uint32_t at) {
    index.put(v, PtrIndex::kSeen, at);
    seen.push_back(v);
    seen_at.push_back(at);
  }
  void add_view(Var* x, uint32_t at) {
    index.put(x, PtrIndex::kView, at);
    view_vars.push_back(x);
    view_at.push_back(at);
  }
  // After the vectors were cut back (an argument's key given up): the index from them again.
  void reindex() {
    index.clear();
    for (size_t k = 0; k < seen.size(); k++) index.put(seen[k], PtrIndex::kSeen, seen_at[k]);
    for (size_t k = 0; k < view_vars.size(); k++) index.put(view_vars[k], PtrIndex::kView, view_at[k]);
    for (size_t k = 0; k < inputs.size(); k++) {
      PVal* v = inputs[k];
      if (v->kind == PKind::Dyn) index.put(v->var, PtrIndex::kVar, uint32_t(k));
      else if (v->kind == PKind::Box) index.put(v, PtrIndex::kInput, uint32_t(k));
    }
  }
  // Empty, keeping the vectors' capacity (the probe key is reused: Specializer::probe_key).
  void reset() {
    items.clear();
    slot_start.clear();
    inputs.clear();
    input_names.clear();
    seen.clear();
    seen_at.clear();
    view_vars.clear();
    view_at.clear();
    index.clear();
    name = kFalse;
    owner.clear();
    field.clear();
    cur_owner = nullptr;
    cur_field = 0;
    ok = true;
    probe = true;
    hash_only = false;
    count = 0;
    hash = 0;
  }
};

class Specializer::ProbeKey {
 public:
  explicit ProbeKey(Specializer& sp) : sp_(sp) {
    if (sp.probe_busy_) {  // a probe inside a probe (none today): its own key
      kb_ = gc_new<KeyBuild>();
    } else {
      if (!sp.probe_kb_) sp.probe_kb_ = gc_new<KeyBuild>();
      kb_ = sp.probe_kb_;
      sp.probe_busy_ = mine_ = true;
    }
    kb_->reset();
  }
  ~ProbeKey() {
    if (mine_) sp_.probe_busy_ = false;
  }
  ProbeKey(const ProbeKey&) = delete;
  ProbeKey& operator=(const ProbeKey&) = delete;
  KeyBuild& operator*() { return *kb_; }

 private:
  Specializer& sp_;
  KeyBuild* kb_ = nullptr;
  bool mine_ = false;
};

void Specializer::push_item(KeyBuild& kb, const KeyItem& it) {
  kb.count++;
  if (kb.hash_only) {
    kb.hash = hash_item(kb.hash, it);
    return;
  }
  kb.items.push_back(it);
  kb.owner.push_back(kb.cur_owner);
  kb.field.push_back(kb.cur_field);
}

void Specializer::encode(PVal* v, KeyBuild& kb) {
  if (stack_exhausted()) throw exhausted("stack depth");
  // Every path below pushes exactly one item for `v` first (or gives the key up), with `v`'s
  // owner and field (push_item).
  struct Child {  // encodes the fields of `v` with `v` as their owner
    KeyBuild& kb;
    PVal* saved_owner;
    int32_t saved_field;
    Child(KeyBuild& k, PVal* o) : kb(k), saved_owner(k.cur_owner), saved_field(k.cur_field) { k.cur_owner = o; }
    ~Child() {
      kb.cur_owner = saved_owner;
      kb.cur_field = saved_field;
    }
  };
  switch (v->kind) {
    case PKind::Static: {
      bool fz = frozen(v->value);
      push_item(kb, KeyItem{fz ? KeyItem::kFrozen : KeyItem::kRef, v->value});
      return;
    }
    case PKind::Dyn:
      if (!v->opaque) {
        // What residual tests and reads taught about it (facts.cpp): a known constant is a
        // static value; a pair whose car or cdr was read is a view with those fields.
        if (Fact* f = fact_of(v->var)) {
          if (f->has_value) {
            push_item(kb, KeyItem{frozen(f->value) ? KeyItem::kFrozen : KeyItem::kRef, f->value});
            return;
          }
          if (f->epoch == epoch_ && (f->field[0] || f->field[1])) {
            PVal* fields[2] = {f->field[0], f->field[1]};
            if (const uint32_t* at = kb.index.find(v->var, PtrIndex::kView)) {
              KeyItem back{KeyItem::kBackRef};
              back.n = int64_t(*at);
              push_item(kb, back);
              return;
            }
            if (kb.count > size_t(kMaxKeyItems) * 4) {
              kb.ok = false;
              return;
            }
            kb.add_view(v->var, uint32_t(kb.count));
            push_item(kb, KeyItem{KeyItem::kView});
            kb.add_input(v, kb.name);
            Child ch(kb, v);
            for (int w = 0; w < 2; w++) {
              kb.cur_field = w;
              if (fields[w]) {
                encode(fields[w], kb);
                if (!kb.ok) return;
              } else {
                push_item(kb, KeyItem{KeyItem::kUnknown});
              }
            }
            return;
          }
        }
      }
      if (const uint32_t* k = kb.index.find(v->var, PtrIndex::kVar)) {
        KeyItem same{KeyItem::kSameHole};
        same.n = int64_t(*k);
        push_item(kb, same);
        return;
      }
      push_item(kb, KeyItem{KeyItem::kHole, v->opaque ? kFalse : exclusions_of(v->var)});
      kb.add_input(v, kb.name);
      return;
    case PKind::Box:
      // A closure over a set! variable: the helper receives the box's cell (the box escapes:
      // the helper may change it, and it is one object shared with the caller).
      if (const uint32_t* k = kb.index.find(v, PtrIndex::kInput)) {
        KeyItem same{KeyItem::kSameHole};
        same.n = int64_t(*k);
        push_item(kb, same);
        return;
      }
      if (!kb.probe) escape_box(v);
      push_item(kb, KeyItem{KeyItem::kHole});
      kb.add_input(v, kb.name);
      return;
    default:
      break;
  }
  if ((v->kind == PKind::Pair || v->kind == PKind::Vector) && v->escaped) {
    push_item(kb, KeyItem{KeyItem::kHole});
    kb.add_input(make_dyn(materialize(v)), kb.name);
    return;
  }
  if (const uint32_t* at = kb.index.find(v, PtrIndex::kSeen)) {
    KeyItem back{KeyItem::kBackRef};
    back.n = *at == UINT32_MAX ? -1 : int64_t(*at);
    push_item(kb, back);
    return;
  }
  kb.see(v, uint32_t(kb.count));
  if (kb.count > size_t(kMaxKeyItems) * 4) {
    kb.ok = false;
    return;
  }
  switch (v->kind) {
    case PKind::Pair:
      push_item(kb, KeyItem{KeyItem::kPair});
      kb.add_input(v, sym("p"));
      {
        Child ch(kb, v);
        kb.cur_field = 0;
        encode(v->car, kb);
        kb.cur_field = 1;
        encode(v->cdr, kb);
      }
      return;
    case PKind::Vector: {
      KeyItem it{KeyItem::kVector};
      it.n = int64_t(v->items->size());
      push_item(kb, it);
      kb.add_input(v, sym("v"));
      Child ch(kb, v);
      for (size_t k = 0; k < v->items->size(); k++) {
        kb.cur_field = int32_t(k);
        encode((*v->items)[k], kb);
      }
      return;
    }
    case PKind::Closure: {
      KeyItem it{KeyItem::kClosure};
      it.lam = v->lam;
      it.n = v->escaped ? 1 : 0;  // residual code may hold it already: eq? is not decided
      push_item(kb, it);
      // Passed as itself only if it escapes inside the helper (Entry::closures_escaped): then
      // the procedure that escapes is this one (eq? agrees with the original).
      kb.add_input(v, is_symbol(v->lam->name) ? v->lam->name : sym("f"));
      Child ch(kb, v);
      kb.cur_field = -1;  // a closure's free variables are not generalized one by one
      for (Var* x : lambda_free_vars(st_, v->lam)) {
        PVal** slot = v->env->find(x);
        if (!slot || !*slot) {
          kb.ok = false;
          return;
        }
        Value saved = kb.name;
        kb.name = x->name;
        encode(*slot, kb);
        kb.name = saved;
        if (!kb.ok) return;
      }
      return;
    }
    default:
      return;
  }
}

// What residual tests found `x` is not (facts.cpp), as a key item's value: the distinct
// constants sorted by their bits (identity constants: equal means the same bits), or #f.
Value Specializer::exclusions_of(Var* x) {
  Fact* f = fact_of(x);
  if (!f || !f->excluded || f->excluded->empty()) return kFalse;
  std::vector<uint64_t> bits;
  for (Value c : *f->excluded) bits.push_back(c.bits);
  std::sort(bits.begin(), bits.end());
  bits.erase(std::unique(bits.begin(), bits.end()), bits.end());
  Value l = kNil;
  for (size_t i = bits.size(); i-- > 0;) l = cons(Value{bits[i]}, l);
  return l;
}

namespace {
// a and b: exclusion lists (sorted, or #f for none).
bool same_exclusions(Value a, Value b) {
  for (; is_pair(a) && is_pair(b); a = cdr(a), b = cdr(b))
    if (car(a) != car(b)) return false;
  return !is_pair(a) && !is_pair(b);
}
bool excludes(Value l, Value c) {
  for (; is_pair(l); l = cdr(l))
    if (eqv(car(l), c)) return true;
  return false;
}
bool subset_exclusions(Value a, Value b) {
  for (; is_pair(a); a = cdr(a))
    if (!excludes(b, car(a))) return false;
  return true;
}
// A hole that knows nothing about its value: the most general item.
bool plain_hole(const KeyItem& it) { return it.tag == KeyItem::kHole && !is_pair(it.value); }
// Whether the general key's hole `g` covers the new call's item `x` (x is g or more specific).
bool hole_covers(const KeyItem& g, const KeyItem& x) {
  if (plain_hole(g)) return true;
  switch (x.tag) {
    case KeyItem::kHole: return subset_exclusions(g.value, x.value);
    case KeyItem::kFrozen:
    case KeyItem::kRef: return !excludes(g.value, x.value);
    case KeyItem::kPair:
    case KeyItem::kVector:
    case KeyItem::kView:
    case KeyItem::kClosure: return true;  // exclusions are identity constants, never objects
    default: return false;
  }
}
}  // namespace

uint64_t Specializer::frozen_hash(Value v) {
  if (!is_object(v) || is_symbol(v)) return equal_hash(v);  // cheaper than the cache
  // Frozen data does not change, and keys hold the same pieces of program text again and again
  // (pe-flow's interpreter: hashing them was a tenth of specializing).
  auto it = hash_cache_.find(v.bits);
  if (it != hash_cache_.end()) return it->second;
  uint64_t h = equal_hash(v);
  hash_cache_.emplace(v.bits, h);
  return h;
}

uint64_t Specializer::hash_item(uint64_t h, const KeyItem& it) {
  h = mix(h, it.tag);
  switch (it.tag) {
    case KeyItem::kFrozen: return mix(h, frozen_hash(it.value));
    case KeyItem::kRef: return mix(h, eqv_hash(it.value));
    case KeyItem::kClosure: return mix(mix(h, reinterpret_cast<uintptr_t>(it.lam)), uint64_t(it.n));
    case KeyItem::kVector:
    case KeyItem::kSameHole:
    case KeyItem::kBackRef: return mix(h, uint64_t(it.n));
    case KeyItem::kHole:
      for (Value l = it.value; is_pair(l); l = cdr(l)) h = mix(h, car(l).bits);
      return h;
    default: return h;
  }
}

namespace {
uint64_t key_seed(LambdaNode* lam, size_t clause, Value runtime) {
  return mix(mix(reinterpret_cast<uintptr_t>(lam), clause), runtime.bits);
}
}  // namespace

uint64_t Specializer::hash_key(const gc_vector<KeyItem>& items, LambdaNode* lam, size_t clause, Value runtime) {
  uint64_t h = key_seed(lam, clause, runtime);
  for (const KeyItem& it : items) h = hash_item(h, it);
  return h;
}

static bool item_equal(const KeyItem& a, const KeyItem& b) {
  if (a.tag != b.tag) return false;
  switch (a.tag) {
    case KeyItem::kFrozen: return equal(a.value, b.value);
    case KeyItem::kRef: return eqv(a.value, b.value);
    case KeyItem::kClosure: return a.lam == b.lam && a.n == b.n;
    case KeyItem::kVector:
    case KeyItem::kSameHole:
    case KeyItem::kBackRef: return a.n == b.n;
    case KeyItem::kHole: return same_exclusions(a.value, b.value);
    default: return true;
  }
}

static bool slice_equal(const gc_vector<KeyItem>& a, size_t a0, size_t a1, const gc_vector<KeyItem>& b,
                        size_t b0, size_t b1) {
  if (a1 - a0 != b1 - b0) return false;
  for (size_t i = 0; i < a1 - a0; i++) {
    // Back references are relative to the whole key: compare their distance into the slice.
    const KeyItem& x = a[a0 + i];
    const KeyItem& y = b[b0 + i];
    if (x.tag == KeyItem::kBackRef && y.tag == KeyItem::kBackRef && x.n >= 0 && y.n >= 0) {
      if (x.n - int64_t(a0) != y.n - int64_t(b0)) return false;
      continue;
    }
    if (x.tag == KeyItem::kSameHole && y.tag == KeyItem::kSameHole) continue;  // approximate
    if (!item_equal(x, y)) return false;
  }
  return true;
}

bool Specializer::build_key(const Callee& c, size_t clause, gc_vector<PVal*>& slots, KeyBuild& kb, bool probe) {
  LambdaClause* cl = c.lam->clauses[clause];
  size_t nfree = slots.size() - cl->params.size() - (cl->rest ? 1 : 0);
  kb.hash = key_seed(c.lam, clause, c.runtime);
  if (c.closure) {  // references to the callee inside its own environment
    kb.see(c.closure, UINT32_MAX);
    // The callee itself, passed only if it escapes inside the helper (as a closure argument);
    // whether residual code may hold it already is the key's first item.
    kb.add_input(c.closure, is_symbol(c.lam->name) ? c.lam->name : sym("f"));
    kb.cur_owner = nullptr;
    kb.cur_field = -1;
    push_item(kb, KeyItem{KeyItem::kFrozen, make_bool(c.closure->escaped)});
  }
  for (size_t s = 0; s < slots.size(); s++) {
    size_t start = kb.count;
    size_t inputs_at = kb.inputs.size();
    kb.slot_start.push_back(uint32_t(start));
    if (s < nfree) kb.name = lambda_free_vars(st_, c.lam)[s]->name;
    else if (s - nfree < cl->params.size()) kb.name = cl->params[s - nfree]->name;
    else kb.name = cl->rest->name;
    kb.cur_owner = nullptr;
    kb.cur_field = int32_t(s);
    encode(slots[s], kb);
    if (!kb.ok) return false;
    // An argument with too large a skeleton is passed as a dynamic value instead.
    if (kb.count - start > size_t(kMaxKeyItems)) {
      if (probe) return false;  // a probe emits no code and notes nothing
      kb.count = start;
      kb.items.resize(start);
      kb.owner.resize(start);
      kb.field.resize(start);
      kb.inputs.resize(inputs_at);
      kb.input_names.resize(inputs_at);
      while (!kb.seen_at.empty() && kb.seen_at.back() >= start && kb.seen_at.back() != UINT32_MAX) {
        kb.seen.pop_back();
        kb.seen_at.pop_back();
      }
      while (!kb.view_at.empty() && kb.view_at.back() >= start) {
        kb.view_vars.pop_back();
        kb.view_at.pop_back();
      }
      kb.reindex();
      slots[s] = generalize(slots[s]);
      encode(slots[s], kb);
      std::vector<bool> which(slots.size(), false);
      which[s] = true;
      note("generalized", "key-size", c.lam,
           slot_names(c.lam, clause, c.runtime.is_true(), which) + " made dynamic: its static part is larger than " +
               std::to_string(kMaxKeyItems) + " key items");
    }
  }
  if (!kb.hash_only) kb.hash = hash_key(kb.items, c.lam, clause, c.runtime);
  return true;
}

Entry* Specializer::lookup(const KeyBuild& kb, LambdaNode* lam, size_t clause, Value runtime) {
  auto range = memo_.equal_range(kb.hash);
  for (auto it = range.first; it != range.second; ++it) {
    Entry* e = it->second;
    if (e->dead || e->lam != lam || e->clause != clause || e->runtime != runtime) continue;
    if (e->key.size() != kb.items.size()) continue;
    bool same = true;
    for (size_t i = 0; i < e->key.size() && same; i++) same = item_equal(e->key[i], kb.items[i]);
    if (same) return e;
  }
  return nullptr;
}

// The largest subtrees of key a's slice from i that differ from key b's from j (indices into a).
namespace {
void subtree_ends(const gc_vector<KeyItem>& key, std::vector<size_t>& end, const std::function<size_t(LambdaNode*)>& arity) {
  end.assign(key.size(), 0);
  for (size_t i = key.size(); i-- > 0;) {
    const KeyItem& it = key[i];
    size_t n = it.tag == KeyItem::kPair || it.tag == KeyItem::kView ? 2
               : it.tag == KeyItem::kVector                          ? size_t(it.n)
               : it.tag == KeyItem::kClosure                         ? arity(it.lam)
                                                                     : 0;
    size_t j = i + 1;
    for (size_t k = 0; k < n && j < key.size(); k++) j = end[j];
    end[i] = j;
  }
}
// `theirs`, when given, receives the index into b of each part's counterpart.
void differing_parts(const gc_vector<KeyItem>& a, size_t i, const std::vector<size_t>& a_end, const gc_vector<KeyItem>& b,
                     size_t j, const std::vector<size_t>& b_end, std::vector<uint32_t>& out,
                     std::vector<uint32_t>* theirs = nullptr) {
  if (i >= a.size() || j >= b.size()) return;
  if (slice_equal(a, i, a_end[i], b, j, b_end[j])) return;
  const KeyItem& x = a[i];
  const KeyItem& y = b[j];
  // Into a pair or vector of the same shape; anything else that differs (an atom, a closure:
  // its free variables are not generalized one by one) is a part as a whole.
  bool container = x.tag == KeyItem::kPair || x.tag == KeyItem::kVector;
  if (!container || !item_equal(x, y)) {
    out.push_back(uint32_t(i));
    if (theirs) theirs->push_back(uint32_t(j));
    return;
  }
  size_t ci = i + 1, cj = j + 1;
  while (ci < a_end[i] && cj < b_end[j]) {
    differing_parts(a, ci, a_end, b, cj, b_end, out, theirs);
    ci = a_end[ci];
    cj = b_end[cj];
  }
}
}  // namespace

bool Specializer::generalize_parts(gc_vector<PVal*>& slots, const KeyBuild& kb, const std::vector<uint32_t>& items) {
  bool changed = false;
  for (uint32_t o : items) {
    if (o >= kb.owner.size()) return false;
    PVal* parent = kb.owner[o];
    int32_t f = kb.field[o];
    if (!parent) {
      if (size_t(f) >= slots.size()) continue;
      changed = generalize_slot(slots, kb, size_t(f)) || changed;
      continue;
    }
    if (f < 0 || !parent->known_fields()) return false;
    PVal** place = parent->kind == PKind::Pair ? (f == 0 ? &parent->car : &parent->cdr) : &(*parent->items)[size_t(f)];
    PVal* v = *place;
    PVal* g;
    if (v->kind == PKind::Dyn) {
      g = generalize(v);  // what facts say about it is dropped
      if (g == v && kb.items[o].tag == KeyItem::kSameHole) g = unalias(v, parent);
      changed = changed || g != v;
      *place = g;
      continue;
    }
    if (v->kind == PKind::Static) {
      // Bound where the object was made, so it is in scope wherever the object is.
      Var* t = fresh(sym("t"));
      parent->home->insert_bind(parent->point, t, k_const(v->value));
      g = make_dyn(t);
    } else if (v->is_object()) {
      escape(v);
      g = make_dyn(v->var);
    } else {
      return false;
    }
    g->tags = v->tags;
    *place = g;
    changed = true;
  }
  return changed;
}

bool Specializer::generalize_slot(gc_vector<PVal*>& slots, const KeyBuild& kb, size_t s) {
  PVal* v = slots[s];
  PVal* g = generalize(v);
  if (g == v && v->kind == PKind::Dyn && s < kb.slot_start.size() && kb.slot_start[s] < kb.items.size() &&
      kb.items[kb.slot_start[s]].tag == KeyItem::kSameHole)
    g = unalias(v);
  slots[s] = g;
  return g != v;
}

// The same dynamic value under a variable of its own: keyed as a hole of its own instead of the
// same hole as an earlier argument (the residual binding is copy-propagated away). A field of
// `holder` is bound where the holder was made, so it is in scope wherever the holder is
// materialized (bound here, a holder made before this point referred to a later variable:
// an MP interpreter's values list, made before a residual test, was materialized in one arm).
PVal* Specializer::unalias(PVal* v, PVal* holder) {
  Var* alias;
  if (holder) {
    alias = fresh(v->var->name);
    holder->home->insert_bind(holder->point, alias, k_ref(v->var));
  } else {
    alias = emit_bind(k_ref(v->var), v->var->name);
  }
  PVal* g = make_dyn(alias);
  g->opaque = true;
  g->tags = v->tags;
  return g;
}

PVal* Specializer::generalize(PVal* v) {
  switch (v->kind) {
    case PKind::Static:
      return emit_dyn(k_const(v->value));
    case PKind::Dyn:
      if (!v->opaque && fact_of(v->var)) {  // keyed without what facts say about it
        PVal* o = make_dyn(v->var);
        o->opaque = true;
        o->tags = v->tags;
        return o;
      }
      return v;
    case PKind::Box:
      return v;
    default:
      escape(v);
      return make_dyn(v->var);
  }
}

// Rebuilds a partial value from the key inside a helper: holes and objects take the helper's
// parameters, in the order the key lists them.
PVal* Specializer::rebuild(const gc_vector<KeyItem>& key, size_t& i, quasi::gc_vector<Var*>& params, size_t& pi,
                           gc_vector<PVal*>& objects, LetrecGroup* group, Block* home,
                           StmtList::iterator point, PVal* callee) {
  if (stack_exhausted()) throw exhausted("stack depth");
  const KeyItem& it = key[i++];
  auto tagged = [this](PVal* v) {
    v->tags |= rebuild_tag_;
    return v;
  };
  switch (it.tag) {
    case KeyItem::kFrozen:
    case KeyItem::kRef:
      return tagged(make_static(it.value));
    case KeyItem::kHole: {
      Var* p = params[pi++];
      if (is_pair(it.value)) {  // what the caller's tests found it is not
        auto* ex = gc_new<gc_vector<Value>>();
        for (Value l = it.value; is_pair(l); l = cdr(l)) ex->push_back(car(l));
        fact_for_update(p).excluded = ex;
      }
      return tagged(make_dyn(p));
    }
    case KeyItem::kSameHole:
      return tagged(make_dyn(params[size_t(it.n)]));
    case KeyItem::kView: {  // a dynamic pair with known fields: the caller read them
      Var* p = params[pi++];
      PVal* d = tagged(make_dyn(p));
      d->key_index = i - 1;
      objects.push_back(d);
      PVal* fields[2];
      for (int w = 0; w < 2; w++) fields[w] = rebuild(key, i, params, pi, objects, group, home, point, callee);
      for (int w = 0; w < 2; w++)
        if (fields[w]) learn_field(p, w, fields[w]);
      if (!fields[0] && !fields[1]) fact_for_update(p).is_pair = true;
      return d;
    }
    case KeyItem::kUnknown:
      return nullptr;  // a field of a view that is not known
    case KeyItem::kBackRef:
      if (it.n < 0) {
        if (!callee) throw Bailout{"internal: back reference to no callee"};
        return callee;
      }
      for (size_t k = 0; k < objects.size(); k++)
        if (objects[k]->key_index == size_t(it.n)) return objects[k];
      throw Bailout{"internal: bad back reference in a key"};
    case KeyItem::kPair: {
      PVal* p = tagged(gc_new<PVal>());
      p->kind = PKind::Pair;
      p->key_index = i - 1;
      p->var = params[pi++];
      p->home = home;
      p->point = point;
      objects.push_back(p);
      p->car = rebuild(key, i, params, pi, objects, group, home, point, callee);
      p->cdr = rebuild(key, i, params, pi, objects, group, home, point, callee);
      return p;
    }
    case KeyItem::kVector: {
      PVal* p = tagged(gc_new<PVal>());
      p->kind = PKind::Vector;
      p->key_index = i - 1;
      p->var = params[pi++];
      p->home = home;
      p->point = point;
      p->items = gc_new<gc_vector<PVal*>>();
      objects.push_back(p);
      for (int64_t k = 0; k < it.n; k++) p->items->push_back(rebuild(key, i, params, pi, objects, group, home, point, callee));
      return p;
    }
    case KeyItem::kClosure: {
      PVal* p = tagged(gc_new<PVal>());
      p->kind = PKind::Closure;
      p->key_index = i - 1;
      p->var = params[pi++];  // the caller's closure, if it escapes here
      p->escaped = it.n != 0;
      p->lam = it.lam;
      p->home = home;
      p->point = point;
      p->group = group;
      group->members.push_back(p);
      objects.push_back(p);
      PEnv* frame = gc_new<PEnv>(nullptr);
      p->env = frame;
      for (Var* x : lambda_free_vars(st_, it.lam)) {
        frame->vars.push_back(x);
        frame->vals.push_back(rebuild_var(x, key, i, params, pi, objects, group, home, point, callee));
      }
      return p;
    }
  }
  throw Bailout{"internal: bad key item"};
}

// A slot for variable `x`: a set!-ed variable's box is the cell the helper receives.
PVal* Specializer::rebuild_var(Var* x, const gc_vector<KeyItem>& key, size_t& i, quasi::gc_vector<Var*>& params, size_t& pi,
                               gc_vector<PVal*>& objects, LetrecGroup* group, Block* home, StmtList::iterator point,
                               PVal* callee) {
  PVal* v = rebuild(key, i, params, pi, objects, group, home, point, callee);
  if (!x->assigned) return v;
  if (!v || v->kind != PKind::Dyn) throw Bailout{"internal: a set! variable keyed as a value"};
  return residual_box(v->var, x->name);
}

Entry* Specializer::build_helper(const Callee& c, size_t clause, KeyBuild& kb, Entry** created,
                                 bool pessimistic, const gc_vector<uint8_t>& assumed_escaped) {
  spend(8);
  // Whatever it adds to size_ (nested helpers included) is helper code, kept when an unfolding
  // that made it is undone.
  struct HelperSize {
    Specializer* s;
    int64_t size0, helper0;
    ~HelperSize() { s->helper_size_ = helper0 + (s->size_ - size0); }
  } helper_size{this, size_, helper_size_};
  LambdaClause* cl = c.lam->clauses[clause];
  Entry* e = gc_new<Entry>();
  *created = e;
  e->hash = kb.hash;
  e->key = kb.items;
  e->slot_start = kb.slot_start;
  e->lam = c.lam;
  e->clause = clause;
  e->runtime = c.runtime;
  // Named after the procedure; the residual printer numbers duplicates (try, try2, ...).
  e->var = fresh(is_symbol(c.lam->name) ? c.lam->name : sym("f"));
  ++helper_counter_;
  e->nparams = kb.inputs.size();
  e->pessimistic = pessimistic;
  e->assumed_escaped = assumed_escaped;
  e->index = entries_.size();
  memo_.emplace(e->hash, e);
  pending_.push_back(e);
  entries_.push_back(e);
  variants_[mix(reinterpret_cast<uintptr_t>(c.lam), clause)]++;

  struct PendingPop {
    Specializer* s;
    Entry* e;
    bool done = false;
    ~PendingPop() {
      if (!s->pending_.empty() && s->pending_.back() == e) s->pending_.pop_back();
      // Unwound by a restart or a budget: the entry never existed, nor did the helpers built
      // while it was pending (they may rely on assumptions about it).
      if (!done)
        for (size_t k = e->index; k < s->entries_.size(); k++) s->kill(s->entries_[k]);
    }
  } pop{this, e};

  ContextGuard guard(block_, dyn_depth_);
  FactWorld world(this);  // a closed world: only what the key says is known
  BoxWorld boxes(this);
  block_ = gc_new<Block>();
  dyn_depth_ = 0;
  StmtList::iterator start = mark();
  LambdaClause* rc = gc_new<LambdaClause>();
  for (size_t k = 0; k < kb.inputs.size(); k++) rc->params.push_back(fresh(kb.input_names[k]));

  // Rebuild the slots: the callee's free variables (for the evaluator's closures), then the
  // arguments.
  gc_vector<PVal*> objects;
  LetrecGroup* group = gc_new<LetrecGroup>();
  group->home = block_;
  group->point = start;
  size_t i = 0, pi = 0;
  PEnv* callee_frame;
  PVal* self = nullptr;
  if (c.runtime.is_true()) {
    callee_frame = callee_env(c);
  } else {
    callee_frame = gc_new<PEnv>(nullptr);
    self = gc_new<PVal>();
    self->kind = PKind::Closure;
    self->var = rc->params[pi++];  // the caller's closure, if it escapes here
    self->escaped = e->key[i++].value == kTrue;
    self->lam = c.lam;
    self->env = callee_frame;
    self->home = block_;
    self->point = start;
    self->group = group;
    group->members.push_back(self);
    size_t slot = 0;
    for (Var* x : lambda_free_vars(st_, c.lam)) {
      rebuild_tag_ = slot < 64 ? uint64_t(1) << slot : 0;
      slot++;
      callee_frame->vars.push_back(x);
      callee_frame->vals.push_back(rebuild_var(x, e->key, i, rc->params, pi, objects, group, block_, start, self));
    }
  }
  PEnv* frame = gc_new<PEnv>(callee_frame);
  gc_vector<PVal*> args;
  size_t first_arg_slot = c.runtime.is_true() ? 0 : lambda_free_vars(st_, c.lam).size();
  for (size_t k = 0; k < cl->params.size() + (cl->rest ? 1 : 0); k++) {
    size_t slot = first_arg_slot + k;
    rebuild_tag_ = slot < 64 ? uint64_t(1) << slot : 0;
    args.push_back(rebuild(e->key, i, rc->params, pi, objects, group, block_, start, self));
  }
  rebuild_tag_ = 0;
  for (size_t k = 0; k < cl->params.size(); k++) bind(frame, cl->params[k], args[k]);
  if (cl->rest) bind(frame, cl->rest, args.back());

  PVal* r = pe(cl->body, frame);
  if (r->kind == PKind::Static) {
    e->static_result = true;
    e->result_value = r->value;
  }
  e->plain_result = r->kind == PKind::Dyn && !r->choice_test && !r->known_number && !r->known_char;
  rc->body = finish(block_, lift(r));
  LambdaNode* code = gc_new<LambdaNode>(c.lam->name, c.lam->loc);
  code->clauses.push_back(rc);
  counted(code);
  e->code = code;
  e->input_escaped.assign(rc->params.size(), 0);
  for (PVal* o : objects) {
    if (!o->escaped) continue;
    if (o->kind == PKind::Closure) {
      e->closures_escaped = true;
      continue;
    }
    for (size_t k = 0; k < rc->params.size(); k++)
      if (rc->params[k] == o->var) e->input_escaped[k] = 1;
  }
  if (self && self->escaped) e->closures_escaped = true;
  // Calls made while it was pending assumed that no argument escapes in it (optimistic) or, once
  // rebuilt pessimistic, that the closures and the objects of assumed_escaped (empty: all) do.
  // If more escaped, it is rebuilt assuming what escaped (each round assumes more: finitely many).
  auto assumed = [e](size_t k) {
    return e->pessimistic && (e->assumed_escaped.empty() || (k < e->assumed_escaped.size() && e->assumed_escaped[k]));
  };
  bool beyond = e->closures_escaped && !e->pessimistic;
  for (size_t k = 0; k < e->input_escaped.size(); k++) beyond = beyond || (e->input_escaped[k] && !assumed(k));
  if (beyond && e->hit_while_pending) {
    Restart r{e, std::vector<bool>(e->slot_start.size(), false)};
    r.pessimistic = true;
    r.assumed.resize(e->input_escaped.size());
    for (size_t k = 0; k < r.assumed.size(); k++) r.assumed[k] = e->input_escaped[k] || assumed(k);
    throw r;
  }
  e->pending = false;
  pop.done = true;
  finished_[mix(reinterpret_cast<uintptr_t>(c.lam), clause)]++;
  return e;
}

void Specializer::kill(Entry* e) {
  if (e->dead) return;
  e->dead = true;
  variants_[mix(reinterpret_cast<uintptr_t>(e->lam), e->clause)]--;
  if (!e->pending) finished_[mix(reinterpret_cast<uintptr_t>(e->lam), e->clause)]--;
  auto range = memo_.equal_range(e->hash);
  for (auto it = range.first; it != range.second; ++it)
    if (it->second == e) {
      memo_.erase(it);
      return;
    }
}

namespace {
std::pair<size_t, size_t> slot_slice(const gc_vector<KeyItem>& key, const gc_vector<uint32_t>& starts, size_t s) {
  size_t a1 = s + 1 < starts.size() ? starts[s + 1] : key.size();
  return {size_t(starts[s]), a1};
}
}  // namespace

bool Specializer::covers(const gc_vector<KeyItem>& key, const gc_vector<uint32_t>& slot_start, const KeyBuild& kb) {
  if (slot_start.size() != kb.slot_start.size()) return false;
  auto arity = [this](LambdaNode* l) { return lambda_free_vars(st_, l).size(); };
  std::vector<size_t> v_end, n_end;
  subtree_ends(key, v_end, arity);
  subtree_ends(kb.items, n_end, arity);
  std::vector<uint32_t> parts, counterparts;
  bool differs = false;
  for (size_t s = 0; s < kb.slot_start.size(); s++) {
    auto [a0, a1] = slot_slice(key, slot_start, s);
    auto [b0, b1] = slot_slice(kb.items, kb.slot_start, s);
    if (slice_equal(key, a0, a1, kb.items, b0, b1)) continue;
    differs = true;
    parts.clear();
    counterparts.clear();
    differing_parts(key, a0, v_end, kb.items, b0, n_end, parts, &counterparts);
    if (parts.empty()) return false;
    for (size_t k = 0; k < parts.size(); k++)
      if (key[parts[k]].tag != KeyItem::kHole || !hole_covers(key[parts[k]], kb.items[counterparts[k]])) return false;
  }
  return differs;
}

bool Specializer::call_slots(const Callee& c, gc_vector<PVal*>& args, gc_vector<PVal*>& slots) {
  if (!c.runtime.is_true()) {
    for (Var* x : lambda_free_vars(st_, c.lam)) {
      PVal** slot = c.closure->env->find(x);
      if (!slot || !*slot) return false;
      slots.push_back(*slot);
    }
  }
  for (PVal* a : args) slots.push_back(a);
  return true;
}

bool Specializer::has_views(PVal* v, int depth) {
  if (depth > 64) return true;  // deep partially static data: assume so (only costs a peel)
  switch (v->kind) {
    case PKind::Dyn: {
      if (v->opaque) return false;
      Fact* f = fact_of(v->var);
      return f && f->epoch == epoch_ && (f->field[0] || f->field[1]);
    }
    case PKind::Pair:
      return !v->escaped && (has_views(v->car, depth + 1) || has_views(v->cdr, depth + 1));
    case PKind::Vector:
      if (v->escaped) return false;
      for (PVal* x : *v->items)
        if (has_views(x, depth + 1)) return true;
      return false;
    case PKind::Closure:
      for (Var* x : lambda_free_vars(st_, v->lam)) {
        PVal** slot = v->env->find(x);
        // (Closures among them — the closure itself, for a named let — are not looked into: a
        // letrec group refers to itself.)
        if (slot && *slot && (*slot)->kind != PKind::Closure && has_views(*slot, depth + 1)) return true;
      }
      return false;
    default:
      return false;
  }
}

uint64_t Specializer::repeats_outer_unfolding(const Callee& c, size_t clause, gc_vector<PVal*>& args) {
  if (pending_.empty()) return 0;
  auto it = unfoldings_.find(c.lam);
  if (it == unfoldings_.end() || it->second.empty() || it->second.front().world >= pending_.size()) return 0;
  ProbeKey probe(*this);
  KeyBuild& mine = *probe;
  bool built = false;
  // The nearest outer unfoldings first (an interpreted loop's is the enclosing world's), at
  // most kOuterUnfoldingProbes of them: a deep chain of helpers each inside a static recursion
  // would otherwise make every unfolding scan all of them.
  int probes = 0;
  for (size_t k = it->second.size(); k-- > 0;) {
    Unfolding& u = it->second[k];
    if (u.world >= pending_.size()) continue;  // this world's own unfoldings: a static recursion
    if (u.id == 0) continue;                    // undone, being specialized instead
    if (++probes > kOuterUnfoldingProbes) break;
    // An outer call that knew fields read by residual code cannot enter a helper made here
    // (loop_helper): its key there has views this world cannot see.
    if (u.views) continue;
    if (u.clause != clause || u.c.runtime != c.runtime || u.c.closure != c.closure) continue;
    // Different static arguments: neither key is the other's or more general (an
    // interpreter's unfoldings mostly differ in the expression).
    bool differ = false;
    for (size_t i = 0; i < args.size() && i < u.args->size() && !differ; i++) {
      PVal* a = args[i];
      PVal* b = (*u.args)[i];
      differ = a->kind == PKind::Static && b->kind == PKind::Static && a->value != b->value &&
               !(frozen(a->value) && frozen(b->value) && equal(a->value, b->value));
    }
    if (differ) continue;
    if (u.keyed == 0) {
      // The outer call's key, made here: what this world's facts say about the outer world's
      // variables is nothing, so it is at most more general than the key made there.
      gc_vector<PVal*> slots;
      KeyBuild theirs;
      theirs.probe = true;
      u.keyed = 2;
      if (call_slots(u.c, *u.args, slots) && build_key(u.c, clause, slots, theirs, true)) {
        u.keyed = 1;
        u.key = gc_new<gc_vector<KeyItem>>(theirs.items);
        u.slot_start = gc_new<gc_vector<uint32_t>>(theirs.slot_start);
      }
    }
    if (u.keyed != 1) continue;
    if (!built) {
      gc_vector<PVal*> slots;
      if (!call_slots(c, args, slots) || !build_key(c, clause, slots, mine, true)) return 0;
      built = true;
    }
    if (u.key->size() == mine.items.size() && u.slot_start->size() == mine.slot_start.size()) {
      bool same = true;
      for (size_t i = 0; i < mine.items.size() && same; i++) same = item_equal((*u.key)[i], mine.items[i]);
      if (same) return u.id;
    }
    // This call is more general than the outer one: its helper is the outer call's loop too.
    // (A more general key has at most as many items: a hole stands for a whole subtree.)
    if (mine.items.size() > u.key->size()) continue;
    KeyBuild theirs;
    theirs.items = *u.key;
    theirs.slot_start = *u.slot_start;
    if (covers(mine.items, mine.slot_start, theirs)) return kMoreGeneral;
  }
  return 0;
}

bool Specializer::generalize_call_to(Entry* v, gc_vector<PVal*>& slots, const KeyBuild& kb, std::vector<bool>& at) {
  if (!covers(v, kb)) return false;
  auto arity = [this](LambdaNode* l) { return lambda_free_vars(st_, l).size(); };
  std::vector<size_t> v_end, n_end;
  subtree_ends(v->key, v_end, arity);
  subtree_ends(kb.items, n_end, arity);
  std::vector<uint32_t> mine;
  bool changed = false;
  for (size_t s = 0; s < slots.size(); s++) {
    auto [a0, a1] = slot_slice(v->key, v->slot_start, s);
    auto [b0, b1] = slot_slice(kb.items, kb.slot_start, s);
    if (slice_equal(v->key, a0, a1, kb.items, b0, b1)) continue;
    mine.clear();
    differing_parts(kb.items, b0, n_end, v->key, a0, v_end, mine);
    if (mine.size() == 1 && mine[0] == b0) mine.clear();
    bool here = (!mine.empty() && generalize_parts(slots, kb, mine)) || generalize_slot(slots, kb, s);
    if (s < at.size()) at[s] = at[s] || here;
    changed = changed || here;
  }
  return changed;
}

bool Specializer::enters_helper(const Callee& c, size_t clause, gc_vector<PVal*>& args) {
  auto f = finished_.find(mix(reinterpret_cast<uintptr_t>(c.lam), clause));
  bool any = f != finished_.end() && f->second > 0;
  for (size_t k = pending_.size(); k-- > 0 && !any;) any = pending_[k]->lam == c.lam && pending_[k]->clause == clause;
  if (!any) return false;
  gc_vector<PVal*> slots;
  if (!call_slots(c, args, slots)) return false;
  ProbeKey probe(*this);
  KeyBuild& kb = *probe;
  // The hash first: most probes find no helper with it, and need no key.
  kb.hash_only = true;
  if (!build_key(c, clause, slots, kb, true) || !memo_.count(kb.hash)) return false;
  kb.reset();
  if (!build_key(c, clause, slots, kb, true)) return false;
  Entry* e = lookup(kb, c.lam, clause, c.runtime);
  // A pending helper with this key: unfolding would peel one iteration of it, whose paths end
  // in calls of it (a dynamic result) or unfold again until a budget stops them.
  if (!e || !(e->pending || e->static_result || e->plain_result)) return false;
  if (e->pending) return true;  // as under dynamic control: objects passed materialized
  for (PVal* in : kb.inputs) {
    if (in->kind == PKind::Dyn) continue;
    if (in->kind == PKind::Closure && !in->escaped && !e->closures_escaped) continue;  // passed as #f
    return false;  // an object would be materialized, a box escape
  }
  return true;
}

Entry* Specializer::loop_helper(const Callee& c, size_t clause, gc_vector<PVal*>& args, size_t from) {
  bool any = false;
  for (size_t k = from; k < entries_.size() && !any; k++) {
    Entry* e = entries_[k];
    any = !e->dead && !e->pending && e->lam == c.lam && e->clause == clause && e->runtime == c.runtime;
  }
  if (!any) return nullptr;
  gc_vector<PVal*> slots;
  if (!c.runtime.is_true()) {
    for (Var* x : lambda_free_vars(st_, c.lam)) {
      PVal** slot = c.closure->env->find(x);
      if (!slot || !*slot) return nullptr;
      slots.push_back(*slot);
    }
  }
  for (PVal* a : args) slots.push_back(a);
  ProbeKey probe(*this);
  KeyBuild& kb = *probe;
  if (!build_key(c, clause, slots, kb, true)) return nullptr;
  bool has_view = false;
  for (const KeyItem& it : kb.items) has_view = has_view || it.tag == KeyItem::kView;
  for (size_t k = from; k < entries_.size(); k++) {
    Entry* e = entries_[k];
    if (e->dead || e->pending || e->lam != c.lam || e->clause != clause || e->runtime != c.runtime) continue;
    if (e == lookup(kb, c.lam, clause, c.runtime)) return e;
    // A more general loop is entered only when this call knows no fields read by residual code
    // (views): the loop would read them again (the KMP matcher's restarts would re-read text).
    if (!has_view && covers(e, kb)) return e;
  }
  return nullptr;
}

PVal* Specializer::specialize_call(const Callee& c, size_t clause, gc_vector<PVal*>& args) {
  spend(4);
  // Slots: the evaluator closure's free variables, then the arguments.
  gc_vector<PVal*> slots;
  if (!c.runtime.is_true()) {
    for (Var* x : lambda_free_vars(st_, c.lam)) {
      PVal** slot = c.closure->env->find(x);
      if (!slot || !*slot) throw Bailout{"closure called before a variable it uses is initialized"};
      slots.push_back(*slot);
    }
  }
  size_t nfree = slots.size();
  for (PVal* a : args) slots.push_back(a);
  uint64_t vkey = mix(reinterpret_cast<uintptr_t>(c.lam), clause);
  bool pessimistic = false;
  gc_vector<uint8_t> assumed;  // Entry::assumed_escaped of a pessimistic rebuild

  for (;;) {
    KeyBuild kb;
    if (!build_key(c, clause, slots, kb)) {
      note("residualized", "unkeyable", c.lam,
           "called as it is, not specialized: an argument's static part is too large, or reads a letrec variable before its initialization");
      // Not expressible as a helper: call the procedure itself.
      Node* fn = c.runtime.is_true() ? k_const(c.runtime) : lift(c.closure);
      gc_vector<PVal*> rest(slots.begin() + nfree, slots.end());
      LambdaClause* cl = c.lam->clauses[clause];
      if (cl->rest) {  // spread the packed rest list back into arguments
        PVal* l = rest.back();
        rest.pop_back();
        while (l->kind == PKind::Pair && !l->escaped) {
          rest.push_back(l->car);
          l = l->cdr;
        }
        if (!(l->kind == PKind::Static && l->value == kNil)) throw Bailout{"internal: rest list"};
      }
      return residual_call(fn, rest);
    }
    Entry* e = lookup(kb, c.lam, clause, c.runtime);
    if (!e && cover_) {  // the loop an unfolding entered (Specializer::loop_helper)
      Entry* loop = cover_;
      cover_ = nullptr;
      std::vector<bool> at(slots.size(), false);
      if (generalize_call_to(loop, slots, kb, at)) continue;
    }
    cover_ = nullptr;
    if (!e) {
      int& count = variants_[vkey];
      bool all_dynamic = true;
      for (const KeyItem& it : kb.items) all_dynamic = all_dynamic && plain_hole(it);
      if (count >= kMaxVariantsPerClause && !all_dynamic) {
        note("generalized", "variants", c.lam,
             "every argument made dynamic: more than " + std::to_string(kMaxVariantsPerClause) + " variants");
        for (PVal*& s : slots) s = generalize(s);
        continue;
      }
      // Accumulators: a pending variant of this clause that differs from this call only in slots
      // its body never decided anything on (a counter passed along, a result being built) —
      // keeping those static only multiplies variants. Generalization is most specific: only
      // the parts that differ become dynamic, so a list of a known length whose elements vary
      // (an interpreter's argument list) keeps its structure and is passed as its elements
      // (arity raising). Where the pending variant already has holes in every differing part,
      // this call's parts are made dynamic (and the call can reuse it); otherwise the pending
      // variant is restarted with its differing parts dynamic.
      bool local = false;
      auto arity = [this](LambdaNode* l) { return lambda_free_vars(st_, l).size(); };
      std::vector<size_t> n_end;
      for (Entry* p : pending_) {
        if (options_.whistle == WhistleMode::kOff) break;
        if (p->lam != c.lam || p->clause != clause) continue;
        Restart r{p, std::vector<bool>(slots.size(), false)};
        r.parts.resize(slots.size());
        std::vector<bool> here(slots.size(), false);
        bool any_restart = false, ok = true;
        for (size_t s = 0; s < slots.size() && ok; s++) {
          size_t a0 = p->slot_start[s];
          size_t a1 = s + 1 < p->slot_start.size() ? p->slot_start[s + 1] : p->key.size();
          size_t b0 = kb.slot_start[s];
          size_t b1 = s + 1 < kb.slot_start.size() ? kb.slot_start[s + 1] : kb.items.size();
          if (slice_equal(p->key, a0, a1, kb.items, b0, b1)) continue;
          if (s < 64 && (p->inspected >> s) & 1) ok = false;
          // What residual code read of a dynamic value (a view) is bounded by what the program
          // reads, and a later restart needs it (a matcher's text): not an accumulator.
          for (size_t k = a0; k < a1 && ok; k++) ok = p->key[k].tag != KeyItem::kView;
          for (size_t k = b0; k < b1 && ok; k++) ok = kb.items[k].tag != KeyItem::kView;
          if (!ok) break;
          std::vector<size_t> p_end;
          subtree_ends(p->key, p_end, arity);
          if (n_end.empty()) subtree_ends(kb.items, n_end, arity);
          differing_parts(p->key, a0, p_end, kb.items, b0, n_end, r.parts[s]);
          bool p_dynamic = true;
          for (uint32_t o : r.parts[s]) p_dynamic = p_dynamic && plain_hole(p->key[o]);
          if (r.parts[s].empty()) p_dynamic = false;
          if (r.parts[s].size() == 1 && r.parts[s][0] == a0) r.parts[s].clear();  // the whole slot
          if (p_dynamic) {
            here[s] = true;
          } else {
            r.slots[s] = true;
            any_restart = true;
          }
        }
        if (!ok) continue;
        if (any_restart) {
          note("generalized", "accumulator", p->lam,
               slot_names(p->lam, p->clause, p->runtime.is_true(), r.slots) +
                   " made dynamic (what differs): only passed along, no static decision depends on it");
          throw r;
        }
        bool any_here = false;
        std::vector<uint32_t> mine;
        std::vector<size_t> p_end;
        for (size_t s = 0; s < slots.size(); s++) {
          if (!here[s]) continue;
          size_t a0 = p->slot_start[s];
          size_t b0 = kb.slot_start[s];
          if (p_end.empty()) subtree_ends(p->key, p_end, arity);
          mine.clear();
          differing_parts(kb.items, b0, n_end, p->key, a0, p_end, mine);
          if (mine.size() == 1 && mine[0] == b0) mine.clear();
          if ((!mine.empty() && generalize_parts(slots, kb, mine)) || generalize_slot(slots, kb, s)) any_here = true;
          else here[s] = false;
        }
        if (any_here) {
          note("generalized", "accumulator", c.lam,
               slot_names(c.lam, clause, c.runtime.is_true(), here) +
                   " made dynamic at a call (what differs): the variant being built has it dynamic");
          local = true;
          break;
        }
      }
      if (local) continue;
      // The whistle (whistle.hpp): a pending variant of this clause whose key embeds in this
      // call's — data that grows — or, as a backstop, too many nested variants.
      int nested = 0;
      Entry* oldest = nullptr;
      Entry* embedded = nullptr;
      int call_rigid = 0;  // this call's rigid atoms: 0 not listed, 1 listed, 2 too large
      gc_vector<uint64_t> rigid;
      auto cannot_embed = [&](Entry* p) {
        if (p->rigid_state == 0 || p->rigid_counted != p->n_counted) {
          p->rigid_state = rigid_atoms(p->key, p->rigid, p->counted) ? 1 : 2;
          p->rigid_counted = p->n_counted;
        }
        if (call_rigid == 0) call_rigid = rigid_atoms(kb.items, rigid) ? 1 : 2;
        return p->rigid_state == 1 && call_rigid == 1 &&
               !std::includes(rigid.begin(), rigid.end(), p->rigid.begin(), p->rigid.end());
      };
      for (Entry* p : pending_)
        if (p->lam == c.lam && p->clause == clause) {
          if (!oldest) oldest = p;
          nested++;
          if (embedded || options_.whistle == WhistleMode::kOff) continue;
          if (options_.whistle == WhistleMode::kStrict ||
              (!cannot_embed(p) && key_embedded(p->key, p->slot_start, kb.items, kb.slot_start, arity, &p->counted)))
            embedded = p;
        }
      // The oldest pending variant is restarted (not the embedded one): generalizing where the
      // chain started keeps the static prefix that led to it from being peeled into helpers.
      if (embedded) {
        // Generalize where the chain of this program point started: the oldest pending variant
        // that agrees with the embedded one on the slots where the embedded one agrees with
        // this call; only the parts that differ from this call become dynamic.
        auto slice = [](const gc_vector<KeyItem>& key, const gc_vector<uint32_t>& starts, size_t s) {
          size_t a1 = s + 1 < starts.size() ? starts[s + 1] : key.size();
          return std::make_pair(size_t(starts[s]), a1);
        };
        std::vector<bool> agree(slots.size());
        for (size_t s = 0; s < slots.size(); s++) {
          auto [a0, a1] = slice(embedded->key, embedded->slot_start, s);
          auto [b0, b1] = slice(kb.items, kb.slot_start, s);
          agree[s] = slice_equal(embedded->key, a0, a1, kb.items, b0, b1);
        }
        Entry* target = embedded;
        for (Entry* q : pending_) {
          if (q->lam != c.lam || q->clause != clause) continue;
          bool same = true;
          for (size_t s = 0; s < slots.size() && same; s++) {
            if (!agree[s]) continue;
            auto [a0, a1] = slice(q->key, q->slot_start, s);
            auto [b0, b1] = slice(embedded->key, embedded->slot_start, s);
            same = slice_equal(q->key, a0, a1, embedded->key, b0, b1);
          }
          if (same) {
            target = q;
            break;
          }
        }
        // Where a variant already has holes in every part that differs from this call,
        // restarting it would rebuild the same key and meet this call again: this call is the
        // more specific one, so it is generalized instead (its parts there become holes) and
        // tried again — it then reuses that variant, or embeds with less structure (each round
        // removes some). The embedded variant is asked first: when it covers this call, no
        // older variant is generalized for it.
        if (n_end.empty()) subtree_ends(kb.items, n_end, arity);
        std::vector<bool> at_call(slots.size(), false);
        if (generalize_call_to(embedded, slots, kb, at_call) || generalize_call_to(target, slots, kb, at_call)) {
          note("generalized", "whistle", c.lam,
               slot_names(c.lam, clause, c.runtime.is_true(), at_call) +
                   " made dynamic at a call (what differs): a more general variant is being built");
          continue;
        }
        Restart r{target, std::vector<bool>(slots.size(), false)};
        r.parts.resize(slots.size());
        std::vector<size_t> t_end;
        subtree_ends(target->key, t_end, arity);
        bool any = false;
        for (size_t s = 0; s < slots.size(); s++) {
          auto [a0, a1] = slice(target->key, target->slot_start, s);
          auto [b0, b1] = slice(kb.items, kb.slot_start, s);
          if (slice_equal(target->key, a0, a1, kb.items, b0, b1)) continue;
          r.slots[s] = true;
          any = true;
          differing_parts(target->key, a0, t_end, kb.items, b0, n_end, r.parts[s]);
          if (r.parts[s].size() == 1 && r.parts[s][0] == a0) r.parts[s].clear();  // the whole slot
        }
        if (!any) r.slots.assign(slots.size(), true);
        note("generalized", "whistle", target->lam,
             slot_names(target->lam, target->clause, target->runtime.is_true(), r.slots) +
                 " generalized: a static value grows (an earlier variant embeds in a later one)");
        throw r;
      }
      if (nested >= kMaxPendingVariants) {
        Restart r{oldest, std::vector<bool>(slots.size(), false)};
        bool any = false;
        for (size_t s = 0; s < slots.size(); s++) {
          size_t a0 = oldest->slot_start[s];
          size_t a1 = s + 1 < oldest->slot_start.size() ? oldest->slot_start[s + 1] : oldest->key.size();
          size_t b0 = kb.slot_start[s];
          size_t b1 = s + 1 < kb.slot_start.size() ? kb.slot_start[s + 1] : kb.items.size();
          if (!slice_equal(oldest->key, a0, a1, kb.items, b0, b1)) {
            r.slots[s] = true;
            any = true;
          }
        }
        if (!any) r.slots.assign(slots.size(), true);
        note("generalized", "depth", oldest->lam,
             slot_names(oldest->lam, oldest->clause, oldest->runtime.is_true(), r.slots) + " generalized: " +
                 std::to_string(kMaxPendingVariants) + " nested variants");
        throw r;
      }
      Entry* created = nullptr;
      try {
        e = build_helper(c, clause, kb, &created, pessimistic, assumed);
      } catch (Restart& r) {
        if (r.target != created) throw;
        pessimistic = pessimistic || r.pessimistic;
        if (r.pessimistic) assumed.assign(r.assumed.begin(), r.assumed.end());
        // A generalized key has other inputs: a pessimistic helper then assumes all objects escape.
        if (std::find(r.slots.begin(), r.slots.end(), true) != r.slots.end()) assumed.clear();
        for (size_t s = 0; s < slots.size(); s++) {
          if (!r.slots[s]) continue;
          if (s < r.parts.size() && !r.parts[s].empty() && generalize_parts(slots, kb, r.parts[s])) continue;
          generalize_slot(slots, kb, s);
        }
        continue;
      }
    } else {
      spend(2);
      if (e->pending) e->hit_while_pending = true;
    }
    // The call: holes pass their values, objects pass themselves (materialized).
    CallNode* call = gc_new<CallNode>(k_ref(e->var), SrcLoc{});
    // What the helper may have done with the objects is unknown while it is being built.
    // Objects: those that escaped in the finished helper (Entry::input_escaped), or, while it is
    // pending and rebuilt pessimistic, those assumed to (Entry::assumed_escaped).
    bool objects_out = e->pending && e->pessimistic && e->assumed_escaped.empty();
    bool closures_out = (e->pending && e->pessimistic) || (!e->pending && e->closures_escaped);
    for (size_t k = 0; k < kb.inputs.size(); k++) {
      PVal* in = kb.inputs[k];
      if (in->kind == PKind::Dyn || in->kind == PKind::Box) {
        call->args.push_back(k_ref(in->var));
      } else if (in->kind == PKind::Closure) {  // only when it escapes (in the helper, or before)
        bool out = closures_out || in->escaped;
        if (out) escape(in);
        call->args.push_back(out ? k_ref(in->var) : k_const(kFalse));
      } else {
        call->args.push_back(k_ref(materialize(in)));
        const gc_vector<uint8_t>& esc = e->pending ? e->assumed_escaped : e->input_escaped;
        bool known = e->pending ? e->pessimistic : true;
        if (objects_out || (known && k < esc.size() && esc[k])) escape(in);
      }
    }
    capture_point();  // the helper may capture a continuation and re-enter what follows
    PVal* out = emit_dyn(counted(call));
    mutation();  // the helper may mutate what the caller read
    if (!e->pending && e->static_result) return make_static(e->result_value);
    return out;
  }
}

// ---- primitives --------------------------------------------------------------------------------
void Specializer::collect_helpers(gc_vector<Helper>& out) {
  for (Entry* e : entries_)
    if (!e->dead && !e->pending && e->code) out.push_back(Helper{e->var, e->code});
}

}  // namespace quasi::pe
