#include "core/object.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_map>

namespace quasi {

namespace {
// Larger requests are refused with a Scheme error instead of asking the collector for them.
constexpr int64_t kMaxObjectBytes = int64_t(1) << 34;

void check_size(const char* who, int64_t length, int64_t element_bytes) {
  if (length < 0 || length > kMaxObjectBytes / element_bytes)
    throw_condition("limit", who, "object too large: " + std::to_string(length) + " elements");
  // The evaluation's limits are seen by the allocation itself (gc.hpp, note_allocation): before
  // every object of kWatchedBytes or more, and once per kWatchedBytes of smaller ones.
}
}  // namespace

Value cons_info(Value a, Value d, uint64_t header) {
  PairInfo* p = static_cast<PairInfo*>(gc_alloc_info_pair());
  p->car = a;
  p->cdr = d;
  p->header = header;
  return make_pair_value(p);
}

void set_pair_srcloc(Value v, SrcLoc loc) {
  if (PairInfo* i = pair_info(v)) i->header = (i->header & 0xFFFF) | (loc.pack() << 16);
}

Value make_string_uninit(int64_t length) {
  check_size("make-string", length, sizeof(uint32_t));
  String* s = static_cast<String*>(gc_alloc_atomic(sizeof(String) + sizeof(uint32_t) * length));
  s->header = make_header(Type::String, length);
  return make_ptr(s);
}

Value make_string(int64_t length, char32_t fill) {
  Value v = make_string_uninit(length);
  std::fill_n(v.as<String>()->chars(), length, uint32_t(fill));
  return v;
}

Value make_string_utf32(const char32_t* src, int64_t n) {
  Value v = make_string_uninit(n);
  uint32_t* c = v.as<String>()->chars();
  for (int64_t i = 0; i < n; i++) c[i] = src[i];
  return v;
}

void utf8_append(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

int32_t utf8_decode(std::string_view s, size_t& i) {
  unsigned char b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) { i++; return b0; }
  int len;
  int32_t cp;
  if ((b0 & 0xE0) == 0xC0) { len = 2; cp = b0 & 0x1F; }
  else if ((b0 & 0xF0) == 0xE0) { len = 3; cp = b0 & 0x0F; }
  else if ((b0 & 0xF8) == 0xF0) { len = 4; cp = b0 & 0x07; }
  else { i++; return -1; }
  if (i + len > s.size()) { i++; return -1; }
  for (int k = 1; k < len; k++) {
    unsigned char b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) { i++; return -1; }
    cp = (cp << 6) | (b & 0x3F);
  }
  // Reject overlong forms, surrogates and out-of-range values.
  static const int32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) { i++; return -1; }
  i += len;
  return cp;
}

Value make_string_utf8(std::string_view utf8) {
  // Two passes over the bytes (count, then decode into the string) instead of a temporary
  // UTF-32 buffer: number->string, symbol names and port reads come through here.
  size_t n = 0;
  bool ascii = true;
  for (unsigned char b : utf8) ascii &= b < 0x80;
  if (ascii) {
    n = utf8.size();
  } else {
    for (size_t i = 0; i < utf8.size(); n++) utf8_decode(utf8, i);
  }
  Value v = make_string_uninit(static_cast<int64_t>(n));
  uint32_t* out = v.as<String>()->chars();
  if (ascii) {
    for (size_t i = 0; i < n; i++) out[i] = static_cast<unsigned char>(utf8[i]);
  } else {
    for (size_t i = 0; i < utf8.size();) {
      int32_t c = utf8_decode(utf8, i);
      *out++ = c < 0 ? 0xFFFD : static_cast<uint32_t>(c);
    }
  }
  return v;
}

std::string string_to_utf8(Value str) {
  String* s = str.as<String>();
  std::string out;
  out.reserve(s->length());
  for (int64_t i = 0; i < s->length(); i++) utf8_append(out, s->chars()[i]);
  return out;
}

