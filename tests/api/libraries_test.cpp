// Libraries made in C++ (define_library), the libraries a sandbox may import, and separate
// environments in one engine (new_environment). Public header only.
#include <quasi/quasi.hpp>

#include "support.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

using quasi::Engine;
using quasi::Value;
using api_test::error_of;

namespace {
struct Counter {
  int n = 0;
  void bump() { n++; }
};

quasi::Library define_host(Engine& engine, std::vector<std::string>& log) {
  quasi::Library host = engine.define_library("(app host)");
  host.define("log!", [&log](std::string s) { log.push_back(s); })
      .define("scale", [](double x, double k) { return x * k; }, [](double x) { return x * 2; })
      .set("version", "1.2")
      .set("limits", std::vector<int>{1, 10});
  host.define_type<Counter>("counter").constructor<>().property("n", &Counter::n).method("bump!", &Counter::bump);
  return host;
}
}  // namespace

TEST_CASE("a library defined in C++ is imported like any library", "[api][libraries]") {
  Engine engine;
  std::vector<std::string> log;
  define_host(engine, log);
  // A program sees what it imports, and only that.
  CHECK(engine.run_program(R"(
    (import (scheme base) (app host))
    (log! version)
    (let ((c (make-counter))) (counter-bump! c) (counter-bump! c) (list (scale 1.5) (scale 2 3) (counter-n c))))")
            .to_string() == "(3.0 6.0 2)");
  CHECK(log == std::vector<std::string>{"1.2"});
  CHECK(error_of(engine, "(log! \"x\")") == "unbound variable: log!");  // not a global
  // Import sets work on it.
  CHECK(engine.run_program("(import (scheme base) (prefix (only (app host) scale) h:)) (h:scale 4)").as<double>() == 8);
  CHECK(engine.run_program("(import (rename (app host) (version v))) v").as<std::string>() == "1.2");
  CHECK_THROWS_WITH(engine.run_program("(import (only (app host) nothing-like-this))"),
                    Catch::Contains("nothing-like-this is not exported by (app host)"));
  // The REPL's top level can import it too.
  engine.eval("(import (app host))");
  CHECK(engine.eval("(car limits)").as<int>() == 1);
  CHECK(engine.eval("(counter? (make-counter))").as<bool>());
}

TEST_CASE("libraries written in Scheme import a C++ library", "[api][libraries]") {
  Engine engine;
  std::vector<std::string> log;
  define_host(engine, log);
  engine.eval(R"(
    (define-library (user greeting)
      (import (scheme base) (app host))
      (export greet)
      (begin (define (greet name) (log! (string-append "hello " name)) (scale 21)))))");
  CHECK(engine.run_program("(import (scheme base) (user greeting)) (greet \"ann\")").as<double>() == 42);
  CHECK(log == std::vector<std::string>{"hello ann"});
}

TEST_CASE("a C++ library can hold Scheme definitions", "[api][libraries]") {
  Engine engine;
  quasi::Library lib = engine.define_library("(app util)");
  lib.define("c-square", [](int64_t x) { return x * x; });
  lib.scheme(R"(
    (define (sum-of-squares . xs) (apply + (map c-square xs)))
    (define answer (sum-of-squares 1 2 3)))");
  CHECK(lib.name() == "(app util)");
  CHECK(engine.run_program("(import (scheme base) (app util)) (list answer (sum-of-squares 2 2))").to_string() ==
        "(14 8)");
  // A definition made after an import is seen by later imports.
  lib.define("late", [] { return 7; });
  CHECK(engine.run_program("(import (app util)) (late)").as<int>() == 7);
  // Defining the library again starts afresh.
  engine.define_library("(app util)").set("only-this", 1);
  CHECK_THROWS_WITH(engine.run_program("(import (only (app util) late))"), Catch::Contains("late is not exported"));
}

