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
// Engine::get/set and Value::as<T> (convert.hpp; a quasi::Convert<T> specialization adds yours):
//   C++                                  Scheme
//   bool                                 boolean (from Scheme: anything but #f is true)
//   integer types (int, int64_t, ...)    exact integer (range-checked)
//   float, double                        real (from any real number)
//   char, char32_t                       character
//   std::string, std::string_view,       string (from Scheme: a string or a symbol; a string_view
//     const char* (results only)           parameter views a copy that lives for the call)
//   std::vector<T>, std::set<T>, ...     list (from Scheme: a list or a vector)
//   std::array<T, N>                     vector (from a list or vector of N elements)
//   std::pair<A, B>                      pair (a . b)
//   std::tuple<A...>                     list (from a list or vector of as many elements)
//   std::map<K, V>, unordered_map        hash table with equal? keys (from Scheme: a hash table,
//                                          or an association list, whose first of equal keys wins)
//   std::multimap, unordered_multimap    association list ((k . v) ...) (from Scheme also a hash table)
//   std::vector<uint8_t>, <std::byte>    bytevector (from Scheme also a list of bytes)
//   std::span<const uint8_t> (params)    the bytevector's own bytes (std::span<uint8_t>: writable)
//   std::optional<T>                     T, or #f for nullopt; a trailing optional parameter
//                                        of a registered function is an optional argument
//   std::variant<A...>                   the first alternative that fits exactly, else the first
//                                        that fits with conversions
//   std::function<R(A...)>               procedure (either way; a Value that came out of an
//                                        engine calls back into it while it exists)
//   quasi::Value                         any value, unconverted
//   quasi::Rest (last parameter)         the remaining arguments: a variadic function
//   a type given to Engine::define_type  foreign object #<name>: T (copied), T&, const T&, T*,
//     (T, T*, shared_ptr<T>,               shared_ptr<T> (#f is null); a result T* is not owned by
//      unique_ptr<T> results)              Scheme; an object of a derived type (bases<...>) is
//                                          accepted as its base
// A conversion that does not fit throws quasi::Error of kind "type" or "range"; inside a
// registered function it becomes a Scheme error naming the function, the argument and its C++
// type: "add: argument 2 (int64_t): expected an integer, got \"x\"".

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
// Lifetimes. A registered C++ function belongs to its Scheme procedure and its engine: it is
// destroyed when the procedure is collected or the engine destroyed, whichever comes first. A
// Value remembers the engine it came out of without keeping it alive: after the engine is
// destroyed the value stays valid data, but calling a procedure of it (through std::function or
// another engine) throws quasi::Error. Objects of define_type types owned by Scheme are destroyed
// by a collector finalizer, on whichever thread allocates at the time.

// Re-entry. A registered function may call back into its engine (Engine::call, eval...). Scheme
// escapes (continuations, errors handled by an outer guard, limits) may unwind through it as C++
// exceptions of the engine's own types: catch quasi::Error if you like, but let other exceptions
// you do not know pass (rethrow from catch (...)).
//
// Libraries and environments (library.hpp): Engine::define_library makes a library in C++ that
// Scheme code imports like any other; Engine::new_environment a separate top level for scripts
// that must not see each other. Sandboxing and limits: see Engine::Options.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#include "quasi/error.hpp"


// The parts, in dependency order (each is only valid included from here).
#define QUASI_PUBLIC_HEADER
#include "quasi/value.hpp"
#include "quasi/engine.hpp"
#include "quasi/library.hpp"
#include "quasi/convert.hpp"
#include "quasi/function.hpp"
#include "quasi/class.hpp"
#undef QUASI_PUBLIC_HEADER
