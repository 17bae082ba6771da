// Registering C++ functions and types with Engine::define / define_type. Public header only.
#include <quasi/quasi.hpp>

#include "support.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

using quasi::Engine;
using quasi::Value;
using api_test::error_of;

namespace {
int64_t twice(int64_t x) { return 2 * x; }
}  // namespace

TEST_CASE("registered functions convert arguments and results", "[api][define]") {
  Engine engine;
  engine.define("describe", [](int64_t a, double b) -> std::string {
    return std::to_string(a) + "/" + std::to_string(int(b * 10));
  });
  engine.define("twice", twice);
  engine.define("negate?", [](bool b) { return !b; });
  engine.define("total", [](const std::vector<double>& xs) {
    double t = 0;
    for (double x : xs) t += x;
    return t;
  });
  engine.define("words", [](std::string_view s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
      if (c == ' ') {
        out.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    out.push_back(cur);
    return out;
  });
  engine.define("first-char", [](const std::string& s) { return s.at(0); });
  engine.define("identity", [](Value v) { return v; });
  engine.define("nothing", [] {});
  int calls = 0;
  engine.define("count!", [&calls]() mutable { return ++calls; });

  CHECK(engine.eval("(describe 7 2.5)").as<std::string>() == "7/25");
  CHECK(engine.eval("(describe 7 1/2)").as<std::string>() == "7/5");  // exact rationals convert
  CHECK(engine.eval("(twice 21)").as<int>() == 42);
  CHECK(engine.eval("(negate? #f)").as<bool>());
  CHECK(engine.eval("(total '(1 2 3.5))").as<double>() == 6.5);
  CHECK(engine.eval("(total #(1 2))").as<double>() == 3.0);
  CHECK(engine.eval("(words \"a bc d\")").to_string() == "(\"a\" \"bc\" \"d\")");
  CHECK(engine.eval("(first-char \"xyz\")").to_string() == "#\\x");
  CHECK(engine.eval("(identity '(1 2))").to_string() == "(1 2)");
  CHECK(engine.eval("(nothing)").is_unspecified());
  engine.eval("(count!) (count!)");
  CHECK(calls == 2);
  CHECK(engine.eval("(map twice '(1 2 3))").to_string() == "(2 4 6)");
  CHECK(engine.eval("twice").to_string() == "#<procedure twice>");
}

TEST_CASE("wrong argument types and counts are Scheme errors naming the function", "[api][define]") {
  Engine engine;
  engine.define("add", [](int64_t a, int64_t b) { return a + b; });
  engine.define("small", [](int8_t x) { return x; });
  CHECK(error_of(engine, "(add 1 \"x\")") == "add: argument 2 (int64_t): expected an integer, got \"x\"");
  CHECK(error_of(engine, "(add 1)") == "add: expected 2 arguments, got 1");
  CHECK(error_of(engine, "(add 1 2 3)") == "add: expected 2 arguments, got 3");
  CHECK(error_of(engine, "(small 1000)") == "small: argument 1 (int8_t): expected an integer from -128 to 127, got 1000");
  // Scheme code can handle them.
  CHECK(engine.eval("(guard (e ((error-object? e) (error-object-message e))) (add 'a 1))").as<std::string>() ==
        "add: argument 1 (int64_t): expected an integer, got a");
  CHECK(engine.eval("(guard (e (#t 'caught)) (add 1))").to_string() == "caught");
}

TEST_CASE("optional and rest parameters", "[api][define]") {
  Engine engine;
  engine.define("greet", [](std::string name, std::optional<std::string> greeting) {
    return greeting.value_or("hello") + ", " + name;
  });
  engine.define("sum", [](quasi::Rest rest) {
    int64_t t = 0;
    for (const Value& v : rest.values) t += v.as<int64_t>();
    return t;
  });
  engine.define("tagged", [](std::string tag, const quasi::Rest& rest) { return tag + std::to_string(rest.values.size()); });
  CHECK(engine.eval("(greet \"ann\")").as<std::string>() == "hello, ann");
  CHECK(engine.eval("(greet \"bob\" \"hi\")").as<std::string>() == "hi, bob");
  CHECK(error_of(engine, "(greet)") == "greet: expected 1 to 2 arguments, got 0");
  CHECK(engine.eval("(sum)").as<int>() == 0);
  CHECK(engine.eval("(sum 1 2 3 4)").as<int>() == 10);
  CHECK(engine.eval("(apply sum (iota 100))").as<int>() == 4950);
  CHECK(engine.eval("(tagged \"n\" 'a 'b)").as<std::string>() == "n2");
  CHECK(error_of(engine, "(sum 1 'x)") == "sum: expected an integer, got x");
}

TEST_CASE("a C++ exception crosses into Scheme and back", "[api][define][errors]") {
  Engine engine;
  engine.define("risky", [](int64_t n) -> int64_t {
    if (n < 0) throw std::invalid_argument("negative input");
    return n;
  });
  engine.define("strict", [](int64_t n) -> int64_t {
    if (n > 10) throw quasi::Error("too big", "range");
    return n;
  });
  engine.define("odd-throw", []() -> int { throw 42; });
  // Scheme catches it like any error.
  CHECK(engine.eval("(guard (e ((error-object? e) (error-object-message e))) (risky -1))").as<std::string>() ==
        "risky: negative input");
  // Not caught: it reaches C++ as quasi::Error, with the Scheme location.
  try {
    engine.eval("(define (f x) (+ 1 (risky x)))\n(f -5)", "script.scm");
    FAIL("no error");
  } catch (const quasi::Error& e) {
    CHECK(e.message() == "risky: negative input");
    CHECK(e.location() == "script.scm:1:20");
    CHECK(std::string(e.what()) == "script.scm:1:20: error: risky: negative input");
    REQUIRE_FALSE(e.backtrace().empty());
    CHECK(e.backtrace()[0] == "f");
  }
  try {
    engine.eval("(strict 11)");
    FAIL("no error");
  } catch (const quasi::Error& e) {
    CHECK(e.kind() == "range");
    CHECK(e.message() == "strict: too big");
  }
  CHECK(error_of(engine, "(odd-throw)") == "odd-throw: unknown C++ exception");
  // Still usable afterwards.
  CHECK(engine.eval("(risky 5)").as<int>() == 5);
  // dynamic-wind unwinds through the host call.
  CHECK(engine.eval(R"(
    (define log '())
    (guard (e (#t (set! log (cons 'handled log))))
      (dynamic-wind (lambda () (set! log (cons 'in log)))
                    (lambda () (risky -1))
                    (lambda () (set! log (cons 'out log)))))
    (reverse log))").to_string() == "(in out handled)");
}

TEST_CASE("callbacks call back into Scheme", "[api][define]") {
  Engine engine;
  engine.define("apply-twice", [](std::function<int64_t(int64_t)> f, int64_t x) { return f(f(x)); });
  engine.define("call-with-list", [&engine](Value f) { return engine.call(f, std::vector<int>{1, 2, 3}); });
  engine.define("each", [](std::function<void(std::string)> f, std::vector<std::string> xs) {
    for (auto& x : xs) f(x);
  });
  CHECK(engine.eval("(apply-twice (lambda (x) (* x 3)) 2)").as<int>() == 18);
  CHECK(engine.eval("(call-with-list length)").as<int>() == 3);
  CHECK(engine.eval("(let ((n 0)) (each (lambda (s) (set! n (+ n (string-length s)))) '(\"ab\" \"c\")) n)").as<int>() == 3);
  // An error in the callback: Scheme handlers around the outer call see it.
  CHECK(engine.eval("(guard (e (#t 'inner-error)) (apply-twice (lambda (x) (car x)) 2))").to_string() == "inner-error");
  // Not handled: the host sees it once, at the outer call.
  CHECK_THROWS_AS(engine.eval("(apply-twice (lambda (x) (error \"boom\" x)) 2)"), quasi::Error);
  // Escaping with a continuation through the host frames.
  CHECK(engine.eval("(call/cc (lambda (k) (apply-twice (lambda (x) (k 'escaped)) 1)))").to_string() == "escaped");
  // Deep recursion through the host boundary.
  engine.eval("(define (down n) (if (= n 0) 0 (+ 1 (apply-twice (lambda (x) x) (down (- n 1))))))");
  CHECK(engine.eval("(down 200)").as<int>() == 200);
  // A C++ std::function handed to Scheme.
  std::function<int(int)> inc = [](int x) { return x + 1; };
  engine.set("inc", inc);
  CHECK(engine.eval("(inc 41)").as<int>() == 42);
  Value square = engine.function("square", [](double x) { return x * x; });
  CHECK(engine.call("map", square, std::vector<double>{1, 2}).to_string() == "(1.0 4.0)");
}

TEST_CASE("exit from a registered callback and from Scheme", "[api][errors]") {
  Engine engine;
  engine.define("quit", [](int code) -> int { throw quasi::Exit(code); });
  try {
    engine.eval("(quit 4)");
    FAIL("no exit");
  } catch (const quasi::Exit& e) {
    CHECK(e.status() == 4);
  }
  try {
    engine.eval("(exit 3)");
    FAIL("no exit");
  } catch (const quasi::Exit& e) {
    CHECK(e.status() == 3);
  }
  CHECK(engine.eval("(+ 1 1)").as<int>() == 2);
}

namespace {
struct Point {
  double x = 0, y = 0;
  Point() = default;
  Point(double x_, double y_) : x(x_), y(y_) {}
  double norm() const { return std::sqrt(x * x + y * y); }
  void move(double dx, double dy) {
    x += dx;
    y += dy;
  }
  Point scaled(double k) const { return {x * k, y * k}; }
};

struct Counter {
  static inline int alive = 0;
  int n = 0;
  Counter() { alive++; }
  Counter(const Counter& o) : n(o.n) { alive++; }
  ~Counter() { alive--; }
};
}  // namespace

TEST_CASE("C++ types exposed to Scheme", "[api][foreign]") {
  Engine engine;
  engine.define_type<Point>("point")
      .constructor<double, double>()
      .method("x", &Point::x)
      .method("y", &Point::y)
      .method("norm", &Point::norm)
      .method("move!", &Point::move)
      .method("scaled", &Point::scaled)
      .method("sum", [](const Point& p) { return p.x + p.y; });
  engine.define("point-distance", [](const Point& a, const Point& b) {
    return std::hypot(a.x - b.x, a.y - b.y);
  });
  CHECK(engine.eval("(point-norm (make-point 3 4))").as<double>() == 5.0);
  CHECK(engine.eval("(make-point 1 2)").to_string() == "#<point>");
  CHECK(engine.eval("(point? (make-point 1 2))").as<bool>());
  CHECK_FALSE(engine.eval("(point? 5)").as<bool>());
  CHECK(engine.eval("(let ((p (make-point 1 2))) (point-move! p 1 1) (list (point-x p) (point-y p)))").to_string() ==
        "(2.0 3.0)");
  CHECK(engine.eval("(point-x (point-scaled (make-point 1 2) 10))").as<double>() == 10.0);
  CHECK(engine.eval("(point-sum (make-point 1 2))").as<double>() == 3.0);
  CHECK(engine.eval("(point-distance (make-point 0 0) (make-point 3 4))").as<double>() == 5.0);
  CHECK(error_of(engine, "(point-norm 5)") == "point-norm: argument 1 (Point): expected a point, got 5");

  // Objects made in C++ and handed to Scheme, and back.
  engine.set("origin", engine.make(Point(0, 0)));
  CHECK(engine.eval("(point-norm origin)").as<double>() == 0.0);
  Value p = engine.eval("(make-point 6 8)");
  CHECK(p.is<Point>());
  CHECK(p.type_name() == "point");
  CHECK(p.as<Point&>().norm() == 10.0);
  p.as<Point&>().x = 0;
  CHECK(engine.call("point-x", p).as<double>() == 0.0);
  CHECK(p.as<Point*>()->y == 8.0);
  CHECK(p.as<Point>().y == 8.0);  // a copy

  // Shared ownership and host-owned objects.
  auto shared = std::make_shared<Point>(1, 1);
  engine.set("shared", shared);
  engine.eval("(point-move! shared 1 0)");
  CHECK(shared->x == 2.0);
  CHECK(engine.get<std::shared_ptr<Point>>("shared") == shared);
  Point local(5, 5);
  engine.set("borrowed", &local);
  engine.eval("(point-move! borrowed -5 -5)");
  CHECK(local.x == 0.0);
}

TEST_CASE("objects owned by Scheme are destroyed after they become garbage", "[api][foreign][gc]") {
  {
    Engine engine;
    engine.define_type<Counter>("counter").constructor<>().method("n", &Counter::n);
    engine.eval("(define (churn k) (if (> k 0) (begin (make-counter) (churn (- k 1)))))");
    engine.eval("(churn 1000)");
    Value kept = engine.eval("(make-counter)");
    for (int i = 0; i < 4; i++) Engine::collect_garbage();
    // Conservative collection may keep a few, never most.
    CHECK(Counter::alive < 100);
    CHECK(Counter::alive >= 1);
    CHECK(kept.is<Counter>());
  }
}
