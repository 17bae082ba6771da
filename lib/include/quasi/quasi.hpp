// quasi.hpp — the one public header of the Quasi engine. Nothing of the internals (values, GC,
// GMP, asmjit) leaks through it; the `quasi` executable is built against it alone.
//
//   quasi::Engine engine;
//   engine.define("greet", [](std::string name) { return "hello, " + name; });
//   quasi::Value v = engine.eval("(greet \"world\")");
//   std::cout << v.as<std::string>();                // hello, world
//   int64_t n = engine.call("+", 1, 2).as<int64_t>();  // 3
//
// Values. A quasi::Value is a handle on a Scheme value that keeps it alive as long as the handle
// exists, wherever the handle lives (stack, heap object, container, global): no manual rooting.
// Handles are cheap to move; copying one makes a second root.
//
// Conversions, both ways, for arguments and results of registered functions, Engine::call,
// Engine::get/set and Value::as<T>:
//   C++                                  Scheme
//   bool                                 boolean (from Scheme: anything but #f is true)
//   integer types (int, int64_t, ...)    exact integer (range-checked)
//   float, double                        real (from any real number)
//   char, char32_t                       character
//   std::string, std::string_view,       string (from Scheme: a string or a symbol)
//     const char* (results only)
//   std::vector<T>                       list (from Scheme: a list or a vector)
//   std::optional<T>                     T, or #f for nullopt; a trailing optional parameter
//                                        of a registered function is an optional argument
//   std::function<R(A...)>               procedure (either way; needs an engine)
//   quasi::Value                         any value, unconverted
//   quasi::Rest (last parameter)         the remaining arguments: a variadic function
//   a type given to Engine::define_type  foreign object #<name>: T (copied), T&, const T&, T*,
//     (T, T*, std::shared_ptr<T>)          std::shared_ptr<T>; a result T* is not owned by Scheme
// A conversion that does not fit throws quasi::Error of kind "type" or "range"; inside a
// registered function it becomes a Scheme error naming the function:
// "name: expected an integer, got \"x\"".
//
// Threads. Any number of engines may run at once, each on its own thread; a thread needs no
// registration (the first call registers it with the collector, thread exit unregisters it). An
// engine is used by one thread at a time (a second thread entering it gets quasi::Error), but may
// move between threads. What may be shared: quasi::Value handles may be created, copied and
// destroyed on any thread, and values made by Value's own constructors (numbers, strings, lists
// of those) may be passed to any engine; a value that came out of an engine (a procedure, a
// mutable pair or vector it still uses, a foreign object) must only be used while that engine is
// not running on another thread. Engine::interrupt may be called from any thread or a signal
// handler. Registered functions run on the thread that called into the engine.
//
// Lifetimes. Registered C++ functions belong to their engine: a procedure value must not be
// called after its engine is destroyed. Objects of define_type types owned by Scheme are destroyed
// by a collector finalizer, on whichever thread allocates at the time.
//
// Re-entry. A registered function may call back into its engine (Engine::call, eval...). Scheme
// escapes (continuations, errors handled by an outer guard, limits) may unwind through it as C++
// exceptions of the engine's own types: catch quasi::Error if you like, but let other exceptions
// you do not know pass (rethrow from catch (...)).
//
// Sandboxing and limits: see Engine::Options.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "quasi/error.hpp"

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

// ---- Engine --------------------------------------------------------------------------------------

class Engine {
 public:
  struct Options {
    // Capabilities. Without them the procedures are replaced by ones that raise an error naming
    // themselves ("open-input-file: file access is disabled in this engine").
    bool allow_files = true;        // open-*-file, call-with-*-file, with-*-file, file-exists?,
                                    // delete-file, load, include, reading library files
    bool allow_process = true;      // exit, emergency-exit
    bool allow_environment = true;  // get-environment-variable, get-environment-variables
    // Limits of each evaluation (each outermost eval, load or call); 0 = none. Exceeding one
    // throws quasi::Error of kind "limit"; Scheme code cannot catch it. Checked at calls and
    // backward jumps, so a runaway loop stops within microseconds of the limit; not inside a
    // single long primitive call.
    uint64_t step_limit = 0;                      // calls + loop iterations
    std::chrono::milliseconds time_limit{0};      // wall time
    size_t memory_limit = 0;  // bytes allocated; measured with a process-wide counter, so
                              // allocation by other engines running at the same time counts too

    // Native code: kDefault follows QUASI_JIT (off|on|force; unset: on). kOn compiles
    // procedures from `specialize` at once and others once they are hot; kForce compiles every
    // procedure when it first runs; kOff interprets everything. Scheme can change it later with
    // (jit-mode 'off|'on|'force). jit_log reports each compilation on stderr (process-wide).
    enum class Jit { kDefault, kOff, kOn, kForce };
    Jit jit = Jit::kDefault;
    bool jit_log = false;

    // No file, process or environment access.
    static Options sandboxed() {
      Options o;
      o.allow_files = o.allow_process = o.allow_environment = false;
      return o;
    }
  };