TEST_CASE("a sandbox imports exactly the libraries the host allows", "[api][libraries][sandbox]") {
  Engine::Options options = Engine::Options::sandboxed();
  options.allowed_libraries = std::vector<std::string>{"(scheme base)", "(scheme write)"};
  Engine engine(options);
  std::vector<std::string> log;
  define_host(engine, log);  // host libraries are always allowed
  CHECK(engine.run_program("(import (scheme base) (scheme write) (app host)) (scale 5)").as<double>() == 10);
  CHECK_THROWS_WITH(engine.run_program("(import (scheme base) (scheme file))"),
                    Catch::Contains("library (scheme file) is not available in this engine"));
  CHECK_THROWS_WITH(engine.eval("(import (scheme process-context))"),
                    Catch::Contains("library (scheme process-context) is not available in this engine"));
  // cond-expand agrees with import.
  CHECK(engine.eval("(cond-expand ((library (scheme file)) 'yes) (else 'no))").to_string() == "no");
  CHECK(engine.eval("(cond-expand ((library (app host)) 'yes) (else 'no))").to_string() == "yes");
  engine.set_allowed_libraries(std::nullopt);
  CHECK_NOTHROW(engine.run_program("(import (scheme base) (scheme char)) (char-upcase #\\a)"));
  // No library files in a sandbox: only the built-in and the host's libraries exist.
  CHECK_THROWS_WITH(engine.run_program("(import (my own lib))"), Catch::Contains("(my own lib)"));
}

TEST_CASE("environments keep scripts apart in one engine", "[api][environments]") {
  Engine engine;
  std::vector<std::string> log;
  define_host(engine, log);
  engine.eval("(define engine-global 1)");
  quasi::Environment a = engine.new_environment({"(scheme base)", "(app host)"});
  quasi::Environment b = engine.new_environment({"(scheme base)"});
  a.eval("(define name \"a\") (define (hello) (log! (string-append \"from \" name)))");
  b.eval("(define name \"b\")");
  CHECK(a.get<std::string>("name") == "a");
  CHECK(b.get<std::string>("name") == "b");
  a.call("hello");
  CHECK(log == std::vector<std::string>{"from a"});
  // Each sees its imports and its own definitions, not the engine's globals or the other's.
  CHECK_FALSE(a.contains("engine-global"));
  CHECK_FALSE(engine.contains("name"));
  CHECK_FALSE(b.contains("log!"));
  CHECK_THROWS_WITH(b.eval("(hello)"), Catch::Contains("unbound variable: hello"));
  CHECK_THROWS_WITH(b.eval("(display 1)"), Catch::Contains("unbound variable: display"));  // not imported
  // Scripts may import more (what the engine allows).
  b.eval("(import (scheme write))");
  CHECK(b.contains("display"));
  // The host defines into one environment only.
  a.define("twice", [](int x) { return 2 * x; }).set("config", std::vector<std::string>{"x", "y"});
  CHECK(a.eval("(twice (length config))").as<int>() == 4);
  CHECK_FALSE(b.contains("twice"));
  a.define_type<Counter>("tally").constructor<>().property("n", &Counter::n);
  CHECK(a.eval("(tally-n (make-tally))").as<int>() == 0);
  CHECK(a.globals("tal") == std::vector<std::string>{"tally-n", "tally-n-set!", "tally?"});
  // Scheme code can evaluate in an environment it is handed.
  engine.set("env-a", a.value());
  CHECK(engine.eval("(eval '(twice 21) env-a)").as<int>() == 42);
  // An empty environment has nothing, not even define.
  quasi::Environment empty = engine.new_environment({});
  CHECK(empty.globals().empty());
  CHECK_THROWS_AS(empty.eval("(define x 1)"), quasi::Error);
}

TEST_CASE("environments share the engine's limits and end with it", "[api][environments][limits]") {
  quasi::Environment orphan = [] {
    Engine engine;
    engine.set_time_limit(std::chrono::milliseconds(50));
    quasi::Environment env = engine.new_environment({"(scheme base)"});
    auto t0 = std::chrono::steady_clock::now();
    try {
      env.eval("(let loop () (loop))");
      FAIL("no limit");
    } catch (const quasi::Error& e) {
      CHECK(e.kind() == "limit");
    }
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
    CHECK(env.eval("(+ 1 2)").as<int>() == 3);  // the next evaluation has its own budget
    return env;
  }();
  CHECK_THROWS_WITH(orphan.eval("1"), "the engine of this environment has been destroyed");
}
