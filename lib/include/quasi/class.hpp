// class.hpp — C++ classes exposed to Scheme (Engine::define_type, TypeBuilder, bases<...>).
// A part of quasi.hpp: include <quasi/quasi.hpp>, never this file alone.
//
// Scheme names are made from the type's name, as define-record-type's are: for
// define_type<Point>("point"), (make-point ...), (point? x), (point-x p), (point-x-set! p v),
// (point-norm p), (point-origin). Relations between C++ types (bases) and a type's printer,
// equality and hash are process-wide, by C++ type; names and procedures belong to each engine.
#pragma once

#ifndef QUASI_PUBLIC_HEADER
#error "include <quasi/quasi.hpp>"
#endif

namespace quasi {
inline namespace api {

namespace detail {

// Records that `derived` objects can be seen as `base` ones through `upcast`.
void register_base(const void* derived, const void* base, void* (*upcast)(void*));
// Sets the printer, equality or hash (those given) of the type `key`.
void set_type_hooks(const void* key, std::function<std::string(void*)> print, std::function<bool(void*, void*)> equal,
                    std::function<size_t(void*)> hash);

template <class D, class B>
void* upcast(void* p) {
  return static_cast<B*>(static_cast<D*>(p));
}

}  // namespace detail

// Builds the Scheme side of a C++ type T (Engine::define_type<T>("point")). Defining the same
// name twice through one builder adds an overload (constructors taking different arguments,
// methods with several signatures): see Engine::define.
template <class T>
class TypeBuilder {
 public:
  template <class... B>
  TypeBuilder(detail::Target target, std::string name, bases<B...>)
      : target_(std::move(target)), engine_(*target_.engine), name_(std::move(name)) {
    static_assert((std::is_base_of_v<B, T> && ...), "bases<B...>: each B must be a base class of T");
    (detail::register_base(detail::type_key<T>(), detail::type_key<B>(), &detail::upcast<T, B>), ...);
#if defined(__GXX_RTTI) || defined(__cpp_rtti) || defined(_CPPRTTI)
    // A T handed out as a pointer or reference to a base is seen as the T it is.
    if constexpr (std::is_polymorphic_v<T>) detail::register_dynamic_type(typeid(T), detail::type_key<T>());
#endif
    engine_.name_type(detail::type_key<T>(), name_);
    add(detail::cat({name_, "?"}), [](const Value& v) { return v.is<T>(); });
  }

  // (make-<name> args...) -> a new T(args...) owned by Scheme. Several constructor<...>() calls
  // overload it; `scheme_name` overrides the name.
  template <class... Args>
  TypeBuilder& constructor(std::string_view scheme_name = {}) {
    Engine* e = &engine_;
    add(scheme_name.empty() ? detail::cat({"make-", name_}) : std::string(scheme_name), [e](Args... args) {
      return Value::from_word(detail::make_shared_foreign<T>(e, std::make_shared<T>(std::forward<Args>(args)...)), e);
    });
    return *this;
  }
  // A factory as constructor: any callable returning T, std::shared_ptr<T> or std::unique_ptr<T>.
  template <class F>
  TypeBuilder& constructor(F factory, std::string_view scheme_name = {}) {
    add(scheme_name.empty() ? detail::cat({"make-", name_}) : std::string(scheme_name), std::move(factory));
    return *this;
  }

  // (<name>-<method> object args...): a member function, or any callable taking T (T&, const T&,
  // T*) first. A data member pointer reads the member (prefer property).
  template <class M>
  TypeBuilder& method(std::string_view method_name, M member) {
    std::string n = detail::cat({name_, "-", method_name});
    if constexpr (std::is_member_function_pointer_v<M>) {
      add_member(n, member, static_cast<typename detail::Signature<M>::Args*>(nullptr),
                 static_cast<typename detail::Signature<M>::Result*>(nullptr));
    } else if constexpr (std::is_member_object_pointer_v<M>) {
      add_getter(n, member);
    } else {
      add(n, std::move(member));
    }
    return *this;
  }

  // (<name>-<function> args...): a static member function or any callable (no object).
  template <class F>
  TypeBuilder& static_function(std::string_view function_name, F fn) {
    add(detail::cat({name_, "-", function_name}), std::move(fn));
    return *this;
  }

  // A property read by (<name>-<prop> object) and, unless read-only, written by
  // (<name>-<prop>-set! object value):
  //   .property("x", &Point::x)                      a data member (read-only if const)
  //   .property("norm", &Point::norm)                a getter: member function or callable(const T&)
  //   .property("name", &P::name, &P::set_name)      a getter and a setter (member function, or
  //                                                   callable(T&, value))
  // A data member of a define_type type is handed out in place (not copied): changing it
  // changes the object, which the member keeps alive.
  template <class G>
  TypeBuilder& property(std::string_view prop, G getter) {
    std::string n = detail::cat({name_, "-", prop});
    add_getter(n, getter);
    if constexpr (std::is_member_object_pointer_v<G>) {
      using M = std::remove_reference_t<decltype(std::declval<T&>().*getter)>;
      if constexpr (!std::is_const_v<M>)
        add(detail::cat({n, "-set!"}), [getter](T& self, const std::remove_cv_t<M>& v) { self.*getter = v; });
    }
    return *this;
  }
  template <class G, class S>
  TypeBuilder& property(std::string_view prop, G getter, S setter) {
    std::string n = detail::cat({name_, "-", prop});
    add_getter(n, getter);
    if constexpr (std::is_member_function_pointer_v<S>) {
      using V = std::tuple_element_t<0, typename detail::Signature<S>::Args>;
      add(detail::cat({n, "-set!"}), [setter](T& self, V v) { (self.*setter)(std::forward<V>(v)); });
    } else {
      add(detail::cat({n, "-set!"}), std::move(setter));
    }
    return *this;
  }
  // A property that Scheme may read but not write, whatever the member is.
  template <class G>
  TypeBuilder& readonly(std::string_view prop, G getter) {
    add_getter(detail::cat({name_, "-", prop}), getter);
    return *this;
  }

  // How (write obj) and (display obj) show an object: callable(const T&) -> std::string. Without
  // one, #<name>. Shared by every engine (the last one given wins); it must not call into Scheme.
  template <class F>
  TypeBuilder& printer(F fn) {
    detail::set_type_hooks(detail::type_key<T>(), [fn](void* p) -> std::string { return fn(*static_cast<const T*>(p)); },
                           nullptr, nullptr);
    return *this;
  }
  // equal? on two objects of this type (or of types derived from it): callable(const T&, const T&)
  // -> bool, or T's operator== when none is given. Without one, equal? is identity (eqv?).
  template <class F>
  TypeBuilder& equal(F fn) {
    detail::set_type_hooks(detail::type_key<T>(), nullptr, [fn](void* a, void* b) -> bool {
      return fn(*static_cast<const T*>(a), *static_cast<const T*>(b));
    }, nullptr);
    return *this;
  }
  TypeBuilder& equal() {
    return equal([](const T& a, const T& b) { return bool(a == b); });
  }
  // The hash consistent with equal (hash tables keyed by equal?): callable(const T&) -> size_t, or
  // std::hash<T> when none is given. With equal but no hash, all objects of the type hash alike.
  template <class F>
  TypeBuilder& hash(F fn) {
    detail::set_type_hooks(detail::type_key<T>(), nullptr, nullptr,
                           [fn](void* p) -> size_t { return size_t(fn(*static_cast<const T*>(p))); });
    return *this;
  }
  TypeBuilder& hash() {
    return hash([](const T& x) { return std::hash<T>{}(x); });
  }

 private:
  // Defines `n`, or adds an overload if this builder defined it already.
  template <class F>
  void add(const std::string& n, F&& fn) {
    bool again = false;
    for (const std::string& d : defined_) again = again || d == n;
    std::vector<std::unique_ptr<detail::HostFunction>> candidates;
    candidates.push_back(detail::make_host_function(engine_, std::forward<F>(fn)));
    target_.define_value(n, target_.functions(n, std::move(candidates), again));
    if (!again) defined_.push_back(n);
  }

  template <class M, class... A, class R>
  void add_member(const std::string& n, M member, std::tuple<A...>*, R*) {
    add(n, [member](T& self, A... args) -> R { return (self.*member)(std::forward<A>(args)...); });
  }

  template <class G>
  void add_getter(const std::string& n, G getter) {
    if constexpr (std::is_member_object_pointer_v<G>) {
      using M = std::remove_cvref_t<decltype(std::declval<T&>().*getter)>;
      if constexpr (detail::Foreign<M>) {
        // In place, sharing ownership of the enclosing object.
        Engine* e = &engine_;
        add(n, [e, getter](const Value& self) {
          std::shared_ptr<void>* holder = nullptr;
          T* object = static_cast<T*>(detail::foreign_object(self.word(), detail::type_key<T>(), &holder));
          M* member = &(object->*getter);
          auto* alias = holder ? new std::shared_ptr<void>(*holder, member) : nullptr;
          try {
            return Value::from_word(detail::make_foreign(e, detail::type_key<M>(), member, alias, &detail::type_name<M>), e);
          } catch (...) {
            delete alias;
            throw;
          }
        });
      } else {
        add(n, [getter](const T& self) -> const M& { return self.*getter; });
      }
    } else if constexpr (std::is_member_function_pointer_v<G>) {
      using R = typename detail::Signature<G>::Result;
      add(n, [getter](T& self) -> R { return (self.*getter)(); });
    } else {
      add(n, std::move(getter));
    }
  }

  detail::Target target_;
  Engine& engine_;
  std::string name_;
  std::vector<std::string> defined_;
};

template <class Self>
template <class T, class... B>
TypeBuilder<T> detail::Definitions<Self>::define_type(std::string_view name, bases<B...> b) {
  return TypeBuilder<T>(target(), std::string(name), b);
}

inline int64_t Value::as_int() const { return as<int64_t>(); }
inline double Value::as_double() const { return as<double>(); }
inline std::string Value::as_string() const { return as<std::string>(); }

}  // namespace api
}  // namespace quasi
