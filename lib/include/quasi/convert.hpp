// convert.hpp — the conversions between C++ types and Scheme values (detail::Codec).
// A part of quasi.hpp: include <quasi/quasi.hpp>, never this file alone.
#pragma once

#ifndef QUASI_PUBLIC_HEADER
#error "include <quasi/quasi.hpp>"
#endif

namespace quasi {
inline namespace api {

// ---- conversions -----------------------------------------------------------------------------------

namespace detail {

template <class T>
  requires is_int_v<T>
struct Codec<T> {
  static constexpr bool engine_free = true;
  static Word to(Engine*, T x) {
    if constexpr (std::is_signed_v<T>) return make_int(int64_t(x));
    else return make_uint(uint64_t(x));
  }
  static T from(Engine*, Word w) {
    if constexpr (std::is_signed_v<T>)
      return T(to_int(w, int64_t(std::numeric_limits<T>::min()), int64_t(std::numeric_limits<T>::max())));
    else return T(to_uint(w, uint64_t(std::numeric_limits<T>::max())));
  }
};

template <class T>
  requires std::is_floating_point_v<T>
struct Codec<T> {
  static constexpr bool engine_free = true;
  static Word to(Engine*, T x) { return make_double(double(x)); }
  static T from(Engine*, Word w) { return T(to_double(w)); }
};

template <>
struct Codec<bool> {
  static constexpr bool engine_free = true;
  static Word to(Engine*, bool b) { return make_bool(b); }
  static bool from(Engine*, Word w) { return to_bool(w); }
};

template <class T>
  requires is_char_v<T>
struct Codec<T> {
  static constexpr bool engine_free = true;
  static Word to(Engine*, T c) { return make_char(char32_t(static_cast<std::make_unsigned_t<T>>(c))); }
  static T from(Engine*, Word w) { return T(to_char(w)); }
};

template <>
struct Codec<std::string> {
  static constexpr bool engine_free = true;
  static Word to(Engine*, const std::string& s) { return make_string(s); }
  static std::string from(Engine*, Word w) { return to_string(w); }
};
template <>
struct Codec<std::string_view> {
  static constexpr bool engine_free = true;
  static Word to(Engine*, std::string_view s) { return make_string(s); }
  static std::string from(Engine*, Word w) { return to_string(w); }  // owned by the caller
};
template <>
struct Codec<const char*> {
  static constexpr bool engine_free = true;
  static Word to(Engine*, const char* s) { return make_string(s ? std::string_view(s) : std::string_view()); }
};
template <>
struct Codec<char*> : Codec<const char*> {};
template <std::size_t N>
struct Codec<char[N]> : Codec<const char*> {};

template <>
struct Codec<Value> {
  static constexpr bool engine_free = true;
  static Word to(Engine*, const Value& v) { return v.word(); }
  static Value from(Engine*, Word w) { return Value::from_word(w); }
};

template <class T, class A>
struct Codec<std::vector<T, A>> {
  static constexpr bool engine_free = Codec<T>::engine_free;
  static Word to(Engine* e, const std::vector<T, A>& xs) {
    // Built from the back; `list` lives on the C++ stack, which the collector scans.
    Word list = nil();
    for (auto it = xs.rbegin(); it != xs.rend(); ++it) {
      Word item = Codec<T>::to(e, *it);
      list = cons(item, list);
    }
    return list;
  }
  static std::vector<T, A> from(Engine* e, Word w) {
    struct Ctx {
      Engine* e;
      std::vector<T, A> out;
    } ctx{e, {}};
    for_each_element(w, [](void* c, Word x) {
      auto* cx = static_cast<Ctx*>(c);
      cx->out.push_back(Codec<T>::from(cx->e, x));
    }, &ctx);
    return std::move(ctx.out);
  }
};

template <class T>
struct Codec<std::optional<T>> {
  static constexpr bool engine_free = Codec<T>::engine_free;
  static Word to(Engine* e, const std::optional<T>& x) { return x ? Codec<T>::to(e, *x) : make_bool(false); }
  static std::optional<T> from(Engine* e, Word w) {
    if (w == make_bool(false)) return std::nullopt;
    return Codec<T>::from(e, w);
  }
};

template <class T>
  requires UserConvertible<T>
struct Codec<T> {
  static constexpr bool engine_free = true;
  static Word to(Engine*, const T& x) {
    Value v = Convert<T>::to(x);
    return keep_word(v);
  }
  static T from(Engine*, Word w) { return Convert<T>::from(Value::from_word(w)); }
  // The word of a Value about to be destroyed stays reachable from the caller's stack.
  static Word keep_word(const Value& v) { return v.word(); }
};

// Foreign objects: copies of T owned by Scheme, shared_ptr<T> shared with it, T* not owned.
template <class T>
void release_shared(void* holder) {
  delete static_cast<std::shared_ptr<T>*>(holder);
}

template <class T>
Word make_shared_foreign(Engine* e, std::shared_ptr<T> p) {
  T* object = p.get();
  auto* holder = new std::shared_ptr<T>(std::move(p));
  try {
    return make_foreign(e, type_key<T>(), object, holder, &release_shared<T>);
  } catch (...) {
    delete holder;
    throw;
  }
}

template <class T>
  requires is_foreign_v<T>
struct Codec<T> {
  static constexpr bool engine_free = false;
  static Word to(Engine* e, const T& x) { return make_shared_foreign<T>(e, std::make_shared<T>(x)); }
  static T from(Engine* e, Word w) { return *static_cast<T*>(foreign_object(e, w, type_key<T>(), nullptr)); }
};

template <class T>
struct Codec<std::shared_ptr<T>> {
  static constexpr bool engine_free = false;
  static Word to(Engine* e, const std::shared_ptr<T>& p) {
    if (!p) return make_bool(false);
    return make_shared_foreign<std::remove_cv_t<T>>(e, std::const_pointer_cast<std::remove_cv_t<T>>(p));
  }
  static std::shared_ptr<T> from(Engine* e, Word w) {
    void* holder = nullptr;
    using U = std::remove_cv_t<T>;
    U* object = static_cast<U*>(foreign_object(e, w, type_key<U>(), &holder));
    if (holder) return *static_cast<std::shared_ptr<U>*>(holder);
    return std::shared_ptr<T>(object, [](T*) {});  // not owned by Scheme: the host keeps it alive
  }
};

template <class T>
  requires is_foreign_v<std::remove_cv_t<T>>
struct Codec<T*> {
  static constexpr bool engine_free = false;
  static Word to(Engine* e, T* p) {
    using U = std::remove_cv_t<T>;
    if (!p) return make_bool(false);
    return make_foreign(e, type_key<U>(), const_cast<U*>(p), nullptr, nullptr);
  }
  static T* from(Engine* e, Word w) {
    using U = std::remove_cv_t<T>;
    return static_cast<U*>(foreign_object(e, w, type_key<U>(), nullptr));
  }
};

}  // namespace detail

}  // namespace api
}  // namespace quasi
