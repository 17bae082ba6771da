#include "core/equality.hpp"

#include <sys/random.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <unordered_map>

#include "core/alloc_watch.hpp"
#include "core/foreign.hpp"
#include "core/numbers.hpp"
#include "core/object.hpp"

namespace quasi {

namespace {

bool is_heap_number_type(Type t) {
  return t == Type::Flonum || t == Type::Bignum || t == Type::Ratnum || t == Type::Compnum;
}

bool same_string(Value x, Value y) {
  String* a = x.as<String>();
  String* b = y.as<String>();
  return a->length() == b->length() &&
         std::memcmp(a->chars(), b->chars(), sizeof(uint32_t) * a->length()) == 0;
}

bool same_bytevector(Value x, Value y) {
  Bytevector* a = x.as<Bytevector>();
  Bytevector* b = y.as<Bytevector>();
  return a->length() == b->length() && std::memcmp(a->bytes(), b->bytes(), a->length()) == 0;
}

// Compares two objects that are not both compound (pair/vector) or that are leaves: the shared
// part of the fast and slow algorithms. Returns 1 equal, 0 different, -1 compound (pair or
// vector of equal length, to be descended into by the caller).
int compare_leaf(Value x, Value y) {
  if (x == y) return 1;
  if (!is_object(x) || !is_object(y)) return 0;  // distinct immediates, or immediate vs object
  Type t = object_type(x);
  if (t != object_type(y)) return 0;
  switch (t) {
    case Type::Pair:
      return -1;
    case Type::Vector:
      if (x.as<Vector>()->length() != y.as<Vector>()->length()) return 0;
      return x.as<Vector>()->length() == 0 ? 1 : -1;
    case Type::String:
      return same_string(x, y);
    case Type::Bytevector:
      return same_bytevector(x, y);
    case Type::Flonum:
    case Type::Bignum:
    case Type::Ratnum:
    case Type::Compnum:
      return num_eqv(x, y);
    case Type::Foreign:  // a C++ type's own equality, when the embedding gave one
      return foreign_equal(x.as<Foreign>(), y.as<Foreign>());
    default:
      return 0;
  }
}

// ---- fast phase: plain recursion on cars and vector items, a loop on cdrs --------------------
constexpr int64_t kFastBudget = int64_t(1) << 15;  // pairs and vectors before giving up
constexpr int kFastMaxDepth = 256;       // recursion depth before giving up

// 1 equal, 0 different, -1 gave up (budget or depth exhausted; the answer is unknown).
int equal_fast(Value x, Value y, int64_t& budget, int depth) {
  for (;;) {
    int r = compare_leaf(x, y);
    if (r >= 0) return r;
    if (--budget < 0 || depth > kFastMaxDepth) return -1;
    if (is_pair(x)) {
      r = equal_fast(car(x), car(y), budget, depth + 1);
      if (r != 1) return r;
      x = cdr(x);
      y = cdr(y);
      continue;
    }
    // Vectors of equal, non-zero length: recurse on all items but the last, loop on the last.
    Vector* a = x.as<Vector>();
    Vector* b = y.as<Vector>();
    int64_t n = a->length();
    for (int64_t i = 0; i < n - 1; i++) {
      r = equal_fast(a->items()[i], b->items()[i], budget, depth + 1);
      if (r != 1) return r;
    }
    x = a->items()[n - 1];
    y = b->items()[n - 1];
  }
}

// ---- slow phase: explicit stack, cdr chains walked in a loop, then union-find ---------------
//
// Work items on the stack are node pairs still to compare ("entries"): the cars met along a
// chain, the items of vectors. An entry is walked down its cdr chain in a loop, both chains in
// lockstep; Brent's cycle detection on the pair sequence (cdr x, cdr y) stops a walk that comes
// back to a node pair it already passed, so cdr-cycles terminate without any table.
//
// Cycles through cars or vectors need the union-find: once `steps` (pairs and vectors looked
// at) exceeds kPlainSteps, every entry and every "sampled" pair of a chain (one node in about
// eight, chosen by address so that different walks agree) joins the classes of its two nodes,
// and a pair already in one class is not compared again (it is assumed equal, which is sound
// for equal?'s coinductive definition). Each union merges two classes, so only finitely many
// entries are expanded, each walk is finite, and the whole comparison terminates.
constexpr int64_t kPlainSteps = int64_t(1) << 20;

class UnionFind {
 public:
  // True when a and b were already in one class (their comparison is already assumed or under
  // way); otherwise merges the classes and returns false.
  bool unite(uint64_t a, uint64_t b) {
    uint64_t ra = find(a), rb = find(b);
    if (ra == rb) return true;
    parent_[ra] = rb;
    return false;
  }

