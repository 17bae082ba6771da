// library.hpp — libraries made in C++ (Engine::define_library) and separate top-level
// environments in one engine (Engine::new_environment).
// A part of quasi.hpp: include <quasi/quasi.hpp>, never this file alone.
//
// Both are handles on the engine's own objects: they stay valid data after the engine is
// destroyed, but using them then throws quasi::Error.
#pragma once

#ifndef QUASI_PUBLIC_HEADER
#error "include <quasi/quasi.hpp>"
#endif

namespace quasi {
inline namespace api {

// A library being defined from C++ (Engine::define_library("(app host)")). define, overload,
// set and define_type (inherited) define in the library and export; every definition takes
// effect for imports that come after it.
class Library : public detail::Definitions<Library> {
 public:
  // Evaluates Scheme definitions in the library (its body sees (scheme base) and what the
  // library defined so far) and exports every name they define.
  Library& scheme(std::string_view code);
  // The library's name, as given: "(app host)".
  const std::string& name() const;

  detail::Target definition_target() const;

 private:
  friend class Engine;
  explicit Library(std::shared_ptr<detail::LibraryState> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::LibraryState> state_;
};

// A top level of its own (Engine::new_environment): what it imported, and its own definitions.
// Scripts evaluated in different environments do not see each other's definitions or the
// engine's globals. Limits and the sandbox are the engine's.
class Environment : public detail::Definitions<Environment> {
 public:
  Value eval(std::string_view code, std::string_view source_name = "<string>");
  // Loads a source file into the environment. Allowed in a sandboxed engine: the host chooses it.
  Value load(const std::string& path);
  // A variable of the environment. Throws quasi::Error (kind "unbound").
  Value get(std::string_view name);
  template <class T>
  T get(std::string_view name) {
    return detail::converted<T>(get(name), name);
  }
  bool contains(std::string_view name);
  // Calls the environment's procedure `name` with converted arguments.
  template <class... Args>
  Value call(std::string_view name, Args&&... args) {
    Engine& e = engine();
    return e.apply(get(name), {e.make(std::forward<Args>(args))...});
  }
  // As Engine::globals, for this environment.
  std::vector<std::string> globals(std::string_view prefix = "");
  // The environment's engine; throws quasi::Error if it has been destroyed.
  Engine& engine() const;
  // The Scheme environment object, for (eval expr env) in Scheme code.
  const Value& value() const { return env_; }

  detail::Target definition_target() const;

 private:
  friend class Engine;
  explicit Environment(Value env) : env_(std::move(env)) {}
  Value env_;
};

}  // namespace api
}  // namespace quasi
