// class.hpp — C++ classes exposed to Scheme (Engine::define_type, TypeBuilder).
// A part of quasi.hpp: include <quasi/quasi.hpp>, never this file alone.
#pragma once

#ifndef QUASI_PUBLIC_HEADER
#error "include <quasi/quasi.hpp>"
#endif

namespace quasi {
inline namespace api {

// ---- foreign types ----------------------------------------------------------------------------------

// Builds the Scheme side of a C++ type T (Engine::define_type<T>("point")):
//   .constructor<double, double>()     (make-point x y)       -> a new T(x, y) owned by Scheme
//   .method("x", &Point::x)            (point-x p)            member function
//   .method("move!", &Point::move)     (point-move! p dx dy)
//   .method("x", &Point::x_)           (point-x p)            data member: reads it
//   .method("norm", [](const Point& p) { ... })               any callable taking T first
// and (point? v) is always defined.
template <class T>
class TypeBuilder {
 public:
  TypeBuilder(Engine& engine, std::string name) : engine_(engine), name_(std::move(name)) {
    engine_.name_type(detail::type_key<T>(), name_);
    engine_.define(name_ + "?", [](const Value& v) { return v.is<T>(); });
  }

  // Defines (make-<name> args...) creating T(args...); `scheme_name` overrides the name.
  template <class... Args>
  TypeBuilder& constructor(std::string_view scheme_name = {}) {
    std::string n = scheme_name.empty() ? "make-" + name_ : std::string(scheme_name);
    Engine* e = &engine_;
    engine_.define(n, [e](Args... args) {
      return Value::from_word(detail::make_shared_foreign<T>(e, std::make_shared<T>(std::move(args)...)));
    });
    return *this;
  }

  // Defines (<name>-<method> object args...).
  template <class M>
  TypeBuilder& method(std::string_view method_name, M member) {
    std::string n = name_ + "-" + std::string(method_name);
    if constexpr (std::is_member_function_pointer_v<M>) {
      define_member(n, member, detail::Signature<M>{});
    } else if constexpr (std::is_member_object_pointer_v<M>) {
      engine_.define(n, [member](const T& self) { return self.*member; });
    } else {
      engine_.define(n, std::move(member));
    }
    return *this;
  }

 private:
  template <class M, class R, class... A>
  void define_member_impl(const std::string& n, M member, std::tuple<A...>*) {
    engine_.define(n, [member](T& self, A... args) -> R { return (self.*member)(std::forward<A>(args)...); });
  }
  template <class M, class S>
  void define_member(const std::string& n, M member, S) {
    define_member_impl<M, typename S::Result>(n, member, static_cast<typename S::Args*>(nullptr));
  }

  Engine& engine_;
  std::string name_;
};

template <class T>
TypeBuilder<T> Engine::define_type(std::string_view name) {
  return TypeBuilder<T>(*this, std::string(name));
}

inline int64_t Value::as_int() const { return as<int64_t>(); }
inline double Value::as_double() const { return as<double>(); }
inline std::string Value::as_string() const { return as<std::string>(); }


}  // namespace api
}  // namespace quasi
