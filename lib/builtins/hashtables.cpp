// hashtables.cpp — hash tables: the one implementation under SRFI 69, SRFI 125 and the R6RS /
// Chez Scheme names (those are Scheme procedures over these primitives, in
// scheme/prelude/70-hash-tables.scm, exported by scheme/lib/srfi/{69,125}.sld and friends).
//
// A table is a power-of-two array of entries {key, value, hash}, probed linearly.
//   hash == 0  a slot never used: the end of every probe chain through it;
//   key == 0   a dead entry (deleted, or a weak key the collector reclaimed): probes pass over it,
//              an insertion may reuse it. 0 is never a Value.
// A used entry's hash has its top bit set, so it is never 0. The table is rebuilt from the
// stored hashes (never calling a hash function, so never Scheme code) when used slots pass 3/4:
// to twice the live entries, which also drops the dead ones — growth is amortized O(1).
//
// Equivalences: eq? eqv? equal? string=? string-ci=? are recognized (with any of the built-in
// hash functions, or none) and hashed and compared here, keyed by the engine's random seed
// (Vm::hash_seed; core/equality.hpp) so that keys chosen to collide cannot be computed in
// advance. Any other equivalence or hash function is called as a Scheme procedure; when such a
// call changes the table (table->version), the operation starts over.
// eq? hashing uses addresses: Boehm GC does not move objects.
// Weak tables hold their keys hidden from the collector (bits XOR kHide) with a disappearing
// link per heap key, which the collector zeroes when the key dies; the entry is then dead. Keys
// are read without the allocation lock: the collector stops the world and is not incremental,
// so a key read here is on the stack before any collection can decide it is unreachable.
#include <cstring>

#include "builtins/args.hpp"
#include "builtins/chars.hpp"
#include "builtins/hashtables.hpp"
#include "builtins/registry.hpp"
#include "core/equality.hpp"
#include "core/numbers.hpp"
#include "core/procedure.hpp"
#include "vm/vm.hpp"

