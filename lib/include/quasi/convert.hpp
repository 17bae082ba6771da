// convert.hpp — the conversions between C++ types and Scheme values: one detail::Codec per kind
// of C++ type, and Value::as / Value::is on top of them.
// A part of quasi.hpp: include <quasi/quasi.hpp>, never this file alone.
//
// Every Codec<T> (T decayed) has
//   static Word to(Engine* e, const T& x);      C++ -> Scheme (e may be null if engine_free)
//   static T from(Engine* e, Word w);           Scheme -> C++, throws quasi::Error on mismatch
//   static bool fits(Word w, bool exact);       whether from() succeeds; exact: without conversion
//   static std::string name();                  the C++ type, for messages
//   static constexpr bool engine_free;          to() needs no engine
// The categories are disjoint: a type matches one partial specialization or, for other class
// types, the primary template (a C++ object of a define_type type).
#pragma once

#ifndef QUASI_PUBLIC_HEADER
#error "include <quasi/quasi.hpp>"
#endif

namespace quasi {
inline namespace api {
namespace detail {

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <class T>
concept UserConvertible = requires(const T& x, const Value& v) {
  { Convert<T>::to(x) };
  { Convert<T>::from(v) };
};

template <class T>
constexpr bool is_char_v = std::is_same_v<T, char> || std::is_same_v<T, char32_t>;
template <class T>
constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool> && !is_char_v<T>;

// The C++ name of T ("Point", "ns::Shape"), from the compiler's function signature.
template <class T>
std::string type_name() {
  return type_name_from_signature(__PRETTY_FUNCTION__);
}

// Calls f(element) for each element of a proper list or vector `w` until f returns false;
// returns false when `w` is neither or f stopped.
template <class F>
bool each_element(Word w, F f) {
  Kind k = kind(w);
  if (k == Kind::Vector) {
    int64_t n = sequence_length(w);
    for (int64_t i = 0; i < n; i++)
      if (!f(vector_ref(w, size_t(i)))) return false;
    return true;
  }
  if (list_length(w) < 0) return false;
  for (Word l = w; kind(l) == Kind::Pair; l = cdr(l))
    if (!f(car(l))) return false;
  return true;
}

// Builds a list front to back (for containers that cannot be walked backwards): the head is
// rooted, the tail reachable from it.
class ListBuilder {
 public:
  void push(Word item);
  Word list() const { return head_.is_pair() ? head_.word() : nil(); }

 private:
  Value head_;
  Word tail_ = 0;
};

// Converts the elements of a container to a list, keeping the words reachable while building.
template <class C, class F>
Word to_list(const C& xs, F convert) {
  if constexpr (requires { xs.rbegin(); }) {
    Word list = nil();  // on the C++ stack, which the collector scans
    for (auto it = xs.rbegin(); it != xs.rend(); ++it) {
      Word item = convert(*it);
      list = cons(item, list);
    }
    return list;
  } else {
    ListBuilder b;
    for (const auto& x : xs) b.push(convert(x));
    return b.list();
  }
}

// ---- numbers, booleans, characters ----

template <class T>
  requires is_int_v<T>
struct Codec<T> {
  static constexpr bool engine_free = true;
  static std::string name() {
    constexpr const char* names[] = {"int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t"};
    constexpr int size = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3;
    return names[size + (std::is_signed_v<T> ? 0 : 4)];
  }
  static Word to(Engine*, T x) {
    if constexpr (std::is_signed_v<T>) return make_int(int64_t(x));
    else return make_uint(uint64_t(x));
  }
  static T from(Engine*, Word w) {
    if constexpr (std::is_signed_v<T>)
      return T(to_int(w, int64_t(std::numeric_limits<T>::min()), int64_t(std::numeric_limits<T>::max())));
    else return T(to_uint(w, uint64_t(std::numeric_limits<T>::max())));
  }
  static bool fits(Word w, bool) {
    if constexpr (std::is_signed_v<T>)
      return fits_int(w, int64_t(std::numeric_limits<T>::min()), int64_t(std::numeric_limits<T>::max()));
    else return fits_uint(w, uint64_t(std::numeric_limits<T>::max()));
  }
};

template <class T>
  requires std::is_floating_point_v<T>
struct Codec<T> {
  static constexpr bool engine_free = true;
  static std::string name() { return sizeof(T) == sizeof(float) ? "float" : "double"; }
  static Word to(Engine*, T x) { return make_double(double(x)); }
  static T from(Engine*, Word w) { return T(to_double(w)); }
  static bool fits(Word w, bool exact) {
    Kind k = kind(w);
    return k == Kind::Real || (!exact && (k == Kind::Integer || k == Kind::Rational));
  }
};

template <>
struct Codec<bool> {
  static constexpr bool engine_free = true;
  static std::string name() { return "bool"; }
  static Word to(Engine*, bool b) { return make_bool(b); }
  static bool from(Engine*, Word w) { return to_bool(w); }  // anything but #f is true
  static bool fits(Word w, bool exact) { return !exact || kind(w) == Kind::Boolean; }
};

template <class T>
  requires is_char_v<T>
struct Codec<T> {
  static constexpr bool engine_free = true;
  static std::string name() { return std::is_same_v<T, char> ? "char" : "char32_t"; }
  static Word to(Engine*, T c) { return make_char(char32_t(static_cast<std::make_unsigned_t<T>>(c))); }
  static T from(Engine*, Word w) { return T(to_char(w)); }
  static bool fits(Word w, bool) { return kind(w) == Kind::Char; }
};

template <>
struct Codec<std::byte> {  // an integer 0..255
  static constexpr bool engine_free = true;
  static std::string name() { return "std::byte"; }
  static Word to(Engine*, std::byte b) { return make_uint(uint64_t(b)); }
  static std::byte from(Engine*, Word w) { return std::byte(to_uint(w, 255)); }
  static bool fits(Word w, bool) { return fits_uint(w, 255); }
};

// ---- strings ----

struct StringCodec {
  static constexpr bool engine_free = true;
  static std::string from(Engine*, Word w) { return to_string(w); }
  static bool fits(Word w, bool exact) {
    Kind k = kind(w);
    return k == Kind::String || (!exact && k == Kind::Symbol);
  }
};
template <>
struct Codec<std::string> : StringCodec {
  static std::string name() { return "std::string"; }
  static Word to(Engine*, const std::string& s) { return make_string(s); }
};
// As a parameter: a view of a copy that lives for the call (Value::as refuses it).
template <>
struct Codec<std::string_view> : StringCodec {
  static std::string name() { return "std::string_view"; }
  static Word to(Engine*, std::string_view s) { return make_string(s); }
};
template <>
struct Codec<const char*> {
  static constexpr bool engine_free = true;
  static std::string name() { return "const char*"; }
  static Word to(Engine*, const char* s) { return make_string(s ? std::string_view(s) : std::string_view()); }
};
template <>
struct Codec<char*> : Codec<const char*> {};
template <std::size_t N>
struct Codec<char[N]> : Codec<const char*> {};

template <>
struct Codec<Value> {
  static constexpr bool engine_free = true;
  static std::string name() { return "quasi::Value"; }
  static Word to(Engine*, const Value& v) { return v.word(); }
  static Value from(Engine* e, Word w) { return Value::from_word(w, e); }
  static bool fits(Word, bool) { return true; }
};

// ---- bytes ----

template <class T>
constexpr bool is_byte_v = std::is_same_v<T, uint8_t> || std::is_same_v<T, std::byte>;

// std::vector<uint8_t> and std::vector<std::byte> <-> bytevector (also from a list or vector of
// integers 0..255).
template <class V>
struct BytesCodec {
  using B = typename V::value_type;
  static constexpr bool engine_free = true;
  static Word to(Engine*, const V& v) { return make_bytevector(v.data(), v.size()); }
  static V from(Engine*, Word w) {
    if (kind(w) != Kind::Bytevector && kind(w) != Kind::Pair && kind(w) != Kind::Vector && kind(w) != Kind::Null)
      type_mismatch(w, "a bytevector");
    if (kind(w) == Kind::Bytevector) {
      auto [p, n] = bytevector_bytes(w);
      return V(reinterpret_cast<const B*>(p), reinterpret_cast<const B*>(p) + n);
    }
    V out;
    for_each_element(w, [](void* ctx, Word x) { static_cast<V*>(ctx)->push_back(B(to_uint(x, 255))); }, &out);
    return out;
  }
  static bool fits(Word w, bool exact) {
    if (kind(w) == Kind::Bytevector) return true;
    return !exact && each_element(w, [](Word x) { return fits_uint(x, 255); });
  }
};

// std::span<const uint8_t> (or std::byte; or non-const to write into it) as a parameter: a view
// of the bytevector's own bytes for the length of the call. As a result: a new bytevector.
template <class T, std::size_t N>
  requires is_byte_v<std::remove_const_t<T>>
struct Codec<std::span<T, N>> {
  static constexpr bool engine_free = true;
  static std::string name() { return std::is_const_v<T> ? "std::span<const uint8_t>" : "std::span<uint8_t>"; }
  static Word to(Engine*, std::span<T, N> s) { return make_bytevector(s.data(), s.size()); }
  static std::span<T, N> from(Engine*, Word w) {
    auto [p, n] = bytevector_bytes(w);
    if constexpr (N != std::dynamic_extent)
      if (n != N) length_mismatch(w, N);
    return std::span<T, N>(reinterpret_cast<T*>(p), n);
  }
  static bool fits(Word w, bool) {
    if (kind(w) != Kind::Bytevector) return false;
    return N == std::dynamic_extent || bytevector_bytes(w).second == N;
  }
};

// ---- sequences ----

// std::vector<T> <-> list (from a list or a vector).
template <class T, class A>
struct Codec<std::vector<T, A>> {
  using V = std::vector<T, A>;
  static constexpr bool engine_free = Codec<T>::engine_free;
  static std::string name() { return cat({"std::vector<", Codec<T>::name(), ">"}); }
  static Word to(Engine* e, const V& xs) {
    if constexpr (is_byte_v<T>) return BytesCodec<V>::to(e, xs);
    else return to_list(xs, [e](const T& x) { return Codec<T>::to(e, x); });
  }
  static V from(Engine* e, Word w) {
    if constexpr (is_byte_v<T>) {
      return BytesCodec<V>::from(e, w);
    } else {
      struct Ctx {
        Engine* e;
        V out;
      } ctx{e, {}};
      for_each_element(w, [](void* c, Word x) {
        auto* cx = static_cast<Ctx*>(c);
        cx->out.push_back(Codec<T>::from(cx->e, x));
      }, &ctx);
      return std::move(ctx.out);
    }
  }
  static bool fits(Word w, bool exact) {
    if constexpr (is_byte_v<T>) return BytesCodec<V>::fits(w, exact);
    else return each_element(w, [exact](Word x) { return Codec<T>::fits(x, exact); });
  }
};

// std::array<T, N> <-> vector (from a list or vector of exactly N elements).
template <class T, std::size_t N>
struct Codec<std::array<T, N>> {
  static constexpr bool engine_free = Codec<T>::engine_free;
  static std::string name() { return cat({"std::array<", Codec<T>::name(), ", ", std::to_string(N), ">"}); }
  static Word to(Engine* e, const std::array<T, N>& xs) {
    Word v = make_vector(N);  // on the C++ stack while the elements are made
    for (std::size_t i = 0; i < N; i++) vector_set(v, i, Codec<T>::to(e, xs[i]));
    return v;
  }
  static std::array<T, N> from(Engine* e, Word w) {
    if (sequence_length(w) < 0) type_mismatch(w, "a list or vector");
    if (sequence_length(w) != int64_t(N)) length_mismatch(w, N);
    std::array<T, N> out{};
    std::size_t i = 0;
    each_element(w, [&](Word x) {
      out[i++] = Codec<T>::from(e, x);
      return true;
    });
    return out;
  }
  static bool fits(Word w, bool exact) {
    return sequence_length(w) == int64_t(N) && each_element(w, [exact](Word x) { return Codec<T>::fits(x, exact); });
  }
};

// std::pair<A, B> <-> a pair (a . b).
template <class A, class B>
struct Codec<std::pair<A, B>> {
  static constexpr bool engine_free = Codec<std::remove_cv_t<A>>::engine_free && Codec<B>::engine_free;
  using CA = Codec<std::remove_cv_t<A>>;  // map elements have a const key
  static std::string name() { return cat({"std::pair<", CA::name(), ", ", Codec<B>::name(), ">"}); }
  static Word to(Engine* e, const std::pair<A, B>& p) {
    Word a = CA::to(e, p.first);
    Word b = Codec<B>::to(e, p.second);
    return cons(a, b);
  }
  static std::pair<A, B> from(Engine* e, Word w) {
    if (kind(w) != Kind::Pair) type_mismatch(w, "a pair");
    return {CA::from(e, car(w)), Codec<B>::from(e, cdr(w))};
  }
  static bool fits(Word w, bool exact) {
    return kind(w) == Kind::Pair && CA::fits(car(w), exact) && Codec<B>::fits(cdr(w), exact);
  }
};

// std::tuple<A...> <-> list (from a list or vector of exactly sizeof...(A) elements).
template <class... A>
struct Codec<std::tuple<A...>> {
  static constexpr bool engine_free = (Codec<A>::engine_free && ... && true);
  static std::string name() { return cat({"std::tuple<", join({Codec<A>::name()...}, ", "), ">"}); }
  static Word to(Engine* e, const std::tuple<A...>& t) {
    return std::apply([e](const A&... xs) {
      Word items[] = {Codec<A>::to(e, xs)..., nil()};  // on the C++ stack
      Word list = nil();
      for (std::size_t i = sizeof...(A); i-- > 0;) list = cons(items[i], list);
      return list;
    }, t);
  }
  // The elements of `w` (a list or vector of sizeof...(A) elements) into items, on the C++ stack.
  static void elements(Word w, Word* items) {
    std::size_t n = 0;
    each_element(w, [&](Word x) {
      items[n++] = x;
      return true;
    });
  }
  static std::tuple<A...> from(Engine* e, Word w) {
    if (sequence_length(w) < 0) type_mismatch(w, "a list or vector");
    if (sequence_length(w) != int64_t(sizeof...(A))) length_mismatch(w, sizeof...(A));
    Word items[sizeof...(A) + 1];
    elements(w, items);
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return std::tuple<A...>{Codec<A>::from(e, items[I])...};
    }(std::index_sequence_for<A...>{});
  }
  static bool fits(Word w, bool exact) {
    if (sequence_length(w) != int64_t(sizeof...(A))) return false;
    Word items[sizeof...(A) + 1];
    elements(w, items);
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return (Codec<A>::fits(items[I], exact) && ... && true);
    }(std::index_sequence_for<A...>{});
  }
};

// Associative containers, recognized by shape (no <map> or <set> needed here).
template <class T>
concept MapLike = requires(T& m, typename T::key_type k, typename T::mapped_type v) {
  m.emplace(std::move(k), std::move(v));
  m.begin();
  m.end();
};
template <class T>
concept SetLike = !MapLike<T> && requires(T& s, typename T::key_type k) {
  requires std::is_same_v<typename T::key_type, typename T::value_type>;
  s.emplace(std::move(k));
  s.begin();
  s.end();
};

// Maps with unique keys (std::map, std::unordered_map) have at(); multimaps do not.
template <class M>
concept UniqueKeys = requires(M& m, const typename M::key_type& k) { m.at(k); };

// std::map, std::unordered_map <-> hash table. To Scheme: a new mutable table with equal? keys
// (as (make-hash-table equal?) makes). From Scheme: a hash table (each entry), or an association
// list ((key . value) ...) where an earlier entry wins over a later one with the same key, as
// with assoc.
// std::multimap, std::unordered_multimap <-> association list, in the container's order (a hash
// table holds one value per key); from Scheme also a hash table.
// (For an association list out of a unique map, return std::vector<std::pair<K, V>>.)
template <class M>
  requires MapLike<M>
struct Codec<M> {
  using K = typename M::key_type;
  using V = typename M::mapped_type;
  static constexpr bool engine_free = Codec<K>::engine_free && Codec<V>::engine_free;
  static std::string name() {
    return cat({UniqueKeys<M> ? "map<" : "multimap<", Codec<K>::name(), ", ", Codec<V>::name(), ">"});
  }
  static Word to(Engine* e, const M& m) {
    if constexpr (UniqueKeys<M>) {
      Word table = make_hash_table(e, m.size());  // on the C++ stack while entries are made
      for (const auto& kv : m) {
        Word k = Codec<K>::to(e, kv.first);
        Word v = Codec<V>::to(e, kv.second);
        hash_table_set(table, k, v);
      }
      return table;
    } else {
      return to_list(m, [e](const auto& kv) {
        Word k = Codec<K>::to(e, kv.first);
        Word v = Codec<V>::to(e, kv.second);
        return cons(k, v);
      });
    }
  }
  static M from(Engine* e, Word w) {
    M out;
    if (kind(w) == Kind::HashTable) {
      struct Ctx {
        Engine* e;
        M* out;
      } ctx{e, &out};
      hash_table_each(w, [](void* c, Word k, Word v) {
        auto* x = static_cast<Ctx*>(c);
        x->out->emplace(Codec<K>::from(x->e, k), Codec<V>::from(x->e, v));
      }, &ctx);
      return out;
    }
    if (list_length(w) < 0) type_mismatch(w, "a hash table or an association list");
    for (Word l = w; kind(l) == Kind::Pair; l = cdr(l)) {
      Word entry = car(l);
      if (kind(entry) != Kind::Pair) type_mismatch(entry, "a (key . value) pair");
      out.emplace(Codec<K>::from(e, car(entry)), Codec<V>::from(e, cdr(entry)));
    }
    return out;
  }
  static bool fits(Word w, bool exact) {
    if (kind(w) == Kind::HashTable) {
      struct Ctx {
        bool exact, ok;
      } ctx{exact, true};
      hash_table_each(w, [](void* c, Word k, Word v) {
        auto* x = static_cast<Ctx*>(c);
        x->ok = x->ok && Codec<K>::fits(k, x->exact) && Codec<V>::fits(v, x->exact);
      }, &ctx);
      return ctx.ok;
    }
    if (list_length(w) < 0) return false;
    for (Word l = w; kind(l) == Kind::Pair; l = cdr(l)) {
      Word entry = car(l);
      if (kind(entry) != Kind::Pair || !Codec<K>::fits(car(entry), exact) || !Codec<V>::fits(cdr(entry), exact))
        return false;
    }
    return true;
  }
};

// std::set, std::unordered_set <-> list (from a list or vector).
template <class S>
  requires SetLike<S>
struct Codec<S> {
  using K = typename S::key_type;
  static constexpr bool engine_free = Codec<K>::engine_free;
  static std::string name() { return cat({"set<", Codec<K>::name(), ">"}); }
  static Word to(Engine* e, const S& s) {
    return to_list(s, [e](const K& k) { return Codec<K>::to(e, k); });
  }
  static S from(Engine* e, Word w) {
    if (sequence_length(w) < 0) type_mismatch(w, "a list or vector");
    S out;
    each_element(w, [&](Word x) {
      out.emplace(Codec<K>::from(e, x));
      return true;
    });
    return out;
  }
  static bool fits(Word w, bool exact) {
    return each_element(w, [exact](Word x) { return Codec<K>::fits(x, exact); });
  }
};

// std::optional<T> <-> T, or #f for nullopt.
template <class T>
struct Codec<std::optional<T>> {
  static constexpr bool engine_free = Codec<T>::engine_free;
  static std::string name() { return cat({"std::optional<", Codec<T>::name(), ">"}); }
  static Word to(Engine* e, const std::optional<T>& x) { return x ? Codec<T>::to(e, *x) : make_bool(false); }
  static std::optional<T> from(Engine* e, Word w) {
    if (w == make_bool(false)) return std::nullopt;
    return Codec<T>::from(e, w);
  }
  static bool fits(Word w, bool exact) { return w == make_bool(false) || Codec<T>::fits(w, exact); }
};

// std::variant<A...>: to Scheme, the alternative it holds; from Scheme, the first alternative
// that fits exactly, else the first that fits with conversions (so variant<int, double> takes 2
// as int and 2.5 as double, and variant<std::string, bool> takes 'sym as a string).
template <class... A>
struct Codec<std::variant<A...>> {
  using Var = std::variant<A...>;
  static constexpr bool engine_free = (Codec<A>::engine_free && ...);
  static std::string name() { return join({Codec<A>::name()...}, " or "); }
  static Word to(Engine* e, const Var& v) {
    return std::visit([e](const auto& x) { return Codec<std::remove_cvref_t<decltype(x)>>::to(e, x); }, v);
  }
  static Var from(Engine* e, Word w) {
    std::optional<Var> out;
    for (bool exact : {true, false}) {
      // The first alternative that fits makes the value; the fold stops there.
      (void)((Codec<A>::fits(w, exact) ? (out.emplace(std::in_place_type<A>, Codec<A>::from(e, w)), true) : false) ||
             ...);
      if (out) return std::move(*out);
    }
    type_mismatch(w, name().c_str());
  }
  static bool fits(Word w, bool exact) { return (Codec<A>::fits(w, exact) || ...); }
};

// ---- types of the host ----

template <class T>
  requires UserConvertible<T>
struct Codec<T> {
  static constexpr bool engine_free = true;
  static std::string name() { return type_name<T>(); }
  static Word to(Engine*, const T& x) {
    Value v = Convert<T>::to(x);
    return v.word();  // stays reachable from the caller's stack once v is gone
  }
  static T from(Engine* e, Word w) { return Convert<T>::from(Value::from_word(w, e)); }
  static bool fits(Word w, bool) {
    if constexpr (requires(const Value& v) { { Convert<T>::fits(v) } -> std::convertible_to<bool>; }) {
      return Convert<T>::fits(Value::from_word(w));
    } else {
      try {
        (void)Convert<T>::from(Value::from_word(w));
        return true;
      } catch (const Error&) {
        return false;
      }
    }
  }
};

// The registered type an object really is: for a polymorphic T whose dynamic type was given
// to define_type, that type's key and the object as a pointer to it; else T's key and p.
template <class T>
const void* dynamic_key(T* p, void*& object) {
  object = const_cast<std::remove_cv_t<T>*>(p);
#if defined(__GXX_RTTI) || defined(__cpp_rtti) || defined(_CPPRTTI)
  if constexpr (std::is_polymorphic_v<T>) {
    if (p && typeid(*p) != typeid(T))
      if (const void* key = registered_dynamic_type(typeid(*p))) {
        object = const_cast<void*>(dynamic_cast<const void*>(p));
        return key;
      }
  }
#endif
  return type_key<T>();
}

// Foreign objects: copies of T owned by Scheme, shared_ptr<T> shared with it, T* not owned.
template <class T>
Word make_shared_foreign(Engine* e, std::shared_ptr<T> p) {
  void* object = nullptr;
  const void* key = dynamic_key(p.get(), object);
  auto* holder = new std::shared_ptr<void>(std::move(p));
  try {
    return make_foreign(e, key, object, holder, &type_name<T>);
  } catch (...) {
    delete holder;
    throw;
  }
}

template <class T>
bool foreign_fits(Word w, bool exact) {
  int m = foreign_match(w, type_key<T>());
  return exact ? m == 2 : m > 0;
}

// Any other class type: a C++ object of a define_type type. A T converts to a copy owned by
// Scheme; from Scheme, an object of type T or of a type derived from it (bases<...>) is copied.
template <class T>
struct ForeignCodec {
  static constexpr bool engine_free = false;
  static constexpr bool foreign = true;
  static std::string name() { return type_name<T>(); }
  static Word to(Engine* e, const T& x) { return make_shared_foreign<T>(e, std::make_shared<T>(x)); }
  static T from(Engine*, Word w) { return *static_cast<T*>(foreign_object(w, type_key<T>())); }
  static bool fits(Word w, bool exact) { return foreign_fits<T>(w, exact); }
};
struct NoCodec {};  // no conversion (a compile error where one is needed; see Convertible)
template <class T>
struct Codec : std::conditional_t<std::is_class_v<T> && !std::is_const_v<T>, ForeignCodec<T>, NoCodec> {};

template <class T>
concept Convertible = requires { Codec<T>::name(); };

// shared_ptr<T> (#f for null): shares ownership with Scheme; one from Scheme keeps the object
// alive (an object the host lent as T* gives a shared_ptr that does not own it).
template <class T>
struct Codec<std::shared_ptr<T>> {
  using U = std::remove_cv_t<T>;
  static constexpr bool engine_free = false;
  static std::string name() { return cat({"std::shared_ptr<", Codec<U>::name(), ">"}); }
  static Word to(Engine* e, const std::shared_ptr<T>& p) {
    if (!p) return make_bool(false);
    return make_shared_foreign<U>(e, std::const_pointer_cast<U>(p));
  }
  static std::shared_ptr<T> from(Engine*, Word w) {
    if (w == make_bool(false)) return nullptr;
    std::shared_ptr<void>* holder = nullptr;
    U* object = static_cast<U*>(foreign_object(w, type_key<U>(), &holder));
    if (holder) return std::shared_ptr<T>(*holder, object);  // aliasing: shares the owner
    return std::shared_ptr<T>(object, [](T*) {});             // lent by the host
  }
  static bool fits(Word w, bool exact) { return w == make_bool(false) || foreign_fits<U>(w, exact); }
};

// unique_ptr<T> results: ownership moves to Scheme.
template <class T, class D>
struct Codec<std::unique_ptr<T, D>> {
  using U = std::remove_cv_t<T>;
  static constexpr bool engine_free = false;
  static std::string name() { return cat({"std::unique_ptr<", Codec<U>::name(), ">"}); }
  static Word to(Engine* e, const std::unique_ptr<T, D>& p) {
    if (!p) return make_bool(false);
    // The result is a temporary the caller no longer uses: take it over.
    auto& owned = const_cast<std::unique_ptr<T, D>&>(p);
    return make_shared_foreign<U>(e, std::shared_ptr<U>(const_cast<U*>(owned.release()), owned.get_deleter()));
  }
};

// T* (#f for null): the host keeps ownership.
template <class T>
  requires Foreign<std::remove_cv_t<T>>
struct Codec<T*> {
  using U = std::remove_cv_t<T>;
  static constexpr bool engine_free = false;
  static std::string name() { return cat({Codec<U>::name(), "*"}); }
  static Word to(Engine* e, T* p) {
    if (!p) return make_bool(false);
    void* object = nullptr;
    const void* key = dynamic_key(p, object);
    return make_foreign(e, key, object, nullptr, &type_name<U>);
  }
  static T* from(Engine*, Word w) {
    if (w == make_bool(false)) return nullptr;
    return static_cast<U*>(foreign_object(w, type_key<U>()));
  }
  static bool fits(Word w, bool exact) { return w == make_bool(false) || foreign_fits<U>(w, exact); }
};

}  // namespace detail

