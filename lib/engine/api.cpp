// api.cpp — the public classes of quasi.hpp, implemented through engine_bridge.hpp.
#include <algorithm>
#include <atomic>
#include <climits>
#include <mutex>
#include <ostream>
#include <typeindex>
#include <unordered_map>
#include <unordered_set>

#include "core/gc_threads.hpp"
#include "engine/warnings.hpp"
#include "engine/engine_bridge.hpp"
#include "quasi/quasi.hpp"

namespace quasi {

// ---- Error ---------------------------------------------------------------------------------------

Error::Error(const std::string& message, std::string kind)
    : std::runtime_error(message), kind_(std::move(kind)), message_(message) {}

Error::Error(const std::string& what, std::string kind, std::string message, std::vector<std::string> irritants,
             std::string location, std::vector<std::string> backtrace, std::shared_ptr<void> payload,
             std::vector<Frame> frames, size_t frame_count)
    : std::runtime_error(what),
      kind_(std::move(kind)),
      message_(std::move(message)),
      location_(std::move(location)),
      irritants_(std::move(irritants)),
      backtrace_(std::move(backtrace)),
      payload_(std::move(payload)),
      frames_(std::move(frames)),
      frame_count_(std::max(frame_count, frames_.size())) {}

// The public classes live in the inline namespace quasi::api (see quasi.hpp).
inline namespace api {

using detail::Word;

namespace detail {

// What a Value's root slot and a registered function know of their engine. Counted references:
// the engine holds one, each Value root slot one, each registration one; `engine` turns null when
// the engine is destroyed.
struct EngineLink {
  std::atomic<int> refs{1};
  std::atomic<Engine*> engine{nullptr};
  std::mutex mu;                                      // guards `registrations`
  std::unordered_set<struct Registration*> registrations;  // host functions alive
};

// One registered procedure: owned by its Scheme procedure (released by the collector's
// finalizer) and by the engine (which drops `fn` when destroyed), whichever goes first.
struct Registration {
  EngineLink* link;
  std::shared_ptr<HostFunction> fn;
};

}  // namespace detail

using detail::EngineLink;
using detail::Registration;

struct Engine::State {
  bridge::Engine* engine = nullptr;
  Options options;
  EngineLink* link = nullptr;
};

namespace {

// Words that name heap objects (core/value.hpp: pointers, low bits 000, and pairs, 100) need a root.
bool names_heap_object(Word w) { return w != 0 && (w & 3) == 0; }

void retain(EngineLink* link) {
  if (link) link->refs.fetch_add(1, std::memory_order_relaxed);
}
void unref(EngineLink* link) {
  if (link && link->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete link;
}
EngineLink* link_of_slot(const Word* slot) { return slot ? reinterpret_cast<EngineLink*>(slot[1]) : nullptr; }

// A root slot for `w` (a heap word) holding a reference on `link`.
Word* new_slot(Word w, EngineLink* link) {
  Word* slot = bridge::new_root(w, reinterpret_cast<Word>(link));
  retain(link);
  return slot;
}

// Names of foreign types by key, for messages about values from any engine.
struct TypeNames {
  std::mutex mu;
  std::unordered_map<const void*, std::string> names;
};
TypeNames& type_names() {
  static TypeNames* t = new TypeNames;
  return *t;
}
std::string type_name_of(const void* key) {
  TypeNames& t = type_names();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.names.find(key);
  return it == t.names.end() ? "foreign object" : it->second;
}

std::string with_article(const std::string& noun) {
  bool vowel = !noun.empty() && std::string_view("aeiou").find(noun[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + noun;
}

// ---- registered functions ----

Word invoke_host(void* ctx, int argc, const Word* argv) {
  detail::HostFunction* fn = static_cast<Registration*>(ctx)->fn.get();
  if (!fn) throw Error("the engine of this procedure has been destroyed");
  return fn->invoke(argc, argv);
}

// The collector's finalizer of a registered procedure (any thread).
void release_host(void* ctx) {
  auto* reg = static_cast<Registration*>(ctx);
  EngineLink* link = reg->link;
  std::shared_ptr<detail::HostFunction> fn;
  {
    std::lock_guard<std::mutex> lock(link->mu);
    link->registrations.erase(reg);
    fn = std::move(reg->fn);
  }
  fn.reset();  // outside the lock: its destructor may release Values
  delete reg;
  unref(link);
}

std::string describe_arguments(int argc, const Word* argv) {
  std::string s = "(";
  for (int i = 0; i < argc; i++) s += (i ? " " : "") + bridge::describe(argv[i]);
  return s + ")";
}

// Several C++ callables behind one Scheme procedure (Engine::define with several callables,
// Engine::overload, a TypeBuilder member defined twice).
class OverloadSet final : public detail::HostFunction {
 public:
  OverloadSet(std::string name, std::vector<std::shared_ptr<detail::HostFunction>> candidates)
      : name_(std::move(name)), candidates_(std::move(candidates)) {
    min_args = INT32_MAX;
    max_args = 0;
    for (const auto& c : candidates_) {
      min_args = std::min(min_args, c->min_args);
      max_args = (c->max_args < 0 || max_args < 0) ? -1 : std::max(max_args, c->max_args);
    }
  }
  const std::vector<std::shared_ptr<detail::HostFunction>>& candidates() const { return candidates_; }

  Word invoke(int argc, const Word* argv) override {
    for (bool exact : {true, false})
      for (const auto& c : candidates_)
        if (c->accepts(argc, argv, exact)) return c->invoke(argc, argv);
    // None fits. If only one takes this many arguments, its own conversion error says best
    // which argument is wrong.
    detail::HostFunction* only = nullptr;
    int with_arity = 0;
    for (const auto& c : candidates_)
      if (argc >= c->min_args && (c->max_args < 0 || argc <= c->max_args)) {
        only = c.get();
        with_arity++;
      }
    if (with_arity == 1) return only->invoke(argc, argv);
    std::string message = "no overload accepts " + describe_arguments(argc, argv) + "; candidates:";
    for (size_t i = 0; i < candidates_.size(); i++) message += (i ? ", " : " ") + candidates_[i]->signature(name_);
    throw Error(message, with_arity == 0 ? "arity" : "type");
  }
  bool accepts(int argc, const Word* argv, bool exact) const override {
    for (const auto& c : candidates_)
      if (c->accepts(argc, argv, exact)) return true;
    return false;
  }
  std::string signature(std::string_view name) const override {
    std::string s;
    for (const auto& c : candidates_) s += (s.empty() ? "" : " | ") + c->signature(name);
    return s;
  }

 private:
  std::string name_;
  std::vector<std::shared_ptr<detail::HostFunction>> candidates_;
};

// ---- foreign objects: bases and hooks (process-wide, by type key) ----

struct BaseEdge {
  const void* base;
  void* (*upcast)(void*);
};
struct TypeHooks {
  std::function<std::string(void*)> print;
  std::function<bool(void*, void*)> equal;
  std::function<size_t(void*)> hash;
};
struct ForeignTypes {
  std::mutex mu;
  std::unordered_map<std::type_index, const void*> dynamic;     // typeid -> key (polymorphic types)
  std::unordered_map<const void*, std::vector<BaseEdge>> bases;  // derived -> direct bases
  std::unordered_map<const void*, std::shared_ptr<const TypeHooks>> hooks;
};
ForeignTypes& foreign_types() {
  static ForeignTypes* t = new ForeignTypes;
  return *t;
}

// `object` (of type `from`) as a pointer to `to`, walking the registered bases; null if `to` is
// not `from` or one of its bases.
void* cast_to(const void* from, void* object, const void* to, int depth = 0) {
  if (from == to) return object;
  if (depth > 64) return nullptr;
  std::vector<BaseEdge> edges;
  {
    ForeignTypes& t = foreign_types();
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.bases.find(from);
    if (it == t.bases.end()) return nullptr;
    edges = it->second;
  }
  for (const BaseEdge& e : edges)
    if (void* p = cast_to(e.base, e.upcast(object), to, depth + 1)) return p;
  return nullptr;
}

// The hooks of `key`'s type or its nearest base that has `which`, and the object cast to it.
template <class Member>
std::shared_ptr<const TypeHooks> find_hooks(const void* key, void*& object, const void*& owner, Member which,
                                            int depth = 0) {
  ForeignTypes& t = foreign_types();
  std::vector<BaseEdge> edges;
  {
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.hooks.find(key);
    if (it != t.hooks.end() && (*it->second).*which) {
      owner = key;
      return it->second;
    }
    auto b = t.bases.find(key);
    if (b != t.bases.end()) edges = b->second;
  }
  if (depth > 64) return nullptr;
  for (const BaseEdge& e : edges) {
    void* base_object = e.upcast(object);
    if (auto h = find_hooks(e.base, base_object, owner, which, depth + 1)) {
      object = base_object;
      return h;
    }
  }
  return nullptr;
}

bool hook_print(const void* key, void* object, std::string& out) {
  const void* owner = nullptr;
  auto h = find_hooks(key, object, owner, &TypeHooks::print);
  if (!h) return false;
  try {
    out += h->print(object);
    return true;
  } catch (...) {
    return false;  // a printer that fails prints the default form
  }
}

int hook_equal(const void* key_a, void* a, const void* key_b, void* b) {
  const void* owner = nullptr;
  auto h = find_hooks(key_a, a, owner, &TypeHooks::equal);
  if (!h) return -1;
  void* b_as = cast_to(key_b, b, owner);
  if (!b_as) return 0;
  try {
    return h->equal(a, b_as) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

bool hook_hash(const void* key, void* object, uint64_t* out) {
  const void* owner = nullptr;
  void* o = object;
  auto eq = find_hooks(key, o, owner, &TypeHooks::equal);
  if (!eq) return false;  // identity equality: identity hash
  const void* hash_owner = nullptr;
  void* ho = object;
  auto h = find_hooks(key, ho, hash_owner, &TypeHooks::hash);
  // A hash is consistent with the equality only if given at or below the type that owns it;
  // otherwise every object of that type hashes alike.
  if (h && cast_to(hash_owner, ho, owner) != nullptr) {
    try {
      *out = uint64_t(h->hash(ho));
      return true;
    } catch (...) {
    }
  }
  *out = uint64_t(reinterpret_cast<uintptr_t>(owner));
  return true;
}

void install_hooks_once() {
  static std::once_flag once;
  std::call_once(once, [] { bridge::set_foreign_hooks({hook_print, hook_equal, hook_hash}); });
}

}  // namespace

const char* version() { return "0.1.0"; }

void single_thread_process() { gc_set_one_thread(); }

Value error_object(const Error& e) {
  const auto* slot = static_cast<const Word*>(e.payload().get());
  return slot ? Value::from_word(*slot) : Value();
}

// ---- raw-word conversions ----------------------------------------------------------------------------

namespace detail {

Word make_int(int64_t n) { return bridge::make_int(n); }
Word make_uint(uint64_t n) { return bridge::make_uint(n); }
Word make_double(double d) { return bridge::make_double(d); }
Word make_bool(bool b) { return bridge::make_bool(b); }
Word make_char(char32_t c) { return bridge::make_char(c); }
Word make_string(std::string_view utf8) { return bridge::make_string(utf8); }
Word make_symbol(std::string_view utf8) { return bridge::make_symbol(utf8); }
Word make_bytevector(const void* bytes, size_t n) { return bridge::make_bytevector(bytes, n); }
Word make_vector(size_t n) { return bridge::make_vector(int64_t(n)); }
Word make_hash_table(Engine* e, size_t capacity) {
  return bridge::make_hash_table(e ? e->internal_state().engine : nullptr, capacity);
}
void hash_table_set(Word table, Word key, Word value) { bridge::hash_table_set(table, key, value); }
void hash_table_each(Word table, void (*fn)(void* ctx, Word key, Word value), void* ctx) {
  bridge::hash_table_each(table, fn, ctx);
}
void vector_set(Word v, size_t i, Word x) { bridge::vector_set(v, int64_t(i), x); }
Word vector_ref(Word v, size_t i) { return bridge::vector_ref(v, int64_t(i)); }
Word nil() { return bridge::nil(); }
Word unspecified() { return bridge::unspecified(); }
Word cons(Word a, Word d) { return bridge::cons(a, d); }
Kind kind(Word w) { return Kind(int(bridge::kind(w))); }
static_assert(int(Kind::Other) == int(bridge::Kind::Other), "detail::Kind mirrors bridge::Kind");
static_assert(unsigned(Engine::Options::kUnboundVariable) == kWarnUnboundVariable &&
                  unsigned(Engine::Options::kArityMismatch) == kWarnArityMismatch &&
                  unsigned(Engine::Options::kAllWarnings) == kWarnAll,
              "Engine::Options::Warning mirrors engine/warnings.hpp");
Word car(Word w) { return bridge::car(w); }
Word cdr(Word w) { return bridge::cdr(w); }

int64_t list_length(Word w) {
  bridge::Kind k = bridge::kind(w);
  if (k != bridge::Kind::Null && k != bridge::Kind::Pair) return -1;
  return bridge::length(w);
}
int64_t sequence_length(Word w) {
  if (bridge::kind(w) == bridge::Kind::Vector) return bridge::length(w);
  return list_length(w);
}

void type_mismatch(Word got, const char* expected) {
  throw Error(std::string("expected ") + expected + ", got " + bridge::describe(got), "type");
}

void length_mismatch(Word got, size_t expected) {
  throw Error("expected " + std::to_string(expected) + " elements, got " + bridge::describe(got), "range");
}

bool fits_int(Word w, int64_t min, int64_t max) {
  int64_t n;
  return bridge::to_int64(w, &n) && n >= min && n <= max;
}
bool fits_uint(Word w, uint64_t max) {
  uint64_t n;
  return bridge::to_uint64(w, &n) && n <= max;
}

int64_t to_int(Word w, int64_t min, int64_t max) {
  int64_t n;
  bool fits = bridge::to_int64(w, &n);
  if (!fits && bridge::kind(w) != bridge::Kind::Integer) type_mismatch(w, "an integer");
  if (!fits || n < min || n > max)  // (not fitting: a bignum beyond int64_t)
    throw Error("expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
                    bridge::describe(w),
                "range");
  return n;
}

uint64_t to_uint(Word w, uint64_t max) {
  uint64_t n;
  if (!bridge::to_uint64(w, &n) || n > max) {
    if (bridge::kind(w) != bridge::Kind::Integer) type_mismatch(w, "an integer");
    throw Error("expected an integer from 0 to " + std::to_string(max) + ", got " + bridge::describe(w), "range");
  }
  return n;
}

double to_double(Word w) {
  double d;
  bridge::Kind k = bridge::kind(w);
  bool real = k == bridge::Kind::Integer || k == bridge::Kind::Rational || k == bridge::Kind::Real;
  if (!real || !bridge::to_double(w, &d)) type_mismatch(w, "a real number");
  return d;
}

bool to_bool(Word w) { return w != bridge::make_bool(false); }

char32_t to_char(Word w) {
  if (bridge::kind(w) != bridge::Kind::Char) type_mismatch(w, "a character");
  return bridge::char_code(w);
}

std::string to_string(Word w) {
  switch (bridge::kind(w)) {
    case bridge::Kind::String: return bridge::string_utf8(w);
    case bridge::Kind::Symbol: return bridge::symbol_name(w);
    default: type_mismatch(w, "a string");
  }
}

std::pair<uint8_t*, size_t> bytevector_bytes(Word w) {
  if (bridge::kind(w) != bridge::Kind::Bytevector) type_mismatch(w, "a bytevector");
  size_t n = 0;
  uint8_t* p = bridge::bytevector_data(w, &n);
  return {p, n};
}

void for_each_element(Word seq, void (*fn)(void* ctx, Word element), void* ctx) {
  bridge::Kind k = bridge::kind(seq);
  if (k == bridge::Kind::Vector) {
    int64_t n = bridge::length(seq);
    for (int64_t i = 0; i < n; i++) fn(ctx, bridge::vector_ref(seq, i));
    return;
  }
  if (k != bridge::Kind::Null && !(k == bridge::Kind::Pair && bridge::is_list(seq)))
    type_mismatch(seq, "a list or vector");
  for (Word l = seq; bridge::kind(l) == bridge::Kind::Pair; l = bridge::cdr(l)) fn(ctx, bridge::car(l));
}

void ListBuilder::push(Word item) {
  Word cell = bridge::cons(item, bridge::nil());
  if (!head_.is_pair()) head_ = Value::from_word(cell);
  else bridge::set_cdr(tail_, cell);
  tail_ = cell;  // reachable from head_
}

std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out += p;
  return out;
}

std::string join(std::initializer_list<std::string> parts, std::string_view separator) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += separator;
    out += p;
  }
  return out;
}

std::string signature_text(std::string_view name, std::initializer_list<std::string> params, int required,
                           bool variadic) {
  std::string s = "(" + std::string(name);
  int i = 0;
  for (const std::string& p : params) {
    if (variadic && i == int(params.size()) - 1) s += " ...";
    else if (i >= required) s += " [" + p + "]";
    else s += " " + p;
    i++;
  }
  return s + ")";
}

std::string type_name_from_signature(const char* pretty) {
  // GCC: "... type_name() [with T = ns::Point; std::string = ...]"; Clang: "... [T = ns::Point]".
  std::string_view s(pretty);
  size_t at = s.find("T = ");
  if (at == std::string_view::npos) return "a C++ type";
  s.remove_prefix(at + 4);
  int depth = 0;
  size_t end = 0;
  for (; end < s.size(); end++) {
    char c = s[end];
    if (c == '<' || c == '(' || c == '[') depth++;
    else if ((c == '>' || c == ')') && depth > 0) depth--;
    else if ((c == ';' || c == ']') && depth == 0) break;
  }
  std::string name(s.substr(0, end));
  for (std::string_view anon : {"(anonymous namespace)::", "{anonymous}::"})
    for (size_t p; (p = name.find(anon)) != std::string::npos;) name.erase(p, anon.size());
  return name;
}

void argument_error(const Error& e, std::size_t index, const std::string& cpp_type) {
  if (e.payload()) throw e;  // a Scheme error from inside a conversion: not about the argument
  throw Error("argument " + std::to_string(index + 1) + " (" + cpp_type + "): " + e.message(), e.kind());
}

void engine_gone(const Value& proc) {
  throw Error(proc.to_string() + ": the engine of this procedure has been destroyed");
}

void result_error(const Error& e, const Value& proc, const std::string& cpp_type) {
  if (e.payload()) throw e;
  throw Error("result of " + proc.to_string() + " (" + cpp_type + "): " + e.message(), e.kind());
}

Word make_foreign(Engine* e, const void* key, void* object, std::shared_ptr<void>* holder, std::string (*cpp_name)()) {
  bridge::Engine* be = e ? e->internal_state().engine : nullptr;
  if (!bridge::foreign_type_known(be, key))
    throw Error(cpp_name() + " is not a type of this engine: give it to Engine::define_type first", "type");
  void (*release)(void*) = [](void* h) { delete static_cast<std::shared_ptr<void>*>(h); };
  return bridge::make_foreign(be, key, object, holder, holder ? release : nullptr);
}

void* foreign_object(Word w, const void* key, std::shared_ptr<void>** holder) {
  const void* k = nullptr;
  void* object = nullptr;
  void* h = nullptr;
  void* cast = bridge::foreign_parts(w, &k, &object, &h) ? cast_to(k, object, key) : nullptr;
  if (!cast) type_mismatch(w, with_article(type_name_of(key)).c_str());
  if (holder) *holder = static_cast<std::shared_ptr<void>*>(h);
  return cast;
}

int foreign_match(Word w, const void* key) {
  const void* k = nullptr;
  void* object = nullptr;
  if (!bridge::foreign_parts(w, &k, &object, nullptr)) return 0;
  if (k == key) return 2;
  return cast_to(k, object, key) ? 1 : 0;
}

const void* registered_dynamic_type(const std::type_info& type) {
  ForeignTypes& t = foreign_types();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.dynamic.find(std::type_index(type));
  return it == t.dynamic.end() ? nullptr : it->second;
}

void register_dynamic_type(const std::type_info& type, const void* key) {
  ForeignTypes& t = foreign_types();
  std::lock_guard<std::mutex> lock(t.mu);
  t.dynamic[std::type_index(type)] = key;
}

void register_base(const void* derived, const void* base, void* (*upcast)(void*)) {
  ForeignTypes& t = foreign_types();
  std::lock_guard<std::mutex> lock(t.mu);
  auto& edges = t.bases[derived];
  for (const BaseEdge& e : edges)
    if (e.base == base) return;
  edges.push_back({base, upcast});
}

void set_type_hooks(const void* key, std::function<std::string(void*)> print, std::function<bool(void*, void*)> equal,
                    std::function<size_t(void*)> hash) {
  install_hooks_once();
  ForeignTypes& t = foreign_types();
  std::lock_guard<std::mutex> lock(t.mu);
  auto old = t.hooks[key];
  auto h = std::make_shared<TypeHooks>(old ? *old : TypeHooks{});
  if (print) h->print = std::move(print);
  if (equal) h->equal = std::move(equal);
  if (hash) h->hash = std::move(hash);
  t.hooks[key] = std::move(h);
}

}  // namespace detail

// ---- Value ---------------------------------------------------------------------------------------

Value::Value(const Value& other)
    : word_(other.word_), root_(names_heap_object(other.word_) ? new_slot(other.word_, link_of_slot(other.root_)) : nullptr) {}

Value& Value::operator=(const Value& other) {
  if (this == &other) return *this;
  if (names_heap_object(other.word_)) {
    EngineLink* link = link_of_slot(other.root_);
    if (root_) {
      retain(link);
      unref(link_of_slot(root_));
      root_[0] = other.word_;
      root_[1] = reinterpret_cast<Word>(link);
    } else {
      root_ = new_slot(other.word_, link);
    }
  } else {
    release();
  }
  word_ = other.word_;
  return *this;
}

void Value::release() noexcept {
  if (!root_) return;
  EngineLink* link = link_of_slot(root_);
  bridge::free_root(root_);
  unref(link);
  root_ = nullptr;
}

Word Value::word() const { return word_ ? word_ : bridge::unspecified(); }

Value Value::from_word(Word w) {
  Value v;
  v.word_ = w;
  if (names_heap_object(w)) v.root_ = new_slot(w, nullptr);
  return v;
}

Value Value::from_word(Word w, Engine* e) {
  Value v;
  v.word_ = w;
  if (names_heap_object(w)) v.root_ = new_slot(w, e ? e->link() : nullptr);
  return v;
}

Value Value::from_word(Word w, const Value& origin) {
  Value v;
  v.word_ = w;
  if (names_heap_object(w)) v.root_ = new_slot(w, link_of_slot(origin.root_));
  return v;
}

Engine* Value::engine() const {
  EngineLink* link = link_of_slot(root_);
  return link ? link->engine.load(std::memory_order_acquire) : nullptr;
}

namespace {
// The engine link of the first of `items` that has one (a list of an engine's values belongs to it).
const Value& first_with_engine(const std::vector<Value>& items) {
  static const Value none;
  for (const Value& v : items)
    if (v.engine()) return v;
  return none;
}
}  // namespace

Value Value::symbol(std::string_view name) { return from_word(bridge::make_symbol(name)); }
Value Value::character(char32_t c) { return from_word(bridge::make_char(c)); }
Value Value::empty_list() { return from_word(bridge::nil()); }
Value Value::cons(const Value& car, const Value& cdr) {
  return from_word(bridge::cons(car.word(), cdr.word()), car.engine() ? car : cdr);
}

Value Value::list(const std::vector<Value>& items) {
  Word l = bridge::nil();  // on the stack: scanned; the items are rooted by their handles
  for (auto it = items.rbegin(); it != items.rend(); ++it) l = bridge::cons(it->word(), l);
  return from_word(l, first_with_engine(items));
}
Value Value::list(std::initializer_list<Value> items) { return list(std::vector<Value>(items)); }

Value Value::vector(const std::vector<Value>& items) {
  Value v = from_word(bridge::make_vector(int64_t(items.size())), first_with_engine(items));
  for (size_t i = 0; i < items.size(); i++) bridge::vector_set(v.word(), int64_t(i), items[i].word());
  return v;
}

namespace {
bridge::Kind kind_of(const Value& v) { return bridge::kind(v.word()); }
}  // namespace

bool Value::is_unspecified() const { return kind_of(*this) == bridge::Kind::Unspecified; }
bool Value::is_boolean() const { return kind_of(*this) == bridge::Kind::Boolean; }
bool Value::is_true() const { return word() != bridge::make_bool(false); }
bool Value::is_false() const { return word() == bridge::make_bool(false); }
bool Value::is_number() const {
  bridge::Kind k = kind_of(*this);
  return k == bridge::Kind::Integer || k == bridge::Kind::Rational || k == bridge::Kind::Real ||
         k == bridge::Kind::Complex;
}
bool Value::is_integer() const { return kind_of(*this) == bridge::Kind::Integer; }
bool Value::is_real() const {
  bridge::Kind k = kind_of(*this);
  return k == bridge::Kind::Integer || k == bridge::Kind::Rational || k == bridge::Kind::Real;
}
bool Value::is_string() const { return kind_of(*this) == bridge::Kind::String; }
bool Value::is_symbol() const { return kind_of(*this) == bridge::Kind::Symbol; }
bool Value::is_char() const { return kind_of(*this) == bridge::Kind::Char; }
bool Value::is_null() const { return kind_of(*this) == bridge::Kind::Null; }
bool Value::is_pair() const { return kind_of(*this) == bridge::Kind::Pair; }
bool Value::is_list() const { return is_null() || (is_pair() && bridge::is_list(word())); }
bool Value::is_vector() const { return kind_of(*this) == bridge::Kind::Vector; }
bool Value::is_bytevector() const { return kind_of(*this) == bridge::Kind::Bytevector; }
bool Value::is_procedure() const { return kind_of(*this) == bridge::Kind::Procedure; }
bool Value::is_error() const { return kind_of(*this) == bridge::Kind::Error; }
bool Value::is_eof() const { return kind_of(*this) == bridge::Kind::Eof; }
bool Value::is_foreign() const { return kind_of(*this) == bridge::Kind::Foreign; }
bool Value::is_hash_table() const { return kind_of(*this) == bridge::Kind::HashTable; }

size_t Value::size() const {
  int64_t n = bridge::length(word());
  if (n < 0) detail::type_mismatch(word(), "a list, vector or string");
  return size_t(n);
}

Value Value::operator[](size_t i) const {
  Word w = word();
  if (is_vector()) {
    if (i >= size()) throw Error("index " + std::to_string(i) + " out of range for " + bridge::describe(w), "range");
    return from_word(bridge::vector_ref(w, int64_t(i)), *this);
  }
  if (!is_list()) detail::type_mismatch(w, "a list or vector");
  for (size_t k = 0; k < i && bridge::kind(w) == bridge::Kind::Pair; k++) w = bridge::cdr(w);
  if (bridge::kind(w) != bridge::Kind::Pair)
    throw Error("index " + std::to_string(i) + " out of range for " + bridge::describe(word()), "range");
  return from_word(bridge::car(w), *this);
}

Value Value::car() const {
  if (!is_pair()) detail::type_mismatch(word(), "a pair");
  return from_word(bridge::car(word()), *this);
}
Value Value::cdr() const {
  if (!is_pair()) detail::type_mismatch(word(), "a pair");
  return from_word(bridge::cdr(word()), *this);
}

Value::iterator Value::begin() const {
  iterator it;
  if (is_vector()) {
    it.vector_ = true;
    it.seq_ = *this;
  } else if (is_list()) {
    if (is_pair()) it.seq_ = *this;
  } else {
    detail::type_mismatch(word(), "a list or vector");
  }
  return it;
}

bool Value::iterator::at_end() const {
  if (vector_) return index_ >= size_t(bridge::length(seq_.word()));
  return !seq_.is_pair();
}

Value Value::iterator::operator*() const {
  if (at_end()) throw Error("dereferencing the end of a Value's elements", "range");
  Word w = seq_.word();
  return from_word(vector_ ? bridge::vector_ref(w, int64_t(index_)) : bridge::car(w), seq_);
}

Value::iterator& Value::iterator::operator++() {
  if (vector_) {
    index_++;
  } else if (seq_.is_pair()) {
    Word next = bridge::cdr(seq_.word());
    if (names_heap_object(next)) {
      seq_.word_ = next;  // the same root slot: no allocation per step
      seq_.root_[0] = next;
    } else {
      seq_ = Value();
    }
  }
  return *this;
}

bool Value::iterator::operator==(const iterator& other) const {
  bool a = at_end(), b = other.at_end();
  if (a || b) return a == b;
  return seq_.word() == other.seq_.word() && index_ == other.index_;
}

std::string Value::to_string() const {
  if (word_ == 0) return bridge::write(bridge::unspecified(), false);
  return bridge::write(word_, false);
}
std::string Value::to_display_string() const { return bridge::write(word(), true); }

std::string Value::type_name() const {
  switch (kind_of(*this)) {
    case bridge::Kind::Unspecified: return "unspecified";
    case bridge::Kind::Boolean: return "boolean";
    case bridge::Kind::Null: return "empty list";
    case bridge::Kind::Pair: return is_list() ? "list" : "pair";
    case bridge::Kind::Integer: return "integer";
    case bridge::Kind::Rational: return "rational";
    case bridge::Kind::Real: return "real";
    case bridge::Kind::Complex: return "complex";
    case bridge::Kind::String: return "string";
    case bridge::Kind::Symbol: return "symbol";
    case bridge::Kind::Char: return "character";
    case bridge::Kind::Vector: return "vector";
    case bridge::Kind::Bytevector: return "bytevector";
    case bridge::Kind::Procedure: return "procedure";
    case bridge::Kind::Error: return "error";
    case bridge::Kind::Foreign: return bridge::foreign_name(word());
    case bridge::Kind::Eof: return "eof";
    case bridge::Kind::Values: return "multiple values";
    case bridge::Kind::HashTable: return "hash table";
    case bridge::Kind::Other: break;
  }
  return "object";
}

bool Value::eqv(const Value& other) const { return bridge::eqv(word(), other.word()); }
bool Value::equal(const Value& other) const { return bridge::equal(word(), other.word()); }

std::ostream& operator<<(std::ostream& out, const Value& v) { return out << v.to_string(); }

// ---- Engine --------------------------------------------------------------------------------------

namespace {
bridge::EngineConfig config_of(const Engine::Options& o) {
  bridge::EngineConfig c;
  c.allow_files = o.allow_files;
  c.allow_process = o.allow_process;
  c.allow_environment = o.allow_environment;
  c.step_limit = o.step_limit;
  c.time_limit_ns = int64_t(o.time_limit.count()) * 1000000;
  c.alloc_limit = o.memory_limit;
  c.jit_mode = o.jit == Engine::Options::Jit::kDefault ? -1 : int(o.jit) - 1;
  c.jit_log = o.jit_log;
  c.warning_kinds = o.on_warning ? o.warnings : 0;
  c.on_warning = o.on_warning;
  c.library_path = o.library_path;
  c.library_path_after = o.library_path_after;
  return c;
}
}  // namespace

Engine::Engine() : Engine(Options{}) {}

Engine::Engine(const Options& options) : state_(std::make_unique<State>()) {
  state_->options = options;
  state_->engine = bridge::create_engine(config_of(options));
  state_->link = new EngineLink;
  state_->link->engine.store(this, std::memory_order_release);
  if (options.allowed_libraries) bridge::set_allowed_libraries(state_->engine, &*options.allowed_libraries);
}

Engine::~Engine() {
  EngineLink* link = state_->link;
  // From here on, values and procedures of this engine know it is gone.
  std::vector<std::shared_ptr<detail::HostFunction>> functions;
  {
    std::lock_guard<std::mutex> lock(link->mu);
    link->engine.store(nullptr, std::memory_order_release);
    for (Registration* reg : link->registrations) functions.push_back(std::move(reg->fn));
    link->registrations.clear();
  }
  bridge::destroy_engine(state_->engine);
  functions.clear();  // the host functions go last: nothing can call them once the engine is gone
  unref(link);
}

detail::EngineLink* Engine::link() const { return state_->link; }

Value Engine::eval(std::string_view code, std::string_view source_name) {
  return Value::from_word(bridge::eval(state_->engine, code, source_name), this);
}

Value Engine::eval(std::string_view code, std::string_view source_name,
                   const std::function<void(const Value&)>& on_value) {
  auto sink = [](void* ctx, Word w) {
    auto* c = static_cast<std::pair<const std::function<void(const Value&)>*, Engine*>*>(ctx);
    (*c->first)(Value::from_word(w, c->second));
  };
  std::pair<const std::function<void(const Value&)>*, Engine*> ctx{&on_value, this};
  return Value::from_word(bridge::eval_each(state_->engine, code, source_name, sink, &ctx), this);
}

Value Engine::load(const std::string& path) { return Value::from_word(bridge::load(state_->engine, path), this); }

Value Engine::run_program(std::string_view code, std::string_view source_name) {
  return Value::from_word(bridge::run_program(state_->engine, code, source_name));
}

Value Engine::run_program_file(const std::string& path) {
  return Value::from_word(bridge::run_program_file(state_->engine, path));
}

Value Engine::apply(const Value& procedure, const std::vector<Value>& args) {
  // The words are copied into a buffer the collector does not scan; the handles in `args` and
  // `procedure` keep their objects alive.
  std::vector<Word> words;
  words.reserve(args.size());
  for (const Value& a : args) words.push_back(a.word());
  return Value::from_word(bridge::apply(state_->engine, procedure.word(), int(words.size()), words.data()), this);
}

Value Engine::get(std::string_view name) {
  Word w;
  if (!bridge::lookup_global(state_->engine, name, &w))
    throw Error("unbound variable: " + std::string(name), "unbound");
  return Value::from_word(w, this);
}

bool Engine::contains(std::string_view name) {
  Word w;
  return bridge::lookup_global(state_->engine, name, &w);
}

std::vector<std::string> Engine::globals(std::string_view prefix) {
  return bridge::global_names(state_->engine, prefix);
}


namespace {
Value register_shared(Engine& engine, bridge::Engine* be, std::string_view name,
                      std::shared_ptr<detail::HostFunction> fn) {
  EngineLink* link = engine.link();
  int min_args = fn->min_args, max_args = fn->max_args;
  auto* reg = new Registration{link, std::move(fn)};
  retain(link);
  {
    std::lock_guard<std::mutex> lock(link->mu);
    link->registrations.insert(reg);
  }
  try {
    return Value::from_word(bridge::make_host_procedure(be, name.empty() ? "host-function" : name, min_args,
                                                        max_args, invoke_host, reg, release_host),
                            &engine);
  } catch (...) {
    release_host(reg);
    throw;
  }
}
}  // namespace

Value Engine::register_function(std::string_view name, std::unique_ptr<detail::HostFunction> fn) {
  return register_shared(*this, state_->engine, name, std::shared_ptr<detail::HostFunction>(std::move(fn)));
}

// ---- definitions: the engine's top level, environments, libraries -----------------------------------

namespace detail {

struct LibraryState {
  std::string name;                  // "(app host)"
  Value env;                         // the library's own environment
  std::vector<std::string> exports;  // in definition order
};

void variable_error(const Error& e, std::string_view name) {
  if (e.payload()) throw e;
  throw Error(std::string(name) + ": " + e.message(), e.kind());
}

}  // namespace detail

namespace {
bridge::Engine* bridge_of(Engine* e) { return e->internal_state().engine; }
// The engine `v` (an environment) belongs to; throws once it has been destroyed.
Engine& engine_of(const Value& v, const char* what) {
  Engine* e = v.engine();
  if (!e) throw Error(std::string("the engine of this ") + what + " has been destroyed");
  return *e;
}
Word env_word(const Value& env) { return env.is_unspecified() ? 0 : env.word(); }

void export_name(Engine* e, detail::LibraryState& lib, std::string_view name) {
  if (std::find(lib.exports.begin(), lib.exports.end(), name) == lib.exports.end()) lib.exports.emplace_back(name);
  bridge::register_library(bridge_of(e), lib.name, lib.env.word(), lib.exports);
}
}  // namespace

void detail::Target::define_value(std::string_view name, const Value& v) const {
  bridge::define_in(bridge_of(engine), env_word(env), name, v.word());
  if (library) export_name(engine, *library, name);
}

Value detail::Target::functions(std::string_view name, std::vector<std::unique_ptr<HostFunction>> added,
                                bool append) const {
  std::vector<std::shared_ptr<HostFunction>> candidates;
  Word w;
  if (append && bridge::lookup_in(bridge_of(engine), env_word(env), name, &w)) {
    auto* reg = static_cast<Registration*>(bridge::host_procedure_context(w, invoke_host));
    if (!reg || reg->link != engine->link() || !reg->fn)
      throw Error("overload: " + std::string(name) + " is bound to " + bridge::describe(w) +
                      ", not to a C++ function of this engine",
                  "type");
    if (auto* set = dynamic_cast<OverloadSet*>(reg->fn.get())) candidates = set->candidates();
    else candidates.push_back(reg->fn);
  }
  for (auto& f : added) candidates.push_back(std::move(f));
  if (candidates.size() == 1) return register_shared(*engine, bridge_of(engine), name, std::move(candidates[0]));
  return register_shared(*engine, bridge_of(engine), name,
                         std::make_shared<OverloadSet>(std::string(name), std::move(candidates)));
}

Library Engine::define_library(std::string_view name) {
  auto state = std::make_shared<detail::LibraryState>();
  state->name = std::string(name);
  state->env = Value::from_word(bridge::make_environment(state_->engine, "(scheme base)"), this);
  bridge::register_library(state_->engine, state->name, state->env.word(), {});
  return Library(std::move(state));
}

Library& Library::scheme(std::string_view code) {
  Engine& e = engine_of(state_->env, "library");
  std::vector<std::string> before = bridge::defined_names(bridge_of(&e), state_->env.word());
  bridge::eval_in(bridge_of(&e), state_->env.word(), code, state_->name);
  for (const std::string& n : bridge::defined_names(bridge_of(&e), state_->env.word()))
    if (!std::binary_search(before.begin(), before.end(), n)) export_name(&e, *state_, n);
  return *this;
}

const std::string& Library::name() const { return state_->name; }

detail::Target Library::definition_target() const {
  return {&engine_of(state_->env, "library"), state_->env, state_};
}

namespace {
std::string joined(const auto& sets) {
  std::string text;
  for (const auto& s : sets) (text += s) += ' ';
  return text;
}
}  // namespace

Environment Engine::new_environment(std::initializer_list<std::string_view> import_sets) {
  return Environment(Value::from_word(bridge::make_environment(state_->engine, joined(import_sets)), this));
}
Environment Engine::new_environment(const std::vector<std::string>& import_sets) {
  return Environment(Value::from_word(bridge::make_environment(state_->engine, joined(import_sets)), this));
}

void Engine::set_allowed_libraries(const std::optional<std::vector<std::string>>& names) {
  state_->options.allowed_libraries = names;
  bridge::set_allowed_libraries(state_->engine, names ? &*names : nullptr);
}

Engine& Environment::engine() const { return engine_of(env_, "environment"); }

detail::Target Environment::definition_target() const { return {&engine(), env_, nullptr}; }

Value Environment::eval(std::string_view code, std::string_view source_name) {
  Engine& e = engine();
  return Value::from_word(bridge::eval_in(bridge_of(&e), env_.word(), code, source_name), &e);
}

Value Environment::load(const std::string& path) {
  Engine& e = engine();
  return Value::from_word(bridge::load_in(bridge_of(&e), env_.word(), path), &e);
}

Value Environment::get(std::string_view name) {
  Engine& e = engine();
  Word w;
  if (!bridge::lookup_in(bridge_of(&e), env_.word(), name, &w))
    throw Error("unbound variable: " + std::string(name), "unbound");
  return Value::from_word(w, &e);
}

bool Environment::contains(std::string_view name) {
  Word w;
  return bridge::lookup_in(bridge_of(&engine()), env_.word(), name, &w);
}

std::vector<std::string> Environment::globals(std::string_view prefix) {
  return bridge::names_in(bridge_of(&engine()), env_.word(), prefix);
}

void Engine::name_type(const void* key, std::string_view name) {
  bridge::name_foreign_type(state_->engine, key, name);
  TypeNames& t = type_names();
  std::lock_guard<std::mutex> lock(t.mu);
  t.names[key] = std::string(name);
}

void Engine::set_step_limit(uint64_t steps) {
  state_->options.step_limit = steps;
  bridge::EngineConfig c = config_of(state_->options);
  bridge::set_limits(state_->engine, c.step_limit, c.time_limit_ns, c.alloc_limit);
}
void Engine::set_time_limit(std::chrono::milliseconds limit) {
  state_->options.time_limit = limit;
  set_step_limit(state_->options.step_limit);
}
void Engine::set_memory_limit(size_t bytes) {
  state_->options.memory_limit = bytes;
  set_step_limit(state_->options.step_limit);
}
const Engine::Options& Engine::options() const { return state_->options; }

void Engine::interrupt() { bridge::interrupt(state_->engine); }
void Engine::collect_garbage() { bridge::collect_garbage(); }
bool Engine::input_incomplete(std::string_view code) const { return bridge::input_incomplete(code); }
void Engine::set_command_line(const std::vector<std::string>& args) {
  bridge::set_command_line(state_->engine, args);
}
std::string Engine::dump_ir(std::string_view code, std::string_view pass) const {
  return bridge::dump_ir(state_->engine, code, pass);
}

std::vector<OptimizerPass> optimizer_passes() {
  std::vector<OptimizerPass> out;
  for (const bridge::PassDescription& p : bridge::list_passes()) out.push_back({p.name, p.level, p.description});
  return out;
}

}  // namespace api
}  // namespace quasi
