// Several engines at once, one per thread, on threads the engine did not start. Public header only.
#include <quasi/quasi.hpp>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

using quasi::Engine;
using quasi::Value;

TEST_CASE("eight engines run scripts concurrently", "[api][threads]") {
  constexpr int kThreads = 8;
  const auto duration = std::chrono::milliseconds(1500);
  std::atomic<int> failures{0};
  std::atomic<long> rounds{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      try {
        Engine engine;  // made on this thread: no registration by the host
        engine.define("host-scale", [t](int64_t x) { return x * (t + 1); });
        engine.eval(R"(
          (define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
          (define (work n)
            (let* ((v (list->vector (map (lambda (i) (host-scale i)) (iota n))))
                   (s (with-output-to-string (lambda () (write (vector->list v))))))
              (+ (fib 15) (string-length s) (apply + (vector->list v)))))
          (define table (make-parameter 0)))");
        Value kept = engine.eval("(list 'thread (make-string 10 #\\t))");
        int64_t expected = -1;
        while (std::chrono::steady_clock::now() - start < duration) {
          int64_t got = engine.call("work", 200).as<int64_t>();
          if (expected < 0) expected = got;
          if (got != expected) failures++;
          // parameterize is per engine: another thread's binding must never show up here.
          int64_t p = engine.eval("(parameterize ((table " + std::to_string(t) + ")) (table))").as<int64_t>();
          if (p != t) failures++;
          if (rounds++ % 16 == 0) Engine::collect_garbage();
        }
        if (kept.to_string() != "(thread \"tttttttttt\")") failures++;
        if (engine.call("host-scale", 1).as<int>() != t + 1) failures++;
      } catch (const std::exception& e) {
        errors[t] = e.what();
        failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (auto& e : errors) INFO(e);
  CHECK(failures.load() == 0);
  CHECK(rounds.load() >= kThreads);
}

TEST_CASE("an engine is used by one thread at a time and may move", "[api][threads]") {
  Engine engine;
  engine.eval("(define x 1)");
  std::thread([&] { engine.eval("(set! x 2)"); }).join();
  CHECK(engine.eval("x").as<int>() == 2);

  // While it runs on one thread, another is refused instead of racing.
  engine.set_time_limit(std::chrono::milliseconds(2000));
  std::atomic<bool> started{false};
  std::thread runner([&] {
    engine.define("started!", [&] { started = true; });
    try {
      engine.eval("(started!) (let loop () (loop))");
    } catch (const quasi::Error&) {
    }
  });
  while (!started) std::this_thread::yield();
  CHECK_THROWS_AS(engine.eval("1"), quasi::Error);
  engine.interrupt();
  runner.join();
  engine.set_time_limit(std::chrono::milliseconds(0));
  CHECK(engine.eval("x").as<int>() == 2);
}

TEST_CASE("values cross threads", "[api][threads]") {
  Value made_here = std::vector<std::string>{"a", "b"};
  Value from_thread;
  std::thread([&] {
    Engine engine;
    from_thread = engine.call("append", made_here, std::vector<std::string>{"c"});
  }).join();
  Engine::collect_garbage();
  CHECK(from_thread.to_string() == "(\"a\" \"b\" \"c\")");
}