// ---- Value::as and Value::is ----

template <class T>
T Value::as() const {
  using D = std::remove_cvref_t<T>;
  static_assert(detail::Convertible<D>, "quasi: no conversion between this type and Scheme values (see quasi.hpp)");
  if constexpr (std::is_reference_v<T>) {
    static_assert(detail::Foreign<D>, "as<T&>() is for define_type types");
    return *static_cast<D*>(detail::foreign_object(word(), detail::type_key<D>()));
  } else {
    static_assert(!std::is_same_v<D, std::string_view>, "as<std::string_view>(): use as<std::string>()");
    static_assert(!requires { typename D::element_type; D::extent; }, "as<std::span>(): use as<std::vector<uint8_t>>()");
    if constexpr (detail::EngineFree<D>) return detail::Codec<D>::from(nullptr, word());
    else return detail::Codec<D>::from(engine(), word());
  }
}

template <class T>
bool Value::is() const {
  using D = std::remove_cvref_t<T>;
  return detail::Codec<D>::fits(word(), false);
}

namespace detail {
[[noreturn]] void variable_error(const Error& e, std::string_view name);

template <class T>
T converted(const Value& v, std::string_view name) {
  try {
    return v.as<T>();
  } catch (const Error& e) {
    variable_error(e, name);
  }
}
}  // namespace detail

}  // namespace api
}  // namespace quasi
