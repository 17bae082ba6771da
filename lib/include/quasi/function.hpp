// function.hpp — C++ callables as Scheme procedures: signatures, argument passing, std::function.
// A part of quasi.hpp: include <quasi/quasi.hpp>, never this file alone.
#pragma once

#ifndef QUASI_PUBLIC_HEADER
#error "include <quasi/quasi.hpp>"
#endif

namespace quasi {
inline namespace api {
namespace detail {

// ---- registered functions: signatures and argument passing ----

template <class F>
struct Signature : Signature<decltype(&F::operator())> {};
template <class R, class... A>
struct Signature<R (*)(A...)> {
  using Result = R;
  using Args = std::tuple<A...>;
};
template <class R, class... A>
struct Signature<R (*)(A...) noexcept> : Signature<R (*)(A...)> {};
template <class R, class... A>
struct Signature<R(A...)> : Signature<R (*)(A...)> {};
template <class C, class R, class... A>
struct Signature<R (C::*)(A...)> : Signature<R (*)(A...)> {};
template <class C, class R, class... A>
struct Signature<R (C::*)(A...) const> : Signature<R (*)(A...)> {};
template <class C, class R, class... A>
struct Signature<R (C::*)(A...) noexcept> : Signature<R (*)(A...)> {};
template <class C, class R, class... A>
struct Signature<R (C::*)(A...) const noexcept> : Signature<R (*)(A...)> {};

// How one parameter of type P is received: Storage holds the converted argument for the length
// of the call, get() passes it on.
template <class P>
struct Param {
  using D = std::remove_cvref_t<P>;
  static constexpr bool optional = IsOptional<D>::value;
  using Storage = std::conditional_t<std::is_same_v<D, std::string_view>, std::string, D>;
  static Storage from(Engine* e, Word w) { return Codec<D>::from(e, w); }
  static Storage absent() {
    if constexpr (optional) return std::nullopt;
    else return Storage();
  }
  static P get(Storage& s) {
    if constexpr (std::is_rvalue_reference_v<P> || !std::is_reference_v<P>) return std::move(s);
    else return s;
  }
};
// Foreign objects by reference or pointer: no copy.
template <class P>
  requires(std::is_reference_v<P> && is_foreign_v<std::remove_cvref_t<P>>)
struct Param<P> {
  using D = std::remove_cvref_t<P>;
  static constexpr bool optional = false;
  using Storage = D*;
  static Storage from(Engine* e, Word w) { return static_cast<D*>(foreign_object(e, w, type_key<D>(), nullptr)); }
  static Storage absent() { return nullptr; }
  static P get(Storage& s) { return static_cast<P>(*s); }
};

template <class T>
constexpr bool is_rest_v = std::is_same_v<std::remove_cvref_t<T>, Rest>;

template <class F, class R, class... A>
class HostFunctionImpl final : public HostFunction {
 public:
  explicit HostFunctionImpl(F fn) : fn_(std::move(fn)) {}

  static constexpr int kCount = int(sizeof...(A));
  static constexpr bool kVariadic = [] {
    if constexpr (sizeof...(A) == 0) return false;
    else return is_rest_v<std::tuple_element_t<sizeof...(A) - 1, std::tuple<A...>>>;
  }();
  static constexpr int kFixed = kVariadic ? kCount - 1 : kCount;
  // Trailing optional parameters may be left out.
  static constexpr int kRequired = [] {
    constexpr bool opt[] = {Param<A>::optional..., false};
    int n = kFixed;
    while (n > 0 && opt[n - 1]) n--;
    return n;
  }();

  Word invoke(int argc, const Word* argv) override { return call(argc, argv, std::index_sequence_for<A...>{}); }

 private:
  template <std::size_t I>
  auto arg(int argc, const Word* argv) {
    using P = std::tuple_element_t<I, std::tuple<A...>>;
    if constexpr (is_rest_v<P>) {
      Rest rest;
      for (int i = int(I); i < argc; i++) rest.values.push_back(Value::from_word(argv[i]));
      return rest;
    } else {
      return int(I) < argc ? Param<P>::from(engine, argv[I]) : Param<P>::absent();
    }
  }
  template <std::size_t I, class S>
  static decltype(auto) pass(S& s) {
    using P = std::tuple_element_t<I, std::tuple<A...>>;
    if constexpr (is_rest_v<P>) return static_cast<P>(s);
    else return Param<P>::get(s);
  }
  template <std::size_t... I>
  Word call(int argc, const Word* argv, std::index_sequence<I...>) {
    // Arguments are converted left to right (braced initialization), before the call.
    std::tuple<decltype(arg<I>(argc, argv))...> stored{arg<I>(argc, argv)...};
    (void)stored;
    if constexpr (std::is_void_v<R>) {
      std::invoke(fn_, pass<I>(std::get<I>(stored))...);
      return unspecified();
    } else {
      return Codec<std::remove_cvref_t<R>>::to(engine, std::invoke(fn_, pass<I>(std::get<I>(stored))...));
    }
  }
  F fn_;
};

template <class F, class R, class Tuple>
struct HostFunctionFor;
template <class F, class R, class... A>
struct HostFunctionFor<F, R, std::tuple<A...>> {
  using type = HostFunctionImpl<F, R, A...>;
};

template <class F>
Value make_function(Engine& engine, std::string_view name, F&& fn) {
  using Fn = std::decay_t<F>;
  using Sig = Signature<Fn>;
  using Impl = typename HostFunctionFor<Fn, typename Sig::Result, typename Sig::Args>::type;
  auto impl = std::make_unique<Impl>(std::forward<F>(fn));
  impl->engine = &engine;
  return engine.register_function(name, std::move(impl), Impl::kRequired, Impl::kVariadic ? -1 : Impl::kFixed);
}

// Scheme procedures seen from C++ as std::function: each call goes through Engine::apply.
template <class R, class... A>
struct Codec<std::function<R(A...)>> {
  static constexpr bool engine_free = false;
  static Word to(Engine* e, const std::function<R(A...)>& f) {
    if (!e) type_mismatch(make_bool(false), "an engine for a function");
    return make_function(*e, "", f).word();
  }
  static std::function<R(A...)> from(Engine* e, Word w) {
    Value proc = Value::from_word(w);
    if (!proc.is_procedure()) type_mismatch(w, "a procedure");
    if (!e) throw Error("converting a procedure to std::function needs an engine (Engine::get)", "type");
    return [e, proc](A... args) -> R {
      Value r = e->call(proc, std::forward<A>(args)...);
      if constexpr (!std::is_void_v<R>) return r.template as<R>();
    };
  }
};

}  // namespace detail

template <class F>
void Engine::define(std::string_view name, F&& fn) {
  set_value(name, detail::make_function(*this, name, std::forward<F>(fn)));
}

template <class F>
Value Engine::function(std::string_view name, F&& fn) {
  return detail::make_function(*this, name, std::forward<F>(fn));
}


}  // namespace api
}  // namespace quasi
