// value.hpp — quasi::Value, the handle on a Scheme value, and the raw-word operations the
// conversion templates work through (implemented in lib/engine/api.cpp).
// A part of quasi.hpp: include <quasi/quasi.hpp>, never this file alone.
//
// Invariant: a Value that names a heap object owns a root slot (a word the collector scans and
// the engine link of the value); everything else is an immediate word and needs no slot.
#pragma once

#ifndef QUASI_PUBLIC_HEADER
#error "include <quasi/quasi.hpp>"
#endif

namespace quasi {

// Everything public lives in the inline namespace quasi::api, so quasi::Value here (the handle)
// and the engine's internal quasi::Value (the raw word) are different names to the linker: the
// template instances both sides make (std::vector<Value>, ...) cannot collide. Spell it quasi::.
inline namespace api {

class Engine;
class Value;
template <class T>
class TypeBuilder;

// The bases of a type given to Engine::define_type, as pybind11's py::bases: an object of the
// derived type is accepted wherever a base (pointer, reference, copy, shared_ptr) is expected, so
// the base's procedures apply to it, and (base? x) is true for it.
template <class... B>
struct bases {};

// The trailing parameter of a variadic registered function: the remaining arguments.
struct Rest {
  std::vector<Value> values;
};

// Customization point: specialize to convert a type of yours to and from Scheme values.
//   template <> struct quasi::Convert<Color> {
//     static quasi::Value to(const Color& c) { return quasi::Value::symbol(c.name()); }
//     static Color from(const quasi::Value& v) { return Color::parse(v.as<std::string>()); }
//     static bool fits(const quasi::Value& v) { return v.is_symbol(); }  // optional
//   };
// `fits` is used to choose between overloads and std::variant alternatives; without it `from`
// is tried and a quasi::Error it throws means "does not fit".
template <class T>
struct Convert;

namespace detail {

// A raw Scheme word. It names a heap object only while something keeps that object alive (a
// Value, or the C++ stack of the running thread): never store one in heap memory.
using Word = uint64_t;

// What a word is (a copy of the engine's classification, for the templates).
enum class Kind : int {
  Unspecified, Boolean, Null, Pair, Integer, Rational, Real, Complex, String, Symbol, Char, Vector,
  Bytevector, Procedure, Error, Foreign, Eof, Values, HashTable, Other
};

// Raw-word operations, implemented in api.cpp. They let the templates convert without exposing
// the engine's types.
Word make_int(int64_t n);
Word make_uint(uint64_t n);
Word make_double(double d);
Word make_bool(bool b);
Word make_char(char32_t c);
Word make_string(std::string_view utf8);
Word make_symbol(std::string_view utf8);
Word make_bytevector(const void* bytes, size_t n);
Word make_vector(size_t n);  // filled with #f
// A new mutable hash table with equal? keys, seeded by e's engine (a process-wide seed when e is
// null); hash_table_set adds to one; hash_table_each walks any hash table (in its own order).
Word make_hash_table(Engine* e, size_t capacity);
void hash_table_set(Word table, Word key, Word value);
void hash_table_each(Word table, void (*fn)(void* ctx, Word key, Word value), void* ctx);
void vector_set(Word v, size_t i, Word x);
Word vector_ref(Word v, size_t i);  // in range
Word nil();
Word unspecified();
Word cons(Word a, Word d);
Kind kind(Word w);
int64_t list_length(Word w);     // proper list; -1 otherwise (also for cycles)
int64_t sequence_length(Word w);  // proper list or vector; -1 otherwise
Word car(Word w);                // w must be a pair
Word cdr(Word w);
bool fits_int(Word w, int64_t min, int64_t max);
bool fits_uint(Word w, uint64_t max);
int64_t to_int(Word w, int64_t min, int64_t max);  // throws Error on mismatch
uint64_t to_uint(Word w, uint64_t max);
double to_double(Word w);
bool to_bool(Word w);
char32_t to_char(Word w);
std::string to_string(Word w);
// A bytevector's bytes (valid while the bytevector is reachable); throws Error for anything else.
std::pair<uint8_t*, size_t> bytevector_bytes(Word w);
// Calls fn(ctx, element) for each element of a list or vector; throws Error otherwise.
void for_each_element(Word seq, void (*fn)(void* ctx, Word element), void* ctx);
[[noreturn]] void type_mismatch(Word got, const char* expected);
[[noreturn]] void length_mismatch(Word got, size_t expected);

// Concatenation and joining, out of line (std::string's operator+ inlined into every includer
// costs compile time and draws GCC 12's -Wrestrict false positives).
std::string cat(std::initializer_list<std::string_view> parts);
std::string join(std::initializer_list<std::string> parts, std::string_view separator);

// The name of a C++ type for messages: `pretty` is __PRETTY_FUNCTION__ of type_name<T>() below.
std::string type_name_from_signature(const char* pretty);

// Foreign objects: `key` is an address unique to the C++ type.
template <class T>
struct TypeKey {
  static constexpr char id = 0;
};
template <class T>
const void* type_key() {
  return &TypeKey<std::remove_cv_t<T>>::id;
}
// `holder` is a heap-allocated std::shared_ptr<void> owning the object, or null when the host
// keeps ownership. A type that was not given to e's define_type is a type error naming the C++
// type (cpp_name()), not an opaque object: there is nothing Scheme could do with it.
Word make_foreign(Engine* e, const void* key, void* object, std::shared_ptr<void>* holder, std::string (*cpp_name)());
// The C++ object as a pointer to the type of `key` (the object's own registered type or one of
// its bases), or throws a type error naming `key`'s type. *holder (when asked) is the owner or null.
void* foreign_object(Word w, const void* key, std::shared_ptr<void>** holder = nullptr);
// The key of the define_type type whose typeid is `type`, or null (for polymorphic objects).
const void* registered_dynamic_type(const std::type_info& type);
void register_dynamic_type(const std::type_info& type, const void* key);
// 2: an object of exactly `key`'s type; 1: of a type derived from it; 0: neither.
int foreign_match(Word w, const void* key);

// A C++ callable registered as a Scheme procedure.
struct HostFunction {
  virtual ~HostFunction() = default;
  virtual Word invoke(int argc, const Word* argv) = 0;
  // For overload resolution: whether the arguments fit the parameters (exactly, or with the
  // conversions invoke would make).
  virtual bool accepts(int argc, const Word* argv, bool exact) const = 0;
  // "(name type ...)" for messages listing candidates.
  virtual std::string signature(std::string_view name) const = 0;
  Engine* engine = nullptr;
  int min_args = 0;
  int max_args = 0;  // -1: any number
};

template <class T>
constexpr bool is_unique_ptr_v = false;
template <class T, class D>
constexpr bool is_unique_ptr_v<std::unique_ptr<T, D>> = true;

// v.as<T>(), with a mismatch naming the variable `name` (convert.hpp).
template <class T>
T converted(const Value& v, std::string_view name);

// The engine a value came out of (internal; see Value::engine()).
struct EngineLink;

// Conversions of one decayed C++ type (convert.hpp). to(): C++ -> word. from(): word -> C++.
// fits(): whether from() would succeed; `exact` asks for no conversion (an exact integer for an
// integer type, a flonum for a floating type, a string (not a symbol) for a string...).
template <class T>
struct Codec;

// Types a Value can be made from without an engine.
template <class T>
concept EngineFree = requires { Codec<T>::engine_free; } && Codec<T>::engine_free;

// Types converted as C++ objects owned or borrowed by Scheme (Engine::define_type).
template <class T>
concept Foreign = requires { Codec<T>::foreign; } && Codec<T>::foreign;

}  // namespace detail

// ---- Value ---------------------------------------------------------------------------------------

class Value {
 public:
  Value() noexcept = default;  // the unspecified value
  ~Value() { release(); }
  Value(const Value& other);
  Value(Value&& other) noexcept : word_(other.word_), root_(other.root_) {
    other.word_ = 0;
    other.root_ = nullptr;
  }
  Value& operator=(const Value& other);
  Value& operator=(Value&& other) noexcept {
    if (this != &other) {
      release();
      word_ = other.word_;
      root_ = other.root_;
      other.word_ = 0;
      other.root_ = nullptr;
    }
    return *this;
  }

  // From C++ values that need no engine: numbers, booleans, characters, strings, bytes, the
  // standard containers of those, and types with a quasi::Convert specialization. Foreign
  // objects and functions need an engine: Engine::make.
  template <class T>
    requires(!std::is_same_v<std::remove_cvref_t<T>, Value> && detail::EngineFree<std::remove_cvref_t<T>>)
  Value(T&& x) : Value(from_word(detail::Codec<std::remove_cvref_t<T>>::to(nullptr, x))) {}

  static Value symbol(std::string_view name);
  static Value character(char32_t c);
  static Value list(std::initializer_list<Value> items);
  static Value list(const std::vector<Value>& items);
  static Value vector(const std::vector<Value>& items);
  static Value cons(const Value& car, const Value& cdr);
  static Value empty_list();

  // Predicates.
  bool is_unspecified() const;  // also true for zero values
  bool is_boolean() const;
  bool is_true() const;         // everything but #f
  bool is_false() const;        // #f
  bool is_number() const;
  bool is_integer() const;      // an exact integer
  bool is_real() const;         // any real number (exact or inexact)
  bool is_string() const;
  bool is_symbol() const;
  bool is_char() const;
  bool is_null() const;         // the empty list
  bool is_pair() const;
  bool is_list() const;         // a proper list (also the empty list)
  bool is_vector() const;
  bool is_bytevector() const;
  bool is_procedure() const;
  bool is_error() const;        // an error object
  bool is_eof() const;
  bool is_foreign() const;      // a C++ object (Engine::define_type)
  bool is_hash_table() const;   // a hash table (SRFI 69/125)
  // True when as<T>() would succeed.
  template <class T>
  bool is() const;

  // Conversions (see the table in quasi.hpp). Throws quasi::Error (kind "type" or "range").
  // as<T&>() and as<T*>() reach a C++ object of a define_type type (or a type derived from it)
  // in place.
  template <class T>
  T as() const;
  int64_t as_int() const;
  double as_double() const;
  std::string as_string() const;

  // Lists, vectors and strings.
  size_t size() const;               // length of a list, vector or string
  Value operator[](size_t i) const;  // element of a list or vector (walks a list each time)
  Value car() const;
  Value cdr() const;

  // Range-for over the elements of a proper list or a vector (anything else throws
  // quasi::Error when the loop starts). The iterator keeps the rest of the list alive; a list
  // cut short by Scheme code during the loop ends the loop there.
  class iterator;
  iterator begin() const;
  iterator end() const;

  // `write` form. Multiple values (from `values`) print one per line; nothing for none.
  std::string to_string() const;
  // `display` form.
  std::string to_display_string() const;
  // What the value is, for messages: "integer", "string", "list", "procedure", "point", ...
  std::string type_name() const;

  bool eqv(const Value& other) const;   // eqv?
  bool equal(const Value& other) const;  // equal?
  friend bool operator==(const Value& a, const Value& b) { return a.equal(b); }

  // The engine this value came out of (by eval, call, get, an argument of a registered
  // function, or an element of such a value), while that engine exists; null for values made
  // without one (Value(42), Value::list(...)) and once the engine has been destroyed.
  Engine* engine() const;

  // Internal: the raw word, and a handle on a reachable word (of engine `e`, or of the engine
  // `origin` came from).
  detail::Word word() const;
  static Value from_word(detail::Word w);
  static Value from_word(detail::Word w, Engine* e);
  static Value from_word(detail::Word w, const Value& origin);

 private:
  void release() noexcept;
  detail::Word word_ = 0;         // 0: the unspecified value
  detail::Word* root_ = nullptr;  // root slot (api.cpp), for words that name heap objects
};

class Value::iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Value;
  using reference = Value;
  using pointer = void;
  using difference_type = std::ptrdiff_t;
  iterator() = default;
  Value operator*() const;
  iterator& operator++();
  iterator operator++(int) {
    iterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const iterator& other) const;

 private:
  friend class Value;
  bool at_end() const;
  Value seq_;          // the current pair of a list, or the vector
  size_t index_ = 0;   // vectors: the position
  bool vector_ = false;
};

inline Value::iterator Value::end() const { return iterator(); }

std::ostream& operator<<(std::ostream& out, const Value& v);

// The object a quasi::Error raised in Scheme (an error object, or whatever was given to
// `raise`); the unspecified value for an error made in C++.
Value error_object(const Error& e);

}  // namespace api
}  // namespace quasi
