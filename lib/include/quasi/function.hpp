// function.hpp — C++ callables as Scheme procedures (signatures, argument passing, overload
// sets) and Scheme procedures as std::function.
// A part of quasi.hpp: include <quasi/quasi.hpp>, never this file alone.
//
// A registered callable becomes a detail::HostFunction owned by its Scheme procedure: it is
// destroyed when the procedure is collected or when the engine is destroyed, whichever comes
// first (a procedure that outlives its engine raises an error when called).
#pragma once

#ifndef QUASI_PUBLIC_HEADER
#error "include <quasi/quasi.hpp>"
#endif

namespace quasi {
inline namespace api {
namespace detail {

// ---- signatures ----

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

// ---- parameters ----

// How one parameter of type P is received: Storage holds the converted argument for the length
// of the call, get() passes it on.
template <class P>
struct Param {
  using D = std::remove_cvref_t<P>;
  static_assert(Convertible<D>, "quasi: no conversion between this parameter type and Scheme values (see quasi.hpp)");
  static constexpr bool optional = IsOptional<D>::value;
  using Storage = std::conditional_t<std::is_same_v<D, std::string_view>, std::string, D>;
  static Storage from(Engine* e, Word w) { return Codec<D>::from(e, w); }
  static bool fits(Word w, bool exact) { return Codec<D>::fits(w, exact); }
  static std::string name() { return Codec<D>::name(); }
  static Storage absent() {
    if constexpr (optional) return std::nullopt;
    else return Storage();
  }
  static P get(Storage& s) {
    if constexpr (std::is_rvalue_reference_v<P> || !std::is_reference_v<P>) return std::move(s);
    else return s;
  }
};
// C++ objects by reference: no copy (an object of a derived type is passed as its base).
template <class P>
  requires(std::is_reference_v<P> && Foreign<std::remove_cvref_t<P>>)
struct Param<P> {
  using D = std::remove_cvref_t<P>;
  static constexpr bool optional = false;
  using Storage = D*;
  static Storage from(Engine*, Word w) { return static_cast<D*>(foreign_object(w, type_key<D>())); }
  static bool fits(Word w, bool exact) { return foreign_fits<D>(w, exact); }
  static std::string name() { return Codec<D>::name(); }
  static Storage absent() { return nullptr; }
  static P get(Storage& s) { return static_cast<P>(*s); }
};

template <class T>
constexpr bool is_rest_v = std::is_same_v<std::remove_cvref_t<T>, Rest>;

// "(name type [optional-type] ...)" for an overload's candidate list.
std::string signature_text(std::string_view name, std::initializer_list<std::string> params, int required,
                           bool variadic);

// Rethrows a conversion error of argument `index` (0-based) with its position and C++ type:
// "argument 2 (int64_t): expected an integer, got \"x\"".
[[noreturn]] void argument_error(const Error& e, std::size_t index, const std::string& cpp_type);

// ---- host functions ----

template <class F, class R, class... A>
class HostFunctionImpl final : public HostFunction {
 public:
  explicit HostFunctionImpl(F fn) : fn_(std::move(fn)) {
    min_args = kRequired;
    max_args = kVariadic ? -1 : kFixed;
  }

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

  Word invoke(int argc, const Word* argv) override {
    auto stored = convert(argc, argv, std::index_sequence_for<A...>{});
    return call(stored, std::index_sequence_for<A...>{});
  }

  bool accepts(int argc, const Word* argv, bool exact) const override {
    if (argc < kRequired || (!kVariadic && argc > kFixed)) return false;
    return fits(argc, argv, exact, std::index_sequence_for<A...>{});
  }

  std::string signature(std::string_view name) const override {
    return signature_text(name, {param_name<A>()...}, kRequired, kVariadic);
  }

 private:
  template <class P>
  static std::string param_name() {
    if constexpr (is_rest_v<P>) return "";
    else return Param<P>::name();
  }

  template <std::size_t I>
  auto arg(int argc, const Word* argv) {
    using P = std::tuple_element_t<I, std::tuple<A...>>;
    if constexpr (is_rest_v<P>) {
      Rest rest;
      for (int i = int(I); i < argc; i++) rest.values.push_back(Value::from_word(argv[i], engine));
      return rest;
    } else {
      return int(I) < argc ? Param<P>::from(engine, argv[I]) : Param<P>::absent();
    }
  }

  template <std::size_t I>
  auto arg_at(std::size_t& at, int argc, const Word* argv) {
    at = I;
    return arg<I>(argc, argv);
  }

  // Arguments are converted left to right (braced initialization), before the call; a failure
  // names the argument.
  template <std::size_t... I>
  auto convert(int argc, const Word* argv, std::index_sequence<I...>) {
    [[maybe_unused]] std::size_t at = 0;
    try {
      return std::tuple<decltype(arg<I>(argc, argv))...>{arg_at<I>(at, argc, argv)...};
    } catch (const Error& e) {
      if constexpr (sizeof...(A) > 0) {
        std::string names[] = {Param<A>::name()...};
        argument_error(e, at, names[at]);
      }
      throw;
    }
  }

  template <std::size_t... I>
  bool fits(int argc, const Word* argv, bool exact, std::index_sequence<I...>) const {
    [[maybe_unused]] auto one = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
      using P = std::tuple_element_t<J, std::tuple<A...>>;
      if constexpr (is_rest_v<P>) return true;
      else return int(J) >= argc || Param<P>::fits(argv[J], exact);
    };
    return (one(std::integral_constant<std::size_t, I>{}) && ... && true);
  }

  template <std::size_t I, class S>
  static decltype(auto) pass(S& s) {
    using P = std::tuple_element_t<I, std::tuple<A...>>;
    if constexpr (is_rest_v<P>) return static_cast<P>(s);
    else return Param<P>::get(s);
  }

  template <class Stored, std::size_t... I>
  Word call([[maybe_unused]] Stored& stored, std::index_sequence<I...>) {
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
std::unique_ptr<HostFunction> make_host_function(Engine& engine, F&& fn) {
  using Fn = std::decay_t<F>;
  using Sig = Signature<Fn>;
  using Impl = typename HostFunctionFor<Fn, typename Sig::Result, typename Sig::Args>::type;
  auto impl = std::make_unique<Impl>(std::forward<F>(fn));
  impl->engine = &engine;
  return impl;
}

template <class F>
Value make_function(Engine& engine, std::string_view name, F&& fn) {
  return engine.register_function(name, make_host_function(engine, std::forward<F>(fn)));
}

// Calls a Scheme procedure from C++ (the body of std::function objects made from procedures).
[[noreturn]] void engine_gone(const Value& proc);
[[noreturn]] void result_error(const Error& e, const Value& proc, const std::string& cpp_type);

template <class R, class... A>
R call_procedure(const Value& proc, A&&... args) {
  Engine* e = proc.engine();
  if (!e) engine_gone(proc);
  Value r = e->call(proc, std::forward<A>(args)...);
  if constexpr (!std::is_void_v<R>) {
    try {
      return r.template as<R>();
    } catch (const Error& err) {
      result_error(err, proc, Codec<std::remove_cvref_t<R>>::name());
    }
  }
}

// Scheme procedures as std::function: each call goes through the procedure's engine, which the
// function does not keep alive (a call after the engine is destroyed throws quasi::Error). The
// procedure itself stays alive as long as the function. An empty std::function is #f.
template <class R, class... A>
struct Codec<std::function<R(A...)>> {
  static constexpr bool engine_free = false;
  static std::string name() { return "std::function"; }
  static Word to(Engine* e, const std::function<R(A...)>& f) {
    if (!f) return make_bool(false);
    if (!e) type_mismatch(make_bool(false), "an engine for a function");
    return make_function(*e, "", f).word();
  }
  static std::function<R(A...)> from(Engine* e, Word w) {
    if (kind(w) != Kind::Procedure) type_mismatch(w, "a procedure");
    Value proc = Value::from_word(w, e);
    if (!proc.engine()) throw Error("a procedure as std::function needs the engine it came from", "type");
    return [proc](A... args) -> R { return call_procedure<R>(proc, std::forward<A>(args)...); };
  }
  static bool fits(Word w, bool) { return kind(w) == Kind::Procedure; }
};

}  // namespace detail

template <class... F>
  requires(sizeof...(F) >= 1)
Value Engine::function(std::string_view name, F&&... fns) {
  std::vector<std::unique_ptr<detail::HostFunction>> candidates;
  (candidates.push_back(detail::make_host_function(*this, std::forward<F>(fns))), ...);
  return definition_target().functions(name, std::move(candidates), false);
}

namespace detail {

template <class Self>
template <class... F>
  requires(sizeof...(F) >= 1)
Self& Definitions<Self>::define(std::string_view name, F&&... fns) {
  Target t = target();
  std::vector<std::unique_ptr<HostFunction>> candidates;
  (candidates.push_back(make_host_function(*t.engine, std::forward<F>(fns))), ...);
  t.define_value(name, t.functions(name, std::move(candidates), false));
  return static_cast<Self&>(*this);
}

template <class Self>
template <class F>
Self& Definitions<Self>::overload(std::string_view name, F&& fn) {
  Target t = target();
  std::vector<std::unique_ptr<HostFunction>> candidates;
  candidates.push_back(make_host_function(*t.engine, std::forward<F>(fn)));
  t.define_value(name, t.functions(name, std::move(candidates), true));
  return static_cast<Self&>(*this);
}

template <class Self>
template <class T>
Self& Definitions<Self>::set(std::string_view name, T&& value) {
  Target t = target();
  t.define_value(name, t.engine->make(std::forward<T>(value)));
  return static_cast<Self&>(*this);
}

}  // namespace detail

}  // namespace api
}  // namespace quasi