namespace quasi {

namespace {

enum class Equiv : uint8_t { kEq, kEqv, kEqual, kString, kStringCi, kCustom };

struct Entry {
  uint64_t key;  // Value bits (weak tables: XOR kHide); 0 = dead
  Value value;
  uint64_t hash; // 0 = never used; else top bit set
};

struct Table : Object {
  Equiv equiv;
  bool weak;
  bool mutable_;
  bool custom_hash;  // hash with the Scheme procedure `hash`
  uint64_t seed;
  int64_t count;     // live entries (weak tables: an upper bound)
  int64_t used;      // slots with hash != 0
  int64_t mask;      // capacity - 1
  uint64_t version;  // changes on every insertion, deletion and rebuild
  Entry* entries;
  Value equiv_proc;  // as given to make-hash-table
  Value hash_proc;   // as given, or #f
};

constexpr uint64_t kUsed = uint64_t(1) << 63;
constexpr uint64_t kHide = 0xFFFF000000000000ull;  // hidden heap keys are outside the heap's range
constexpr int64_t kMinCapacity = 8;
constexpr int64_t kMaxCapacity = int64_t(1) << 40;

// The equivalence predicates of the core environment, found when the primitives are installed.
PrimFn g_eq, g_eqv, g_equal, g_string_eq, g_string_ci_eq;


bool is_table(Value v) { return has_type(v, Type::HashTable); }

Table* check_table(const char* who, Value v) {
  if (!is_table(v)) type_error(who, "a hash table", v);
  return v.as<Table>();
}

Table* check_mutable_table(const char* who, Value v) {
  Table* t = check_table(who, v);
  if (!t->mutable_) throw_condition("type", who, "the hash table is immutable");
  return t;
}

inline Value key_of(const Table* t, uint64_t stored) {
  return Value{t->weak ? stored ^ kHide : stored};
}

void set_key(Table* t, Entry* e, Value k) {
  if (!t->weak) {
    e->key = k.bits;
    return;
  }
  e->key = k.bits ^ kHide;
  if (is_object(k) && GC_base(object_base(k)) == object_base(k))
    GC_general_register_disappearing_link(reinterpret_cast<void**>(&e->key), object_base(k));
}

void kill_entry(Table* t, Entry* e) {
  if (t->weak) GC_unregister_disappearing_link(reinterpret_cast<void**>(&e->key));
  e->key = 0;
  e->value = kFalse;
}

Entry* new_entries(int64_t capacity) {
  // Zeroed: every slot never used.
  return static_cast<Entry*>(gc_alloc(static_cast<size_t>(capacity) * sizeof(Entry)));
}

int64_t capacity_for(int64_t n) {  // room for n entries at most half full
  int64_t cap = kMinCapacity;
  while (cap < 2 * n + 2) {
    if (cap >= kMaxCapacity) throw_condition("range", "hash-table", "too many entries");
    cap *= 2;
  }
  return cap;
}

// Moves the live entries into a fresh array of `capacity` slots.
void rebuild(Table* t, int64_t capacity) {
  Entry* old = t->entries;
  int64_t old_cap = t->mask + 1;
  Entry* e = new_entries(capacity);
  int64_t mask = capacity - 1, live = 0;
  for (int64_t i = 0; i < old_cap; i++) {
    if (old[i].hash == 0 || old[i].key == 0) continue;
    uint64_t stored = old[i].key;
    int64_t j = static_cast<int64_t>(old[i].hash) & mask;
    while (e[j].hash != 0) j = (j + 1) & mask;
    e[j].hash = old[i].hash;
    e[j].value = old[i].value;
    if (t->weak) {
      Value k = key_of(t, stored);
      if (old[i].key == 0) continue;  // (cannot happen while `k` is held; kept for clarity)
      set_key(t, &e[j], k);
    } else {
      e[j].key = stored;
    }
    live++;
  }
  t->entries = e;
  t->mask = mask;
  t->count = live;
  t->used = live;
  t->version++;
}

Value make_table(Equiv equiv, bool custom_hash, bool weak, uint64_t seed, int64_t capacity,
                 Value equiv_proc, Value hash_proc) {
  auto* t = static_cast<Table*>(gc_alloc(sizeof(Table)));
  t->header = make_header(Type::HashTable);
  t->equiv = equiv;
  t->weak = weak;
  t->mutable_ = true;
  t->custom_hash = custom_hash;
  t->seed = seed;
  t->count = t->used = 0;
  capacity = capacity_for(capacity);
  t->mask = capacity - 1;
  t->version = 0;
  t->entries = new_entries(capacity);
  t->equiv_proc = equiv_proc;
  t->hash_proc = hash_proc;
  return make_ptr(t);
}

// ---- hashing and comparing keys -----------------------------------------------------------------

uint64_t string_hash(const uint32_t* c, int64_t n, uint64_t seed) { return string_hash_seeded(c, n, seed); }

uint64_t ci_hash(Value s, uint64_t seed) {
  std::u32string f = string_folded(s);
  return string_hash_seeded(reinterpret_cast<const uint32_t*>(f.data()), static_cast<int64_t>(f.size()), seed);
}

// A hash function's result as a hash code.
uint64_t hash_result(const char* who, Value r) {
  if (r.is_fixnum()) return r.bits;
  if (is_bignum(r)) return num_hash(r);
  type_error(who, "an exact integer from the hash function", r);
}

// Fixnums keep their three low bits and have the rest keyed and scrambled: eight consecutive
// integers land in eight consecutive slots (one cache miss for a run of them instead of eight),
// while which run goes where depends on the seed, so strided keys chosen to collide cannot be
// computed without it.
inline uint64_t fixnum_hash(Value k, uint64_t seed) {
  uint64_t n = k.bits >> 1;
  return (mix64((n >> 3) ^ seed) << 3) | (n & 7);
}

// vm is used only by tables with a custom hash function or equivalence (null for the others).
uint64_t key_hash(Vm* vm, Table* t, Value k, const char* who) {
  uint64_t h;
  if (k.is_fixnum() && !t->custom_hash && t->equiv <= Equiv::kEqual) {
    h = fixnum_hash(k, t->seed);
  } else if (t->custom_hash) {
    if (!vm) throw_condition("type", who, "a table with a custom hash function needs a running engine");
    h = mix64(hash_result(who, vm->apply(t->hash_proc, 1, &k)) ^ t->seed);
  } else {
    switch (t->equiv) {
      case Equiv::kEq: h = mix64(k.bits ^ t->seed); break;
      case Equiv::kEqv: h = k.is_ptr() ? mix64(eqv_hash(k) ^ t->seed) : mix64(k.bits ^ t->seed); break;
      case Equiv::kString:
        if (!is_string(k)) type_error(who, "a string key", k);
        h = string_hash(k.as<String>()->chars(), k.as<String>()->length(), t->seed);
        break;
      case Equiv::kStringCi:
        if (!is_string(k)) type_error(who, "a string key", k);
        h = ci_hash(k, t->seed);
        break;
      default: h = equal_hash_seeded(k, t->seed); break;
    }
  }
  return h | kUsed;
}

bool same_key(Vm* vm, Table* t, Value a, Value b) {
  switch (t->equiv) {
    case Equiv::kEq: return a == b;
    case Equiv::kEqv: return eqv(a, b);
    case Equiv::kEqual: return equal(a, b);
    case Equiv::kString: {
      String *x = a.as<String>(), *y = b.as<String>();
      return x->length() == y->length() &&
             std::memcmp(x->chars(), y->chars(), static_cast<size_t>(x->length()) * 4) == 0;
    }
    case Equiv::kStringCi: return string_folded(a) == string_folded(b);
    case Equiv::kCustom: {
      if (!vm) throw_condition("type", "hash-table-set!", "a table with a custom equivalence needs a running engine");
      Value args[2] = {a, b};
      return vm->apply(t->equiv_proc, 2, args).is_true();
    }
  }
  return false;
}

// The index of `k`'s entry, or -1. With `insert_at`, also where `k` would go: the first dead entry
// on its probe chain, or the never-used slot ending it.
int64_t find(Vm* vm, Table* t, Value k, uint64_t h, int64_t* insert_at) {
restart:
  uint64_t version = t->version;
  Entry* e = t->entries;
  int64_t mask = t->mask;
  int64_t i = static_cast<int64_t>(h) & mask, dead = -1;
  uint64_t want = t->weak ? k.bits ^ kHide : k.bits;
  for (;;) {
    Entry& x = e[i];
    if (x.hash == 0) {
      if (insert_at) *insert_at = dead >= 0 ? dead : i;
      return -1;
    }
    if (x.key == 0) {
      if (dead < 0) dead = i;
    } else if (x.hash == h) {
      if (x.key == want) return i;
      if (t->equiv != Equiv::kEq) {
        Value key = key_of(t, x.key);
        if (x.key != 0) {
          bool r = same_key(vm, t, key, k);
          if (t->version != version || t->entries != e) goto restart;
          if (r) return i;
        }
      }
    }
    i = (i + 1) & mask;
  }
}

int64_t lookup(Vm& vm, Table* t, Value k, const char* who) {
  uint64_t h = key_hash(&vm, t, k, who);
  return find(&vm, t, k, h, nullptr);
}

void put(Vm* vm, Table* t, Value k, Value v, const char* who) {
  uint64_t h = key_hash(vm, t, k, who);
  int64_t at;
  int64_t i = find(vm, t, k, h, &at);
  if (i >= 0) {
    t->entries[i].value = v;
    return;
  }
  if (t->entries[at].hash == 0) {
    if ((t->used + 1) * 4 > (t->mask + 1) * 3) {
      rebuild(t, capacity_for(t->count + 1));
      int64_t mask = t->mask;
      at = static_cast<int64_t>(h) & mask;
      while (t->entries[at].hash != 0) at = (at + 1) & mask;
    }
    t->used++;
  }
  Entry* e = &t->entries[at];
  e->hash = h;
  e->value = v;
  set_key(t, e, k);
  t->count++;
  t->version++;
}

bool remove(Vm& vm, Table* t, Value k, const char* who) {
  int64_t i = lookup(vm, t, k, who);
  if (i < 0) return false;
  kill_entry(t, &t->entries[i]);
  t->count--;
  t->version++;
  return true;
}

int64_t live_count(Table* t) {
  if (!t->weak) return t->count;
  int64_t n = 0;
  for (int64_t i = 0; i <= t->mask; i++)
    if (t->entries[i].hash != 0 && t->entries[i].key != 0) n++;
  return n;
}

// Calls f(key, value) for every live entry (f must not run Scheme code).
template <class F>
void each(Table* t, F f) {
  Entry* e = t->entries;
  for (int64_t i = 0; i <= t->mask; i++) {
    if (e[i].hash == 0 || e[i].key == 0) continue;
    Value k = key_of(t, e[i].key);
    if (e[i].key == 0) continue;
    f(k, e[i].value);
  }
}

bool is_prim(Value p, PrimFn fn) { return fn && is_primitive(p) && p.as<Primitive>()->fn == fn; }

// ---- hash functions ---------------------------------------------------------------------------
// Deterministic (unseeded) hash codes, as SRFI 69/125/128 and R6RS define them: a non-negative
// fixnum, below `bound` when one is given.

constexpr uint64_t kFixedSeed = 0x2545F4914F6CDD1Dull;

Value hash_value(const char* who, uint64_t h, int argc, Value* argv, int bound_at) {
  uint64_t r = h & ((uint64_t(1) << 61) - 1);
  if (given(argc, argv, bound_at)) {
    Value b = argv[bound_at];
    if (!b.is_fixnum() || b.fixnum() <= 0) {
      if (is_bignum(b) && mpz_sgn(&b.as<Bignum>()->z) > 0) return make_fixnum(static_cast<int64_t>(r));
      type_error(who, "a positive exact integer bound", b);
    }
    r %= static_cast<uint64_t>(b.fixnum());
  }
  return make_fixnum(static_cast<int64_t>(r));
}

QUASI_PRIM(p_equal_hash) { return hash_value(self->name, equal_hash(argv[0]), argc, argv, 1); }
QUASI_PRIM(p_eqv_hash) { return hash_value(self->name, eqv_hash(argv[0]), argc, argv, 1); }
QUASI_PRIM(p_eq_hash) { return hash_value(self->name, mix64(argv[0].bits), argc, argv, 1); }

QUASI_PRIM(p_symbol_hash) {
  if (!is_symbol(argv[0])) type_error(self->name, "a symbol", argv[0]);
  return hash_value(self->name, eqv_hash(argv[0]), argc, argv, 1);
}

// (string-hash s [bound [start [end]]]) — SRFI 13's optional substring as well.
QUASI_PRIM(p_string_hash) {
  if (!is_string(argv[0])) type_error(self->name, "a string", argv[0]);
  String* s = argv[0].as<String>();
  int64_t start, end;
  get_range(self->name, argc, argv, 2, s->length(), start, end);
  return hash_value(self->name, string_hash(s->chars() + start, end - start, kFixedSeed), argc, argv, 1);
}

QUASI_PRIM(p_string_ci_hash) {
  if (!is_string(argv[0])) type_error(self->name, "a string", argv[0]);
  String* s = argv[0].as<String>();
  int64_t start, end;
  get_range(self->name, argc, argv, 2, s->length(), start, end);
  Value sub = argv[0];
  if (start != 0 || end != s->length()) {
    sub = make_string_uninit(end - start);
    std::memcpy(sub.as<String>()->chars(), s->chars() + start, static_cast<size_t>(end - start) * 4);
  }
  return hash_value(self->name, ci_hash(sub, kFixedSeed), argc, argv, 1);
}

bool is_builtin_hash(Value p) {
  return is_prim(p, p_equal_hash) || is_prim(p, p_eqv_hash) || is_prim(p, p_eq_hash) ||
         is_prim(p, p_symbol_hash) || is_prim(p, p_string_hash) || is_prim(p, p_string_ci_hash);
}

// equal? for tables the embedding API makes without an engine (whose own equal? it cannot reach).
QUASI_PRIM(p_host_equal) { return make_bool(equal(argv[0], argv[1])); }

// ---- primitives ------------------------------------------------------------------------------

// (%make-hash-table equiv hash weak? capacity): hash is #f for the default of equiv.
QUASI_PRIM(p_make_table) {
  const char* who = "make-hash-table";
  Value equiv = argv[0], hash = argv[1];
  if (!is_procedure(equiv)) type_error(who, "an equivalence procedure", equiv);
  if (hash != kFalse && !is_procedure(hash)) type_error(who, "a hash function", hash);
  int64_t capacity = 0;
  if (argv[3] != kFalse && argv[3] != kDefault) {
    if (!argv[3].is_fixnum() || argv[3].fixnum() < 0) type_error(who, "a non-negative capacity", argv[3]);
    capacity = argv[3].fixnum();
  }
  Equiv e = is_prim(equiv, g_eq)            ? Equiv::kEq
            : is_prim(equiv, g_eqv)         ? Equiv::kEqv
            : is_prim(equiv, g_equal) || is_prim(equiv, p_host_equal) ? Equiv::kEqual
            : is_prim(equiv, g_string_eq)   ? Equiv::kString
            : is_prim(equiv, g_string_ci_eq)? Equiv::kStringCi
                                            : Equiv::kCustom;
  // A built-in hash function with a built-in equivalence is replaced by the seeded hash of that
  // equivalence (consistent with it whatever hash was named); a custom equivalence without a
  // hash function uses equal? hashing (SRFI 69's default).
  bool custom_hash = hash != kFalse && (e == Equiv::kCustom || !is_builtin_hash(hash)) &&
                     !(e == Equiv::kCustom && is_prim(hash, p_equal_hash));
  return make_table(e, custom_hash, argv[2].is_true(), vm.hash_seed, capacity, equiv, hash);
}

QUASI_PRIM(p_tablep) { return make_bool(is_table(argv[0])); }

QUASI_PRIM(p_ref_default) {
  Table* t = check_table(self->name, argv[0]);
  int64_t i = lookup(vm, t, argv[1], self->name);
  return i >= 0 ? t->entries[i].value : argv[2];
}

QUASI_PRIM(p_contains) {
  Table* t = check_table(self->name, argv[0]);
  return make_bool(lookup(vm, t, argv[1], self->name) >= 0);
}

// (hash-table-set! t k v k v ...)
QUASI_PRIM(p_set) {
  Table* t = check_mutable_table(self->name, argv[0]);
  if (argc % 2 == 0) throw_error(self->name, "expected keys and values in pairs");
  for (int i = 1; i < argc; i += 2) put(&vm, t, argv[i], argv[i + 1], self->name);
  return kUnspecified;
}

// (hash-table-delete! t k ...): the number of keys that were present.
QUASI_PRIM(p_delete) {
  Table* t = check_mutable_table(self->name, argv[0]);
  int64_t n = 0;
  for (int i = 1; i < argc; i++) n += remove(vm, t, argv[i], self->name);
  return make_fixnum(n);
}

QUASI_PRIM(p_size) { return make_fixnum(live_count(check_table(self->name, argv[0]))); }

QUASI_PRIM(p_clear) {
  Table* t = check_mutable_table(self->name, argv[0]);
  int64_t capacity = 0;
  if (given(argc, argv, 1)) capacity = check_bound(self->name, "capacity", argv[1], kMaxCapacity / 2);
  capacity = capacity_for(capacity);
  t->entries = new_entries(capacity);
  t->mask = capacity - 1;
  t->count = t->used = 0;
  t->version++;
  return kUnspecified;
}

// (hash-table-copy t [mutable?]): mutable unless mutable? is given as #f.
QUASI_PRIM(p_copy) {
  Table* t = check_table(self->name, argv[0]);
  Value r = make_table(t->equiv, t->custom_hash, t->weak, t->seed, 0, t->equiv_proc, t->hash_proc);
  Table* c = r.as<Table>();
  c->entries = new_entries(t->mask + 1);
  c->mask = t->mask;
  int64_t live = 0;
  for (int64_t i = 0; i <= t->mask; i++) {
    Entry& from = t->entries[i];
    if (from.hash == 0 || from.key == 0) continue;
    Value k = key_of(t, from.key);
    if (from.key == 0) continue;
    // Same seed and capacity: every entry goes where it is (dead slots become never used, so
    // chains could break: place by probing instead).
    int64_t j = static_cast<int64_t>(from.hash) & c->mask;
    while (c->entries[j].hash != 0) j = (j + 1) & c->mask;
    c->entries[j].hash = from.hash;
    c->entries[j].value = from.value;
    set_key(c, &c->entries[j], k);
    live++;
  }
  c->count = c->used = live;
  c->mutable_ = !given(argc, argv, 1) || argv[1].is_true();
  return r;
}

QUASI_PRIM(p_keys) {
  Table* t = check_table(self->name, argv[0]);
  Value r = kNil;
  each(t, [&](Value k, Value) { r = cons(k, r); });
  return r;
}

QUASI_PRIM(p_values) {
  Table* t = check_table(self->name, argv[0]);
  Value r = kNil;
  each(t, [&](Value, Value v) { r = cons(v, r); });
  return r;
}

QUASI_PRIM(p_alist) {
  Table* t = check_table(self->name, argv[0]);
  Value r = kNil;
  each(t, [&](Value k, Value v) { r = cons(cons(k, v), r); });
  return r;
}

// (%hash-table-entries t): #(k0 v0 k1 v1 ...), a snapshot to walk while the table may change.
QUASI_PRIM(p_entries) {
  Table* t = check_table(self->name, argv[0]);
  gc_vector<Value> items;
  each(t, [&](Value k, Value v) {
    items.push_back(k);
    items.push_back(v);
  });
  Value r = make_vector(static_cast<int64_t>(items.size()));
  for (size_t i = 0; i < items.size(); i++) r.as<Vector>()->items()[i] = items[i];
  return r;
}

QUASI_PRIM(p_equiv_fn) { return check_table(self->name, argv[0])->equiv_proc; }
QUASI_PRIM(p_hash_fn) { return check_table(self->name, argv[0])->hash_proc; }
QUASI_PRIM(p_mutablep) { return make_bool(check_table(self->name, argv[0])->mutable_); }
QUASI_PRIM(p_weakp) { return make_bool(check_table(self->name, argv[0])->weak); }

constexpr uint32_t kRead = kMayRaise;  // reads call hash/equivalence procedures: not foldable

const PrimDef kHashTablePrims[] = {
    {"%make-hash-table", p_make_table, 4, 4, kAllocates | kMayRaise},
    {"hash-table?", p_tablep, 1, 1, kPureFold},
    {"hash-table-ref/default", p_ref_default, 3, 3, kRead},
    {"hash-table-contains?", p_contains, 2, 2, kRead},
    {"hash-table-exists?", p_contains, 2, 2, kRead},
    {"hash-table-set!", p_set, 1, -1, kEffect},
    {"hash-table-delete!", p_delete, 1, -1, kEffect},
    {"hash-table-size", p_size, 1, 1, kMayRaise},
    {"hash-table-clear!", p_clear, 1, 2, kEffect},
    {"hash-table-copy", p_copy, 1, 2, kAllocates | kMayRaise},
    {"hash-table-keys", p_keys, 1, 1, kAllocates | kMayRaise},
    {"hash-table-values", p_values, 1, 1, kAllocates | kMayRaise},
    {"hash-table->alist", p_alist, 1, 1, kAllocates | kMayRaise},
    {"%hash-table-entries", p_entries, 1, 1, kAllocates | kMayRaise},
    {"hash-table-equivalence-function", p_equiv_fn, 1, 1, kMayRaise},
    {"hash-table-hash-function", p_hash_fn, 1, 1, kMayRaise},
    {"hash-table-mutable?", p_mutablep, 1, 1, kMayRaise},
    {"hash-table-weak?", p_weakp, 1, 1, kMayRaise},
    // R6RS (rnrs hashtables) / Chez Scheme names with their arities.
    {"hashtable?", p_tablep, 1, 1, kPureFold},
    {"hashtable-ref", p_ref_default, 3, 3, kRead},
    {"hashtable-contains?", p_contains, 2, 2, kRead},
    {"hashtable-set!", p_set, 3, 3, kEffect},
    {"hashtable-delete!", p_delete, 2, 2, kEffect},
    {"hashtable-size", p_size, 1, 1, kMayRaise},
    {"hashtable-clear!", p_clear, 1, 2, kEffect},
    {"hashtable-mutable?", p_mutablep, 1, 1, kMayRaise},
    {"hashtable-weak?", p_weakp, 1, 1, kMayRaise},
    {"hashtable-equivalence-function", p_equiv_fn, 1, 1, kMayRaise},
    {"equal-hash", p_equal_hash, 1, 2, kPureFoldRaise},
    {"hash", p_equal_hash, 1, 2, kPureFoldRaise},
    {"eqv-hash", p_eqv_hash, 1, 2, kPureFoldRaise},
    {"eq-hash", p_eq_hash, 1, 2, kPure | kMayRaise},
    {"hash-by-identity", p_eq_hash, 1, 2, kPure | kMayRaise},
    {"symbol-hash", p_symbol_hash, 1, 2, kPureFoldRaise},
    {"string-hash", p_string_hash, 1, 4, kPureFoldRaise},
    {"string-ci-hash", p_string_ci_hash, 1, 4, kPureFoldRaise},
};

PrimFn prim_fn(Environment* env, const char* name) {
  Value cell = env->lookup(intern(name));
  if (!has_type(cell, Type::GlobalCell)) return nullptr;
  Value p = cell.as<GlobalCell>()->value;
  return is_primitive(p) ? p.as<Primitive>()->fn : nullptr;
}

}  // namespace

Value make_equal_hash_table(Vm* vm, int64_t capacity) {
  Value equal_proc = kFalse;
  if (vm) {
    Value cell = vm->core_env->lookup(intern("equal?"));
    if (has_type(cell, Type::GlobalCell)) equal_proc = cell.as<GlobalCell>()->value;
  }
  if (!is_prim(equal_proc, g_equal)) {
    // Made once and kept for the process: tables that outlive every engine still report it.
    static GcRoot* fallback = new GcRoot(make_primitive("equal?", p_host_equal, 2, 2, kPureFold));
    equal_proc = fallback->get();
  }
  static const uint64_t process_seed = fresh_hash_seed();
  if (capacity < 0 || capacity > kMaxCapacity / 2) capacity = 0;
  return make_table(Equiv::kEqual, false, false, vm ? vm->hash_seed : process_seed, capacity, equal_proc, kFalse);
}

bool is_hash_table(Value v) { return is_table(v); }

void hash_table_insert(Value table, Value key, Value value) {
  put(nullptr, check_mutable_table("hash-table-set!", table), key, value, "hash-table-set!");
}

void hash_table_each(Value table, void (*fn)(void* ctx, Value key, Value value), void* ctx) {
  Table* t = check_table("hash-table-walk", table);
  each(t, [&](Value k, Value v) { fn(ctx, k, v); });
}

void register_hashtable_primitives(Environment* env) {
  g_eq = prim_fn(env, "eq?");
  g_eqv = prim_fn(env, "eqv?");
  g_equal = prim_fn(env, "equal?");
  g_string_eq = prim_fn(env, "string=?");
  g_string_ci_eq = prim_fn(env, "string-ci=?");
  install_primitives(env, kHashTablePrims);
}

}  // namespace quasi