namespace {
uint64_t hash_bytes(std::string_view s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

Value new_symbol(std::string_view name, bool interned) {
  Symbol* sym = gc_alloc_object<Symbol>(Type::Symbol, sizeof(Symbol));
  Value str = make_string_utf8(name);
  str.obj()->set_immutable();
  sym->name = str;
  char* utf8 = static_cast<char*>(gc_alloc_atomic(name.size() + 1));
  std::memcpy(utf8, name.data(), name.size());
  utf8[name.size()] = 0;
  sym->utf8 = utf8;
  sym->hash = hash_bytes(name);
  sym->interned = interned;
  return make_ptr(sym);
}

// Process-wide symbol table, shared by all engines. It holds its symbols weakly: a slot keeps the
// symbol's address hidden (GC_HIDE_POINTER) in memory the collector does not scan, registered as
// a disappearing link, so the collector zeroes the slot when nothing else reaches the symbol and
// a host that interns names from untrusted scripts one after another does not grow without bound.
// A zeroed slot is never written again by the collector, and only intern writes a live one.
struct SymbolTable {
  std::mutex mu;
  std::unordered_map<std::string, GC_hidden_pointer> map;
  size_t prune_at = 1024;  // size at which dead slots are next swept out
};
SymbolTable& symbols() {
  static SymbolTable* t = new SymbolTable;
  return *t;
}

// Reads a slot under the collector's lock: between a collection finding the symbol unreachable
// and clearing its slot the world runs again, and a plain read in that window would revive a
// symbol whose memory is about to be reused. Under the lock the read lands either before the
// collection (the symbol is then on this stack and stays alive) or after the slot was cleared.
struct SlotRead {
  const GC_hidden_pointer* slot;
  void* symbol;
};
void* read_slot_locked(void* p) {
  auto* r = static_cast<SlotRead*>(p);
  r->symbol = *r->slot ? GC_REVEAL_POINTER(*r->slot) : nullptr;
  return nullptr;
}

bool slot_is_dead(const GC_hidden_pointer& slot) { return __atomic_load_n(&slot, __ATOMIC_RELAXED) == 0; }

void prune_dead_symbols(SymbolTable& t) {
  for (auto it = t.map.begin(); it != t.map.end();) it = slot_is_dead(it->second) ? t.map.erase(it) : std::next(it);
  t.prune_at = std::max<size_t>(1024, 2 * t.map.size());
}
}  // namespace

Value intern(std::string_view name) {
  SymbolTable& t = symbols();
  {
    std::lock_guard<std::mutex> lock(t.mu);
    std::string key(name);
    auto it = t.map.find(key);
    if (it != t.map.end()) {
      SlotRead r{&it->second, nullptr};
      GC_call_with_alloc_lock(read_slot_locked, &r);
      if (r.symbol) return make_ptr(r.symbol);
    } else {
      if (t.map.size() >= t.prune_at) prune_dead_symbols(t);
      it = t.map.emplace(std::move(key), 0).first;
    }
    // May throw (a memory limit): the slot then stays empty, which reads as a dead symbol.
    Value sym = new_symbol(name, true);
    it->second = GC_HIDE_POINTER(sym.obj());
    if (GC_general_register_disappearing_link(reinterpret_cast<void**>(&it->second), sym.obj()) != GC_NO_MEMORY)
      return sym;
    t.map.erase(it);  // an untracked slot could outlive its symbol
  }
  // Outside the table's lock: making the condition interns its kind.
  throw_condition("limit", "string->symbol", "out of memory");
}

size_t interned_symbol_slots() {
  SymbolTable& t = symbols();
  std::lock_guard<std::mutex> lock(t.mu);
  prune_dead_symbols(t);
  return t.map.size();
}

Value make_uninterned_symbol(std::string_view name) { return new_symbol(name, false); }

Value make_vector(int64_t length, Value fill) {
  check_size("make-vector", length, sizeof(Value));
  Vector* v = gc_alloc_object<Vector>(Type::Vector, sizeof(Vector) + sizeof(Value) * length, length);
  for (int64_t i = 0; i < length; i++) v->items()[i] = fill;
  return make_ptr(v);
}

Value make_bytevector(int64_t length, uint8_t fill) {
  check_size("make-bytevector", length, 1);
  Bytevector* b = static_cast<Bytevector*>(gc_alloc_atomic(sizeof(Bytevector) + length));
  b->header = make_header(Type::Bytevector, length);
  std::memset(b->bytes(), fill, length);
  return make_ptr(b);
}

Value make_primitive(const char* name, PrimFn fn, int min_args, int max_args, uint32_t flags,
                     void* data, Value data_value) {
  Primitive* p = gc_alloc_object<Primitive>(Type::Primitive, sizeof(Primitive));
  p->fn = fn;
  p->name = name;
  p->min_args = min_args;
  p->max_args = max_args;
  p->flags = flags;
  p->vm_op = 0;
  p->facts = PrimFacts{};
  p->data = data;
  p->data_value = data_value;
  return make_ptr(p);
}

Value make_global_cell(Value name) {
  GlobalCell* c = gc_alloc_object<GlobalCell>(Type::GlobalCell, sizeof(GlobalCell));
  c->value = kUnbound;
  c->name = name;
  c->owner = kFalse;
  return make_ptr(c);
}

Value make_values(int64_t n, const Value* items) {
  MultipleValues* mv = gc_alloc_object<MultipleValues>(
      Type::Values, sizeof(MultipleValues) + sizeof(Value) * n, n);
  for (int64_t i = 0; i < n; i++) mv->items()[i] = items[i];
  return make_ptr(mv);
}

Value make_condition(Value kind, Value who, Value message, Value irritants, SrcLoc loc) {
  Condition* c = gc_alloc_object<Condition>(Type::Condition, sizeof(Condition));
  c->kind = kind;
  c->who = who;
  c->message = message;
  c->irritants = irritants;
  c->loc = loc.pack();
  c->backtrace = kNil;
  return make_ptr(c);
}

int64_t count_pairs(Value v, Value* tail) {
  int64_t n = 0;
  Value slow = v;
  while (is_pair(v)) {
    v = cdr(v);
    n++;
    if (!is_pair(v)) break;
    v = cdr(v);
    n++;
    slow = cdr(slow);
    if (v == slow) return -1;
  }
  if (tail) *tail = v;
  return n;
}

int64_t list_length(Value v) {
  Value tail;
  int64_t n = count_pairs(v, &tail);
  return n >= 0 && tail == kNil ? n : -1;
}

Value reverse_list(Value v) {
  Value r = kNil;
  for (; is_pair(v); v = cdr(v)) r = cons(car(v), r);
  return r;
}

void (*watched_cell_written)(Value cell) = nullptr;

}  // namespace quasi
