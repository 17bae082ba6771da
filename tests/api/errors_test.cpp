// Scheme errors reaching C++: message, irritants, location, backtrace, kind. Public header only.
#include <quasi/quasi.hpp>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "support.hpp"

using quasi::Engine;
using api_test::caught;

TEST_CASE("a Scheme error becomes quasi::Error with its parts", "[api][errors]") {
  Engine engine;
  quasi::Error e = caught(engine, "(define (check x)\n  (if (< x 0) (error \"negative value:\" x 'in-check) x))\n(check -7)",
                          "rules.scm");
  CHECK(e.kind() == "error");
  CHECK(e.message() == "negative value:");
  CHECK(e.irritants() == std::vector<std::string>{"-7", "in-check"});
  CHECK(e.location() == "rules.scm:2:15");
  CHECK(std::string(e.what()) == "rules.scm:2:15: error: negative value: -7 in-check");
  REQUIRE(e.backtrace().size() >= 1);
  CHECK(e.backtrace()[0] == "check");
  // The raised object itself.
  quasi::Value obj = quasi::error_object(e);
  CHECK(obj.is_error());
  CHECK(engine.call("error-object-irritants", obj).to_string() == "(-7 in-check)");
}

TEST_CASE("kinds of errors", "[api][errors]") {
  Engine engine;
  CHECK(caught(engine, "(car 5)").kind() == "type");
  CHECK(caught(engine, "(car 5)").message() == "car: expected a pair, got 5");
  CHECK(caught(engine, "(vector-ref (vector 1) 3)").kind() == "range");
  CHECK(caught(engine, "undefined-thing").kind() == "unbound");
  CHECK(caught(engine, "(if)").kind() == "syntax");
  CHECK(caught(engine, "(+ 1").kind() == "read");
  quasi::Error raised = caught(engine, "(raise 'oops)");
  CHECK(raised.kind() == "raise");
  CHECK(quasi::error_object(raised).to_string() == "oops");
  CHECK(std::string(raised.what()) == "<string>:1:1: error: uncaught exception: oops");
  CHECK(raised.location() == "<string>:1:1");
  // The engine is usable after each of them.
  CHECK(engine.eval("(+ 1 2)").as<int>() == 3);
}

TEST_CASE("an error from load names the file", "[api][errors]") {
  Engine engine;
  quasi::Error e = caught(engine, "(load \"/nonexistent/file.scm\")");
  CHECK(e.kind() == "file");
  CHECK_THROWS_AS(engine.load("/nonexistent/file.scm"), quasi::Error);
}

TEST_CASE("compile-time warnings reach Options::on_warning, and only when asked for", "[api][warnings]") {
  std::vector<std::string> got;
  quasi::Engine::Options o;
  o.on_warning = [&got](const std::string& m) { got.push_back(m); };
  quasi::Engine engine(o);
  engine.eval("(define (f) (undefined-g 1))\n(define (h) (car 1 2))", "host.scm");
  REQUIRE(got.size() == 2);
  CHECK(got[0] == "host.scm:1:13: warning: possibly unbound variable undefined-g");
  CHECK(got[1].find("host.scm:2:13: warning: wrong number of arguments to car") == 0);
  // A definition later in the same text is not unbound; kinds can be chosen.
  got.clear();
  engine.eval("(define (p) (q))\n(define (q) 1)");
  CHECK(got.empty());
  o.warnings = quasi::Engine::Options::kArityMismatch;
  quasi::Engine arity_only(o);
  arity_only.eval("(define (f) (nowhere) (car))");
  REQUIRE(got.size() == 1);
  CHECK(got[0].find("wrong number of arguments to car") != std::string::npos);
  // Without a callback nothing is computed, and nothing is printed.
  quasi::Engine quiet;
  CHECK(quiet.eval("(define (f) (nowhere)) 1").as<int>() == 1);
}
