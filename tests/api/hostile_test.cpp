// Hostile scripts in an embedding host (issue 8): a sandboxed engine cannot reach the engine's
// internals, files, processes, the environment, the host's stdin or process-wide switches by
// any path, and its limits hold against the ways a script could get around them. Public header
// only.
#include <quasi/quasi.hpp>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "support.hpp"

using quasi::Engine;
using api_test::error_of;
using namespace std::chrono_literals;

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("no user code reaches the %-internals", "[api][sandbox][hostile]") {
  Engine open_engine;
  Engine sandbox(Engine::Options::sandboxed());
  for (Engine* e : {&open_engine, &sandbox}) {
    for (const char* code : {"(%condition-text 1)", "(%make-condition 'limit #f \"time limit exceeded\" '())",
                             "(%rewind-to 1)", "(%with-handlers 1 2)", "%handlers",
                             "(eval '(%condition-text 1) (environment '(quasi core)))",
                             "(import (only (quasi core) %condition-text))"}) {
      INFO(code);
      std::string msg = error_of(*e, code);
      CHECK((contains(msg, "unbound variable") || contains(msg, "not exported")));
    }
    // A script cannot make a limit error: what reaches the host as kind "limit" is real.
    try {
      e->eval("(raise (make-condition 'limit #f \"time limit exceeded\" '()))");
      FAIL("no error");
    } catch (const quasi::Error& err) {
      CHECK(err.kind() != "limit");
    }
  }
}

TEST_CASE("a sandboxed script cannot read the host's stdin nor switch jit-log", "[api][sandbox][hostile]") {
  Engine sandbox(Engine::Options::sandboxed());
  CHECK(sandbox.eval("(eof-object? (read-char))").as<bool>());
  CHECK(sandbox.eval("(eof-object? (read-line (current-input-port)))").as<bool>());
  CHECK(contains(error_of(sandbox, "(jit-log #t)"), "disabled in this engine"));
  // Parameterizing the port still works.
  CHECK(sandbox.eval("(with-input-from-string \"x\" read)").to_string() == "x");
}

TEST_CASE("Scheme -> host -> Scheme nested without bound is a Scheme error", "[api][sandbox][hostile]") {
  Engine::Options o = Engine::Options::sandboxed();
  o.time_limit = 20s;
  Engine engine(o);
  engine.define("host-call", [&engine](quasi::Value f, quasi::Value n) { return engine.call(f, n); });
  engine.eval("(define (down n) (if (= n 0) 'bottom (host-call down (- n 1))))");
#if defined(QUASI_SANITIZED)
  // ASan's redzones make each VM run frame several times larger.
  CHECK(engine.eval("(down 150)").to_string() == "bottom");
#else
  CHECK(engine.eval("(down 1000)").to_string() == "bottom");
#endif
  std::string msg = error_of(engine, "(down 1000000)");
  CHECK(contains(msg, "C stack"));
  // Scheme code can catch it, and the engine goes on.
  CHECK(engine.eval("(guard (e (#t 'caught)) (down 1000000))").to_string() == "caught");
  CHECK(engine.eval("(down 100)").to_string() == "bottom");
}
