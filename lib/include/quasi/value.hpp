// value.hpp — quasi::Value, the handle on a Scheme value, and the raw-word operations the templates convert through.
// A part of quasi.hpp: include <quasi/quasi.hpp>, never this file alone.
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

// The trailing parameter of a variadic registered function: the remaining arguments.
struct Rest {
  std::vector<Value> values;
};

// Customization point: specialize to convert a type of yours to and from Scheme values.
//   template <> struct quasi::Convert<Color> {
//     static quasi::Value to(const Color& c) { return quasi::Value::symbol(c.name()); }
//     static Color from(const quasi::Value& v) { return Color::parse(v.as<std::string>()); }
//   };
template <class T>
struct Convert;

namespace detail {

// A raw Scheme word. It names a heap object only while something keeps that object alive (a
// Value, or the C++ stack of the running thread): never store one in heap memory.
using Word = uint64_t;

// Raw-word operations, implemented in api.cpp. They let the templates below convert without
// exposing the engine's types.
Word make_int(int64_t n);
Word make_uint(uint64_t n);
Word make_double(double d);
Word make_bool(bool b);
Word make_char(char32_t c);
Word make_string(std::string_view utf8);
Word make_symbol(std::string_view utf8);
Word nil();
Word unspecified();
Word cons(Word a, Word d);
int64_t to_int(Word w, int64_t min, int64_t max);  // throws Error on mismatch
uint64_t to_uint(Word w, uint64_t max);
double to_double(Word w);
bool to_bool(Word w);
char32_t to_char(Word w);
std::string to_string(Word w);
// Calls fn(ctx, element) for each element of a list or vector; throws Error otherwise.
void for_each_element(Word seq, void (*fn)(void* ctx, Word element), void* ctx);
[[noreturn]] void type_mismatch(Word got, const char* expected);

// Foreign objects: `key` is an address unique to the C++ type.
template <class T>
struct TypeKey {
  static constexpr char id = 0;
};
template <class T>
const void* type_key() {
  return &TypeKey<std::remove_cv_t<T>>::id;
}
Word make_foreign(Engine* e, const void* key, void* object, void* holder, void (*release)(void*));
// The C++ object, or throws a type error naming `key`'s type; holder may be null.
void* foreign_object(Engine* e, Word w, const void* key, void** holder);
bool is_foreign_of(Word w, const void* key);

// A C++ callable registered as a Scheme procedure.
struct HostFunction {
  virtual ~HostFunction() = default;
  virtual Word invoke(int argc, const Word* argv) = 0;
  Engine* engine = nullptr;
};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class T, class A>
struct IsVector<std::vector<T, A>> : std::true_type {};
template <class T>
struct IsFunction : std::false_type {};
template <class R, class... A>
struct IsFunction<std::function<R(A...)>> : std::true_type {};
template <class T>
struct IsShared : std::false_type {};
template <class T>
struct IsShared<std::shared_ptr<T>> : std::true_type {};

template <class T>
concept UserConvertible = requires(const T& x, const Value& v) {
  { Convert<T>::to(x) };
  { Convert<T>::from(v) };
};

template <class T>
constexpr bool is_char_v = std::is_same_v<T, char> || std::is_same_v<T, char32_t>;
template <class T>
constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool> && !is_char_v<T>;
template <class T>
constexpr bool is_string_v = std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view>;

// A class type that is none of the above: a foreign (C++) object.
template <class T>
constexpr bool is_foreign_v = std::is_class_v<T> && !std::is_same_v<T, Value> && !std::is_same_v<T, Rest> &&
                              !is_string_v<T> && !IsVector<T>::value && !IsOptional<T>::value &&
                              !IsFunction<T>::value && !IsShared<T>::value && !UserConvertible<T>;

// Conversions of one decayed C++ type. to(): C++ -> word. from(): word -> C++.
template <class T>
struct Codec;

// Types a Value can be made from without an engine.
template <class T>
concept EngineFree = requires { Codec<T>::engine_free; } && Codec<T>::engine_free;

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

  // From C++ values that need no engine: numbers, booleans, characters, strings, vectors and
  // optionals of those, and types with a quasi::Convert specialization. Foreign objects and
  // functions need an engine: Engine::make.
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
  // True when as<T>() would succeed.
  template <class T>
  bool is() const {
    using D = std::remove_cvref_t<std::remove_pointer_t<T>>;
    if constexpr (detail::is_foreign_v<D>) {
      return detail::is_foreign_of(word(), detail::type_key<D>());
    } else {
      try {
        (void)as<T>();
        return true;
      } catch (const Error&) {
        return false;
      }
    }
  }

  // Conversions (see the table at the top). Throws quasi::Error (kind "type" or "range").
  template <class T>
  T as() const {
    using D = std::remove_cvref_t<T>;
    if constexpr (std::is_reference_v<T>) {
      static_assert(detail::is_foreign_v<D>, "as<T&>() is for foreign object types");
      return *static_cast<D*>(detail::foreign_object(nullptr, word(), detail::type_key<D>(), nullptr));
    } else if constexpr (std::is_pointer_v<T> && detail::is_foreign_v<std::remove_cv_t<std::remove_pointer_t<T>>>) {
      using P = std::remove_cv_t<std::remove_pointer_t<T>>;
      return static_cast<P*>(detail::foreign_object(nullptr, word(), detail::type_key<P>(), nullptr));
    } else {
      static_assert(!std::is_same_v<D, std::string_view>, "as<std::string_view>(): use as<std::string>()");
      return detail::Codec<D>::from(nullptr, word());
    }
  }
  int64_t as_int() const;
  double as_double() const;
  std::string as_string() const;

  // Lists, vectors and strings.
  size_t size() const;               // length of a list, vector or string
  Value operator[](size_t i) const;  // element of a list or vector
  Value car() const;
  Value cdr() const;

  // `write` form. Multiple values (from `values`) print one per line; nothing for none.
  std::string to_string() const;
  // `display` form.
  std::string to_display_string() const;
  // What the value is, for messages: "integer", "string", "list", "procedure", "point", ...
  std::string type_name() const;

  bool eqv(const Value& other) const;   // eqv?
  bool equal(const Value& other) const;  // equal?
  friend bool operator==(const Value& a, const Value& b) { return a.equal(b); }

  // Internal: the raw word, and a handle on a reachable word.
  detail::Word word() const;
  static Value from_word(detail::Word w);

 private:
  void release() noexcept;
  detail::Word word_ = 0;        // 0: the unspecified value
  detail::Word* root_ = nullptr;  // GC root slot, for words that name heap objects
};

std::ostream& operator<<(std::ostream& out, const Value& v);

// The object a quasi::Error raised in Scheme (an error object, or whatever was given to
// `raise`); the unspecified value for an error made in C++.
Value error_object(const Error& e);


}  // namespace api
}  // namespace quasi
