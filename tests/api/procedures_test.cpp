// Scheme procedures as std::function (the engine found from the Value), the lifetime of values,
// procedures and registered functions against their engine, and range-for over Values.
// Public header only.
#include <quasi/quasi.hpp>

#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using quasi::Engine;
using quasi::Value;

TEST_CASE("a procedure Value converts to std::function", "[api][procedures]") {
  Engine engine;
  engine.eval("(define (adder n) (lambda (x) (+ x n)))");
  auto add5 = engine.call("adder", 5).as<std::function<int(int)>>();
  CHECK(add5(1) == 6);
  CHECK(add5(-5) == 0);
  auto shout = engine.eval("(lambda (s) (string-append s \"!\"))").as<std::function<std::string(std::string)>>();
  CHECK(shout("hi") == "hi!");
  auto log = engine.get<std::function<void(std::string)>>("display");
  CHECK_NOTHROW(log(""));
  // Values and containers cross too.
  auto pairs = engine.eval("(lambda (xs) (map (lambda (x) (* x x)) xs))")
                   .as<std::function<std::vector<int>(std::vector<int>)>>();
  CHECK(pairs({1, 2, 3}) == std::vector<int>{1, 4, 9});
  auto raw = engine.eval("list").as<std::function<Value(Value, Value)>>();
  CHECK(raw(Value(1), Value("a")).to_string() == "(1 \"a\")");
  // A procedure inside a list keeps the engine too.
  Value procs = engine.eval("(list car cdr)");
  CHECK(procs[1].as<std::function<Value(Value)>>()(engine.eval("'(1 2)")).to_string() == "(2)");
  // Not a procedure.
  CHECK_THROWS_WITH(engine.eval("42").as<std::function<int()>>(), "expected a procedure, got 42");
  CHECK_FALSE(engine.eval("42").is<std::function<int()>>());
  CHECK(engine.eval("car").is<std::function<int()>>());
}

TEST_CASE("calls through std::function report errors with the procedure", "[api][procedures][errors]") {
  Engine engine;
  auto f = engine.eval("(define (name-of x) (if (> x 0) 'positive \"not positive\")) name-of")
               .as<std::function<std::string(int)>>();
  CHECK(f(1) == "positive");
  auto g = engine.get<std::function<int(int)>>("name-of");
  try {
    g(1);
    FAIL("no error");
  } catch (const quasi::Error& e) {
    CHECK(e.message() == "result of #<procedure name-of> (int32_t): expected an integer, got positive");
    CHECK(e.kind() == "type");
  }
  // A Scheme error inside reaches the caller unchanged.
  auto h = engine.eval("(lambda (x) (car x))").as<std::function<int(int)>>();
  try {
    h(5);
    FAIL("no error");
  } catch (const quasi::Error& e) {
    CHECK(e.message() == "car: expected a pair, got 5");
  }
}

TEST_CASE("a std::function keeps its procedure alive, not its engine", "[api][procedures][lifetime]") {
  std::function<int(int)> f;
  Value kept;
  {
    Engine engine;
    f = engine.eval("(let ((k 10)) (lambda (x) (* k x)))").as<std::function<int(int)>>();
    kept = engine.eval("(list 1 2)");
    CHECK(kept.engine() == &engine);
    for (int i = 0; i < 3; i++) {
      engine.eval("(let loop ((i 0) (acc '())) (if (< i 20000) (loop (+ i 1) (cons i acc)) 'done))");
      Engine::collect_garbage();
    }
    CHECK(f(4) == 40);  // the closure survived the collections
  }
  // The engine is gone: the call is refused, not a crash.
  try {
    f(1);
    FAIL("no error");
  } catch (const quasi::Error& e) {
    CHECK(std::string(e.what()).find("engine of this procedure has been destroyed") != std::string::npos);
  }
  // Values stay valid data.
  CHECK(kept.engine() == nullptr);
  CHECK(kept.to_string() == "(1 2)");
  CHECK(Value(42).engine() == nullptr);
  CHECK(Value::list({Value(1)}).engine() == nullptr);
}

namespace {
struct Tracker {
  static inline int alive = 0;
  Tracker() { alive++; }
  Tracker(const Tracker&) { alive++; }
  ~Tracker() { alive--; }
};
}  // namespace

TEST_CASE("registered functions die with their procedure or their engine", "[api][procedures][lifetime]") {
  {
    Engine engine;
    // Redefining a function makes the old one garbage: it is destroyed, not kept for the
    // engine's lifetime.
    for (int i = 0; i < 200; i++) engine.define("step", [t = Tracker()](int x) { return x + 1; });
    // Anonymous functions handed to Scheme likewise.
    for (int i = 0; i < 200; i++) engine.make(std::function<int(int)>([t = Tracker()](int x) { return x; }));
    for (int i = 0; i < 4; i++) Engine::collect_garbage();
    CHECK(Tracker::alive < 40);  // conservative collection may keep a few
    CHECK(Tracker::alive >= 1);  // the one bound to `step`
    CHECK(engine.eval("(step 1)").as<int>() == 2);
  }
  CHECK(Tracker::alive == 0);  // the engine's destruction released the rest

  // A host procedure that outlives its engine refuses calls from another engine.
  Value orphan;
  {
    Engine engine;
    engine.define("host-inc", [](int x) { return x + 1; });
    orphan = engine.get("host-inc");
  }
  Engine other;
  try {
    other.call(orphan, 1);
    FAIL("no error");
  } catch (const quasi::Error& e) {
    CHECK(e.message() == "host-inc: the engine of this procedure has been destroyed");
  }
}

TEST_CASE("range-for over lists and vectors", "[api][values][iteration]") {
  Engine engine;
  std::vector<int> seen;
  for (Value x : engine.eval("'(1 2 3)")) seen.push_back(x.as<int>());
  CHECK(seen == std::vector<int>{1, 2, 3});
  seen.clear();
  for (const Value& x : engine.eval("(vector 4 5)")) seen.push_back(x.as<int>());
  CHECK(seen == std::vector<int>{4, 5});
  int n = 0;
  for (Value x : engine.eval("'()")) n += x.as<int>() + 1;
  for (Value x : engine.eval("#()")) n += x.as<int>() + 1;
  CHECK(n == 0);
  // Long lists are walked once, not once per element.
  Value big = engine.eval("(iota 100000)");
  int64_t sum = 0;
  for (Value x : big) sum += x.as<int64_t>();
  CHECK(sum == 4999950000);
  // Elements keep their engine.
  for (Value p : engine.eval("(list (lambda (x) (* 2 x)))")) CHECK(p.as<std::function<int(int)>>()(21) == 42);
  // Not a list or vector.
  CHECK_THROWS_WITH(engine.eval("'(1 . 2)").begin(), "expected a list or vector, got (1 . 2)");
  CHECK_THROWS_AS(engine.eval("\"abc\"").begin(), quasi::Error);
  // Scheme code cutting the list short during the loop ends the loop there.
  engine.eval("(define items (list 1 2 3 4))");
  engine.define("cut!", [&engine] { engine.eval("(set-cdr! (cdr items) '())"); });
  seen.clear();
  for (Value x : engine.get("items")) {
    seen.push_back(x.as<int>());
    if (seen.size() == 1) engine.call("cut!");
  }
  CHECK(seen == std::vector<int>{1, 2});
  // Standard algorithms work on the iterators.
  Value v = engine.eval("'(3 1 2)");
  CHECK(std::distance(v.begin(), v.end()) == 3);
}
