// api.cpp — the public classes of quasi.hpp, implemented through engine_bridge.hpp.
#include <deque>
#include <mutex>
#include <ostream>
#include <unordered_map>

#include "engine/engine_bridge.hpp"
#include "quasi/quasi.hpp"

namespace quasi {

// ---- Error ---------------------------------------------------------------------------------------

Error::Error(const std::string& message, std::string kind)
    : std::runtime_error(message), kind_(std::move(kind)), message_(message) {}

Error::Error(const std::string& what, std::string kind, std::string message, std::vector<std::string> irritants,
             std::string location, std::vector<std::string> backtrace, std::shared_ptr<void> payload)
    : std::runtime_error(what),
      kind_(std::move(kind)),
      message_(std::move(message)),
      location_(std::move(location)),
      irritants_(std::move(irritants)),
      backtrace_(std::move(backtrace)),
      payload_(std::move(payload)) {}

// The public classes live in the inline namespace quasi::api (see quasi.hpp).
inline namespace api {

using detail::Word;

struct Engine::State {
  bridge::Engine* engine = nullptr;
  Options options;
  std::vector<std::unique_ptr<detail::HostFunction>> functions;  // alive as long as the engine
  std::deque<std::string> names;                                 // their names (stable storage)
};

namespace {

// Words that name heap objects (value.hpp: 8-byte aligned pointers, low bits 000) need a root.
bool names_heap_object(Word w) { return w != 0 && (w & 7) == 0; }

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

Word invoke_host(void* ctx, int argc, const Word* argv) {
  return static_cast<detail::HostFunction*>(ctx)->invoke(argc, argv);
}

}  // namespace

const char* version() { return "0.1.0"; }

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
Word nil() { return bridge::nil(); }
Word unspecified() { return bridge::unspecified(); }
Word cons(Word a, Word d) { return bridge::cons(a, d); }

void type_mismatch(Word got, const char* expected) {
  throw Error(std::string("expected ") + expected + ", got " + bridge::describe(got), "type");
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
  if (!bridge::to_double(w, &d)) type_mismatch(w, "a real number");
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

Word make_foreign(Engine* e, const void* key, void* object, void* holder, void (*release)(void*)) {
  bridge::Engine* be = e ? e->internal_state().engine : nullptr;
  return bridge::make_foreign(be, key, object, holder, release);
}

void* foreign_object(Engine*, Word w, const void* key, void** holder) {
  const void* k = nullptr;
  void* object = nullptr;
  if (!bridge::foreign_parts(w, &k, &object, holder) || k != key)
    type_mismatch(w, with_article(type_name_of(key)).c_str());
  return object;
}

bool is_foreign_of(Word w, const void* key) {
  const void* k = nullptr;
  void* object = nullptr;
  return bridge::foreign_parts(w, &k, &object, nullptr) && k == key;
}

}  // namespace detail

// ---- Value ---------------------------------------------------------------------------------------

Value::Value(const Value& other) : word_(other.word_), root_(names_heap_object(other.word_) ? bridge::new_root(other.word_) : nullptr) {}

Value& Value::operator=(const Value& other) {
  if (this == &other) return *this;
  if (names_heap_object(other.word_)) {
    if (root_) *root_ = other.word_;
    else root_ = bridge::new_root(other.word_);
  } else if (root_) {
    bridge::free_root(root_);
    root_ = nullptr;
  }
  word_ = other.word_;
  return *this;
}

void Value::release() noexcept {
  if (root_) bridge::free_root(root_);
  root_ = nullptr;
}

Word Value::word() const { return word_ ? word_ : bridge::unspecified(); }

Value Value::from_word(Word w) {
  Value v;
  v.word_ = w;
  if (names_heap_object(w)) v.root_ = bridge::new_root(w);
  return v;
}

Value Value::symbol(std::string_view name) { return from_word(bridge::make_symbol(name)); }
Value Value::character(char32_t c) { return from_word(bridge::make_char(c)); }
Value Value::empty_list() { return from_word(bridge::nil()); }
Value Value::cons(const Value& car, const Value& cdr) { return from_word(bridge::cons(car.word(), cdr.word())); }

Value Value::list(const std::vector<Value>& items) {
  Word l = bridge::nil();  // on the stack: scanned; the items are rooted by their handles
  for (auto it = items.rbegin(); it != items.rend(); ++it) l = bridge::cons(it->word(), l);
  return from_word(l);
}
Value Value::list(std::initializer_list<Value> items) { return list(std::vector<Value>(items)); }

Value Value::vector(const std::vector<Value>& items) {
  Value v = from_word(bridge::make_vector(int64_t(items.size())));
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

size_t Value::size() const {
  int64_t n = bridge::length(word());
  if (n < 0) detail::type_mismatch(word(), "a list, vector or string");
  return size_t(n);
}

Value Value::operator[](size_t i) const {
  Word w = word();
  if (is_vector()) {
    if (i >= size()) throw Error("index " + std::to_string(i) + " out of range for " + bridge::describe(w), "range");
    return from_word(bridge::vector_ref(w, int64_t(i)));
  }
  if (!is_list()) detail::type_mismatch(w, "a list or vector");
  for (size_t k = 0; k < i && bridge::kind(w) == bridge::Kind::Pair; k++) w = bridge::cdr(w);
  if (bridge::kind(w) != bridge::Kind::Pair)
    throw Error("index " + std::to_string(i) + " out of range for " + bridge::describe(word()), "range");
  return from_word(bridge::car(w));
}

Value Value::car() const {
  if (!is_pair()) detail::type_mismatch(word(), "a pair");
  return from_word(bridge::car(word()));
}
Value Value::cdr() const {
  if (!is_pair()) detail::type_mismatch(word(), "a pair");
  return from_word(bridge::cdr(word()));
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
  c.library_path = o.library_path;
  c.library_path_after = o.library_path_after;
  return c;
}
}  // namespace

Engine::Engine() : Engine(Options{}) {}

Engine::Engine(const Options& options) : state_(std::make_unique<State>()) {
  state_->options = options;
  state_->engine = bridge::create_engine(config_of(options));
}

Engine::~Engine() {
  bridge::destroy_engine(state_->engine);
  // Host functions go last: nothing can call them once the engine is gone.
}

Value Engine::eval(std::string_view code, std::string_view source_name) {
  return Value::from_word(bridge::eval(state_->engine, code, source_name));
}

Value Engine::eval(std::string_view code, std::string_view source_name,
                   const std::function<void(const Value&)>& on_value) {
  auto sink = [](void* ctx, Word w) {
    (*static_cast<const std::function<void(const Value&)>*>(ctx))(Value::from_word(w));
  };
  return Value::from_word(
      bridge::eval_each(state_->engine, code, source_name, sink, const_cast<void*>(static_cast<const void*>(&on_value))));
}

Value Engine::load(const std::string& path) { return Value::from_word(bridge::load(state_->engine, path)); }

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
  return Value::from_word(bridge::apply(state_->engine, procedure.word(), int(words.size()), words.data()));
}

Value Engine::get(std::string_view name) {
  Word w;
  if (!bridge::lookup_global(state_->engine, name, &w))
    throw Error("unbound variable: " + std::string(name), "unbound");
  return Value::from_word(w);
}

bool Engine::contains(std::string_view name) {
  Word w;
  return bridge::lookup_global(state_->engine, name, &w);
}

std::vector<std::string> Engine::globals(std::string_view prefix) {
  return bridge::global_names(state_->engine, prefix);
}

void Engine::set_value(std::string_view name, const Value& v) { bridge::define_global(state_->engine, name, v.word()); }

Value Engine::register_function(std::string_view name, std::unique_ptr<detail::HostFunction> fn, int min_args,
                                int max_args) {
  state_->names.emplace_back(name.empty() ? std::string("host-function") : std::string(name));
  detail::HostFunction* ctx = fn.get();
  state_->functions.push_back(std::move(fn));
  return Value::from_word(bridge::make_host_procedure(state_->engine, state_->names.back().c_str(), min_args,
                                                      max_args, invoke_host, ctx));
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