 private:
  uint64_t find(uint64_t x) {
    for (;;) {
      auto it = parent_.find(x);
      if (it == parent_.end()) return x;
      auto up = parent_.find(it->second);
      if (up == parent_.end()) return it->second;
      it->second = up->second;  // path halving
      x = up->second;
    }
  }
  // Keys are addresses of objects reachable from the compared arguments: identity only.
  std::unordered_map<uint64_t, uint64_t> parent_;
};

inline bool sampled(Value x) { return ((x.bits >> 4) * 0x9E3779B97F4A7C15ull) >> 61 == 0; }

struct Frame {
  Value a;
  Value b;
  int64_t index;  // -1: compare a and b; >= 0: vectors a and b, from item `index` on
};

bool equal_slow(Value a, Value b) {
  root_vector<Frame> stack;  // scanned: keeps the pending objects visible to the collector
  stack.push_back({a, b, -1});
  UnionFind uf;
  int64_t steps = 0;
  while (!stack.empty()) {
    limit_tick("equal?");  // a huge or hugely shared structure: the evaluation's limits hold
    Frame f = stack.back();
    stack.pop_back();
    Value x = f.a, y = f.b;
    if (f.index >= 0) {
      Vector* va = x.as<Vector>();
      Vector* vb = y.as<Vector>();
      if (f.index + 1 < va->length()) stack.push_back({x, y, f.index + 1});
      x = va->items()[f.index];
      y = vb->items()[f.index];
    }
    int r = compare_leaf(x, y);
    if (r == 0) return false;
    if (r == 1) continue;
    if (++steps > kPlainSteps && uf.unite(x.bits, y.bits)) continue;
    if (!is_pair(x)) {  // vectors of the same, non-zero length
      stack.push_back({x, y, 0});
      continue;
    }
    // Walk the two cdr chains in lockstep.
    Value saved_x = x, saved_y = y;  // Brent: the pair at the last power-of-two checkpoint
    int64_t power = 1, lam = 0;
    for (;;) {
      r = compare_leaf(car(x), car(y));
      if (r == 0) return false;
      if (r < 0) stack.push_back({car(x), car(y), -1});
      x = cdr(x);
      y = cdr(y);
      r = compare_leaf(x, y);
      if (r == 0) return false;
      if (r == 1) break;
      if (!is_pair(x)) {  // a vector in the tail
        stack.push_back({x, y, -1});
        break;
      }
      if (x == saved_x && y == saved_y) break;  // from here on, the walk repeats itself
      if (++lam == power) {
        saved_x = x;
        saved_y = y;
        power <<= 1;
        lam = 0;
      }
      if (++steps > kPlainSteps && sampled(x) && uf.unite(x.bits, y.bits)) break;
      limit_tick("equal?");
    }
  }
  return true;
}

// ---- hashing ---------------------------------------------------------------------------------
inline uint64_t combine(uint64_t h, uint64_t x) { return mix64(h ^ (x + 0x9e3779b97f4a7c15ull)); }

constexpr int kHashMaxDepth = 8;
constexpr int64_t kHashBudget = 64;      // pairs, vector items and strings looked at
constexpr int64_t kHashMaxItems = 64;    // characters or bytes looked at per string/bytevector

uint64_t hash_chars(const uint32_t* c, int64_t n) {
  uint64_t h = mix64(static_cast<uint64_t>(n) + 0x5157);
  int64_t k = n < kHashMaxItems ? n : kHashMaxItems;
  for (int64_t i = 0; i < k; i++) h = combine(h, c[i]);
  return h;
}
uint64_t hash_bytes(const uint8_t* c, int64_t n) {
  uint64_t h = mix64(static_cast<uint64_t>(n) + 0xB17E);
  int64_t k = n < kHashMaxItems ? n : kHashMaxItems;
  for (int64_t i = 0; i < k; i++) h = combine(h, c[i]);
  return h;
}

// The work done depends only on the shape of the (unfolded) structure, never on object
// identity, so equal? structures (even cyclic ones) hash the same. With a seed (hash tables),
// leaves are keyed by it and strings are hashed in full.
uint64_t hash_rec(Value v, int64_t& budget, int depth, uint64_t seed) {
  if (!is_object(v)) return seed ? mix64(v.bits ^ seed) : mix64(v.bits);
  switch (object_type(v)) {
    case Type::Pair: {
      uint64_t h = 0x9a1f ^ seed;
      while (is_pair(v)) {
        if (--budget < 0) return h;
        h = combine(h, depth < kHashMaxDepth ? hash_rec(car(v), budget, depth + 1, seed) : 0x77);
        v = cdr(v);
      }
      return combine(h, hash_rec(v, budget, depth, seed));
    }
    case Type::Vector: {
      Vector* vec = v.as<Vector>();
      uint64_t h = mix64((static_cast<uint64_t>(vec->length()) + 0x7ec) ^ seed);
      if (depth >= kHashMaxDepth) return h;
      for (int64_t i = 0; i < vec->length(); i++) {
        if (--budget < 0) return h;
        h = combine(h, hash_rec(vec->items()[i], budget, depth + 1, seed));
      }
      return h;
    }
    case Type::String:
      --budget;
      if (seed) return string_hash_seeded(v.as<String>()->chars(), v.as<String>()->length(), seed);
      return hash_chars(v.as<String>()->chars(), v.as<String>()->length());
    case Type::Bytevector:
      --budget;
      return hash_bytes(v.as<Bytevector>()->bytes(), v.as<Bytevector>()->length()) ^ seed;
    case Type::Foreign: {
      uint64_t h;
      return foreign_hash(v.as<Foreign>(), &h) ? mix64(h ^ seed) : mix64(eqv_hash(v) ^ seed);
    }
    default:
      return seed ? mix64(eqv_hash(v) ^ seed) : eqv_hash(v);
  }
}

}  // namespace

bool eqv(Value a, Value b) {
  if (a == b) return true;
  if (!a.is_ptr() || !b.is_ptr()) return false;
  Type t = a.obj()->type();
  if (!is_heap_number_type(t) || !is_heap_number_type(b.obj()->type())) return false;
  return num_eqv(a, b);
}

bool equal(Value a, Value b) {
  int64_t budget = kFastBudget;
  int r = equal_fast(a, b, budget, 0);
  if (r >= 0) return r == 1;
  return equal_slow(a, b);
}

uint64_t eqv_hash(Value v) {
  if (!v.is_ptr()) return mix64(v.bits);
  Type t = v.obj()->type();
  if (is_heap_number_type(t)) return num_hash(v);
  if (t == Type::Symbol) return v.as<Symbol>()->hash;
  return mix64(v.bits);
}

uint64_t equal_hash(Value v) {
  int64_t budget = kHashBudget;
  return hash_rec(v, budget, 0, 0);
}

uint64_t equal_hash_seeded(Value v, uint64_t seed) {
  int64_t budget = kHashBudget;
  return hash_rec(v, budget, 0, seed | 1);
}

// Two code points per 64-bit block through a 64x64->128 multiply folded back (the wyhash
// construction), keyed by the seed at every step so that colliding keys cannot be computed
// without knowing it.
uint64_t string_hash_seeded(const uint32_t* c, int64_t n, uint64_t seed) {
  const uint64_t k1 = seed ^ 0xa0761d6478bd642full, k2 = mix64(seed) | 1;
  auto mum = [](uint64_t a, uint64_t b) {
    unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
    return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
  };
  uint64_t h = mum(static_cast<uint64_t>(n) ^ k1, k2);
  int64_t i = 0;
  for (; i + 1 < n; i += 2)
    h = mum(h ^ k1 ^ (c[i] | (static_cast<uint64_t>(c[i + 1]) << 32)), k2 ^ 0xe7037ed1a0b428dbull);
  if (i < n) h = mum(h ^ k1 ^ c[i], k2 ^ 0x8ebc6af09c88c6e3ull);
  return mix64(h);
}

uint64_t fresh_hash_seed() {
  static std::atomic<uint64_t> counter{0};
  uint64_t r = 0;
  if (getrandom(&r, sizeof r, GRND_NONBLOCK) != sizeof r)
    r = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return mix64(r + 0x9e3779b97f4a7c15ull * ++counter) | 1;
}

}  // namespace quasi