  Engine();
  explicit Engine(const Options& options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Reads and evaluates every form of `code`; returns the value of the last one.
  // `source_name` appears in error locations ("<string>", "<repl>", a file name).
  Value eval(std::string_view code, std::string_view source_name = "<string>");
  // Loads a source file (a program: it may start with `import`). Allowed in a sandboxed engine:
  // the host chooses the file.
  Value load(const std::string& path);

  // Calls the global procedure `name`, or a procedure value, with converted arguments.
  template <class... Args>
  Value call(std::string_view name, Args&&... args) {
    return apply(get(name), {make(std::forward<Args>(args))...});
  }
  template <class... Args>
  Value call(const char* name, Args&&... args) {
    return call(std::string_view(name), std::forward<Args>(args)...);
  }
  template <class... Args>
  Value call(const std::string& name, Args&&... args) {
    return call(std::string_view(name), std::forward<Args>(args)...);
  }
  template <class... Args>
  Value call(const Value& procedure, Args&&... args) {
    return apply(procedure, {make(std::forward<Args>(args))...});
  }
  Value apply(const Value& procedure, const std::vector<Value>& args);

  // A global variable of the interaction environment. Throws quasi::Error (kind "unbound").
  Value get(std::string_view name);
  template <class T>
  T get(std::string_view name) {
    using D = std::remove_cvref_t<T>;
    return detail::Codec<D>::from(this, get(name).word());
  }
  bool contains(std::string_view name);
  // The names bound in the interaction environment (variables with a value, and syntactic
  // keywords such as `define` or a user's macro) that start with `prefix`, sorted. Names that
  // start with '%' are the engine's internals and are listed only when `prefix` starts with '%'.
  // For a REPL's completion or an `apropos`.
  std::vector<std::string> globals(std::string_view prefix = "");
  // Defines (or assigns) a global variable.
  template <class T>
  void set(std::string_view name, T&& value) {
    set_value(name, make(std::forward<T>(value)));
  }

  // Defines a Scheme procedure `name` that calls `fn` (a lambda, function object or function
  // pointer with a fixed signature), converting arguments and result. Wrong argument counts and
  // types raise Scheme errors naming it; a C++ exception thrown by `fn` becomes a Scheme error
  // (message from what()) that Scheme code can guard.
  template <class F>
  void define(std::string_view name, F&& fn);
  // Makes a procedure value without defining a global.
  template <class F>
  Value function(std::string_view name, F&& fn);

  // Exposes a C++ type: its objects print as #<name>, (name? x) tests for one, and the builder
  // adds a constructor and methods.
  template <class T>
  TypeBuilder<T> define_type(std::string_view name);

  // Converts a C++ value in this engine (also foreign objects and functions).
  template <class T>
  Value make(T&& x) {
    using D = std::remove_cvref_t<T>;
    if constexpr (std::is_same_v<D, Value>) return Value(std::forward<T>(x));
    else return Value::from_word(detail::Codec<D>::to(this, x));
  }

  // Limits for the following evaluations (see Options).
  void set_step_limit(uint64_t steps);
  void set_time_limit(std::chrono::milliseconds limit);
  void set_memory_limit(size_t bytes);
  const Options& options() const;

  // Asks the running evaluation to stop with an error of kind "interrupt" (which Scheme code may
  // guard; use a time limit to stop a script for sure); no effect on later evaluations when none
  // is running. Any thread; async-signal-safe.
  void interrupt();
  // Runs a full collection (and the finalizers of dead foreign objects). Any engine, any thread.
  static void collect_garbage();

  // True when `code` ends inside an unfinished datum (REPL continuation lines).
  bool input_incomplete(std::string_view code) const;
  // What (command-line) returns: program name first.
  void set_command_line(const std::vector<std::string>& args);
  // The core IR of each top-level form of `code`, one line per form, printed as Scheme, after
  // optimizer pass `pass`: "expand" (straight from the expander), a pass name (see
  // optimizer_passes()), or "" / "all" (after the whole default pipeline). Nothing of `code` runs
  // and the engine's environment is unchanged. Throws quasi::Error on bad syntax or pass name.
  std::string dump_ir(std::string_view code, std::string_view pass = "") const;

  // Internal.
  struct State;
  State& internal_state() { return *state_; }
  Value register_function(std::string_view name, std::unique_ptr<detail::HostFunction> fn, int min_args,
                          int max_args);
  void name_type(const void* key, std::string_view name);

 private:
  void set_value(std::string_view name, const Value& v);
  std::unique_ptr<State> state_;
};

// Version of the engine, "major.minor.patch".
const char* version();

// One pass of the optimizer's default pipeline (what `quasi --list-passes` prints).
struct OptimizerPass {
  std::string name;
  int level;  // runs at this optimization level and above
  std::string description;
};
// The default pipeline, in the order it runs. QUASI_PASSES=off in the environment (read when an
// engine is created) turns it off; lib/passes/README.md lists the other settings.
std::vector<OptimizerPass> optimizer_passes();

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
