// Prelude files loaded on first use (lib/engine/autoload.hpp: lists, sequences, sort, force,
// ports, comparators, automatic differentiation, hash tables, format): their names behave as if the files had loaded at start-up — for the embedding
// API's lookups and globals(), library exports, warnings — and loading one is the engine's work,
// not charged to the evaluation that first used a name (its step and memory limits).
#include <quasi/quasi.hpp>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

using quasi::Engine;

namespace {
bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}
}  // namespace

TEST_CASE("autoload: deferred names are listed and found before any use", "[api][autoload]") {
  {
    Engine engine;
    CHECK(engine.globals("jacob") == std::vector<std::string>{"jacobian"});
    CHECK(has(engine.globals("hash-table-"), "hash-table-update!/default"));
    CHECK(has(engine.globals("form"), "format"));
  }
  {
    Engine engine;
    CHECK(engine.contains("make-hash-table"));
    CHECK(engine.eval("(procedure? hash-table-ref)").as<bool>());
  }
}

TEST_CASE("autoload: names used first from C++, from a library, from eval", "[api][autoload]") {
  {
    Engine engine;
    CHECK(engine.call("format", false, "~a+~a", 1, 2).as<std::string>() == "1+2");
  }
  {
    Engine engine;
    CHECK(engine.run_program("(import (scheme base) (quasi ad)) ((grad (lambda (x) (* x x x))) 2)").as<int>() == 12);
  }
  {
    Engine engine;
    CHECK(engine.eval("(eval '(hash-table? (make-hash-table)) (interaction-environment))").as<bool>());
  }
  {
    // A macro loaded at start-up whose expansion refers to a deferred file's names.
    Engine engine;
    CHECK(engine.eval("(comparator-if<=> 1 2 'less 'same 'more)").as<std::string>() == "less");
  }
  {
    // A record type's accessors from a deferred file.
    Engine engine;
    CHECK(engine.eval("((comparator-equality-predicate (make-equal-comparator)) '(1) '(1))").as<bool>());
  }
}

TEST_CASE("autoload: loading is not charged to the evaluation that first uses a name", "[api][autoload][limits]") {
  Engine::Options o;
  o.step_limit = 5000;
  o.memory_limit = 200 << 10;
  Engine engine(o);
  CHECK(engine.eval("((grad (lambda (x) (* x x))) 3.0)").as<double>() == 6.0);
  CHECK(engine.eval("(let ((h (make-hash-table))) (hash-table-set! h 1 2) (hash-table-ref/default h 1 0))").as<int>() == 2);
  CHECK(engine.eval("(format #f \"~a\" 12)").as<std::string>() == "12");
  // The limits still hold for the evaluation's own work.
  CHECK_THROWS_AS(engine.eval("(let loop () (loop))"), quasi::Error);
}

TEST_CASE("autoload: a load inside a load is not taken off the evaluation's allocations twice", "[api][autoload][limits]") {
  // Loading the hash tables loads the comparators they use: the inner load's allocations are part
  // of the outer's. Counted off twice, the evaluation's base passed what the thread had allocated,
  // the unsigned difference wrapped, and the next check said "allocation limit exceeded" for an
  // evaluation far below it. An object of 64 KiB or more is checked at once.
  Engine::Options o;
  o.memory_limit = 1 << 20;
  Engine engine(o);
  engine.eval("(define (make-big n) (make-vector n 0))");  // a call the optimizer cannot fold
  CHECK(engine.eval("(begin (make-hash-table) (vector-length (make-big 10000)))").as<int>() == 10000);
  // The limit still holds in the same kind of evaluation.
  Engine fresh(o);
  fresh.eval("(define (make-big n) (make-vector n 0))");
  CHECK_THROWS_AS(fresh.eval("(begin (make-hash-table) (make-big 1000000))"), quasi::Error);
}

TEST_CASE("autoload: no warnings about the prelude's own text", "[api][autoload]") {
  Engine::Options o;
  std::vector<std::string> warnings;
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  Engine engine(o);
  engine.eval("(define (f x) (hash-table-count x)) (f (make-hash-table)) (format #f \"~a\" ((grad (lambda (x) x)) 1.0))");
  CHECK(warnings.empty());
}

TEST_CASE("autoload: the list, sequence, sort, promise and port files load on first use", "[api][autoload][limits]") {
  {
    Engine engine;
    CHECK(has(engine.globals("fold-r"), "fold-right"));
    CHECK(has(engine.globals("vector-so"), "vector-sort!"));
    CHECK(engine.contains("with-output-to-string"));
    // member and assoc (08-member.scm) are loaded at start-up: their compare argument works.
    CHECK(engine.eval("(member 2.0 '(1 2 3) =)").to_string() == "(2 3)");
    CHECK(engine.eval("(assoc \"B\" '((\"a\" . 1) (\"b\" . 2)) string-ci=?)").to_string() == "(\"b\" . 2)");
  }
  {
    // First uses under tight limits: the files' loading is the engine's work.
    Engine::Options o;
    o.step_limit = 5000;
    o.memory_limit = 200 << 10;
    Engine engine(o);
    CHECK(engine.eval("(map + '(1 2) '(10 20))").to_string() == "(11 22)");
    CHECK(engine.eval("(sort '(3 1 2) <)").to_string() == "(1 2 3)");
    CHECK(engine.eval("(string-map char-upcase \"ab\")").as<std::string>() == "AB");
    CHECK(engine.eval("(force (delay (+ 1 2)))").as<int>() == 3);
    CHECK(engine.eval("(with-output-to-string (lambda () (write 'x)))").as<std::string>() == "x");
  }
  {
    // From C++ first.
    Engine engine;
    CHECK(engine.call("last", engine.eval("'(1 2 3)")).as<int>() == 3);
  }
  {
    // Through a library's export.
    Engine engine;
    CHECK(engine.run_program("(import (scheme base)) (apply + (map (lambda (x) (* x x)) '(1 2 3)))").as<int>() == 14);
  }
}
