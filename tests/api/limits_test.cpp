// Limits inside one long primitive call (issue 8): an engine's time, memory and interrupt limits
// stop a single primitive that runs long or allocates much (make-list, make-vector,
// string-append, big numbers, equal?, macro expansion), a huge object is refused before it is
// made, and the memory limit counts the engine's own allocation only. Work here would take
// minutes or all memory without the limits; the limits are small, so the tests are quick.
#include <quasi/quasi.hpp>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "support.hpp"

using quasi::Engine;
using api_test::caught;
using namespace std::chrono_literals;

namespace {
std::chrono::milliseconds since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("limits: a memory limit holds inside one primitive call", "[api][limits][hostile]") {
  Engine::Options o = Engine::Options::sandboxed();
  o.memory_limit = 64 << 20;
  o.time_limit = 20s;  // a safety net: each case must stop on memory, long before
  Engine engine(o);
  for (const char* code : {"(make-list 4611686018427387903)", "(make-vector 100000000)",
                           "(let loop ((i 0)) (if (< i 10) (begin (make-vector 100000000) (loop (+ i 1)))))",
                           "(make-string 1000000000 #\\a)", "(make-bytevector 1000000000)",
                           "(let loop ((s \"ab\")) (loop (string-append s s)))",
                           "(vector->list (make-vector 5000000 0))", "(list->vector (make-list 20000000 0))"}) {
    INFO(code);
    auto t0 = std::chrono::steady_clock::now();
    quasi::Error e = caught(engine, code);
    INFO(e.what());
    CHECK(e.kind() == "limit");
    CHECK(e.message() == "allocation limit exceeded");
    CHECK(since(t0) < 5s);
  }
  // A refused object is placed at the call.
  CHECK(std::string(caught(engine, "\n  (make-vector 100000000)").what()) ==
        "<string>:2:3: error: allocation limit exceeded");
  CHECK(engine.eval("(length (make-list 1000 0))").as<int>() == 1000);
}

TEST_CASE("limits: time and interrupt() hold inside one primitive call", "[api][limits][hostile]") {
  Engine::Options o = Engine::Options::sandboxed();
  o.time_limit = 200ms;
  Engine engine(o);
  for (const char* code : {"(length (make-list 4611686018427387903))",
                           "(let ((v (make-vector 20000000 1))) (vector->list v) (vector->list v) (vector->list v))"}) {
    INFO(code);
    auto t0 = std::chrono::steady_clock::now();
    quasi::Error e = caught(engine, code);
    CHECK(e.kind() == "limit");
    CHECK(e.message() == "time limit exceeded");
    CHECK(since(t0) < 3s);
  }
  CHECK(engine.eval("(+ 1 2)").as<int>() == 3);
  // interrupt() from another thread, during one long primitive call.
  Engine::Options o2 = Engine::Options::sandboxed();
  o2.time_limit = 60s;  // a safety net
  Engine interrupted(o2);
  std::thread stopper([&] {
    std::this_thread::sleep_for(100ms);
    interrupted.interrupt();
  });
  auto t0 = std::chrono::steady_clock::now();
  quasi::Error e = caught(interrupted, "(length (make-list 4611686018427387903))");
  stopper.join();
  CHECK(e.kind() == "interrupt");
  CHECK(since(t0) < 5s);
}

TEST_CASE("limits: memory limits are per engine, no cross-talk between threads", "[api][limits][hostile]") {
  Engine::Options o = Engine::Options::sandboxed();
  o.memory_limit = 8 << 20;
  Engine limited(o);
  std::atomic<bool> stop{false};
  std::thread churn([&] {
    Engine busy;
    while (!stop.load())
      busy.eval("(let loop ((i 0)) (if (< i 20000) (begin (make-vector 100 i) (loop (+ i 1)))))");
  });
  // This engine's evaluations allocate almost nothing while the other thread allocates hundreds
  // of megabytes: a process-wide count would stop them.
  auto t0 = std::chrono::steady_clock::now();
  int rounds = 0;
  std::string failure;
  while (since(t0) < 1000ms) {
    try {
      limited.eval("(let loop ((i 0)) (if (< i 2000) (loop (+ i 1)) i))");
      std::this_thread::sleep_for(20ms);
      rounds++;
    } catch (const quasi::Error& err) {
      failure = err.what();
      break;
    }
  }
  stop.store(true);
  churn.join();
  CHECK(failure == "");
  CHECK(rounds > 10);
  // And its own allocation still counts.
  CHECK(caught(limited, "(make-vector 10000000)").kind() == "limit");
}

TEST_CASE("limits: big-number primitives stop at the time and memory limits", "[api][limits][hostile]") {
  Engine engine(Engine::Options::sandboxed());
  // About 63 million bits: its decimal digits take GMP's mpz_get_str many seconds in one call.
  engine.eval("(define big (let ((a (expt 3 10000000))) (* (* a a) (* a a))))");
  engine.eval("(define digits (make-string 20000000 #\\7))");
  engine.set_time_limit(100ms);
  for (const char* code : {"(number->string big)", "(string->number digits)", "(let loop ((x 3)) (loop (* x x)))",
                           "(let ((a (expt 3 10000000)) (b (expt 3 10000000)) (c (expt 3 10000000))) (= a b c))"}) {
    INFO(code);
    auto t0 = std::chrono::steady_clock::now();
    quasi::Error e = caught(engine, code);
    INFO(e.what());
    CHECK(e.kind() == "limit");
    CHECK(e.message().find("time limit exceeded") != std::string::npos);
    CHECK(since(t0) < 2s);
  }
  CHECK(contains(caught(engine, "(number->string big)").what(), "number->string: time limit exceeded"));
  // A result over the memory limit is refused before it is computed.
  engine.set_time_limit(0ms);
  engine.set_memory_limit(4 << 20);
  for (const char* code : {"(* big big)", "(expt 3 10000000)", "(+ big 1)", "(quotient (* big 1) 7)"}) {
    INFO(code);
    auto t0 = std::chrono::steady_clock::now();
    quasi::Error e = caught(engine, code);
    INFO(e.what());
    CHECK(e.kind() == "limit");
    CHECK(e.message().find("allocation limit exceeded") != std::string::npos);
    CHECK(since(t0) < 1s);
  }
  CHECK(contains(caught(engine, "(* big big)").what(), "*: allocation limit exceeded"));
  engine.set_memory_limit(0);
  CHECK(engine.eval("(= (string->number (number->string (expt 7 300000))) (expt 7 300000))").as<bool>());
}

TEST_CASE("limits: runaway macro expansion stops at the limits", "[api][limits][hostile]") {
  Engine::Options o = Engine::Options::sandboxed();
  o.time_limit = 200ms;
  o.memory_limit = size_t(256) << 20;
  Engine engine(o);
  for (const char* code : {"(define-syntax f (syntax-rules () ((_ x ...) (f x ... x ...)))) (f 1)",
                           "(define-syntax f (syntax-rules () ((_ x) (f (x x))))) (f 1)",
                           "(define-syntax f (syntax-rules () ((_ x ...) (list (f x ... x ...))))) (f 1)",
                           "(define-syntax f (syntax-rules () ((_ x) (list (f (x x)) (f (x x)))))) (f 1)"}) {
    INFO(code);
    auto t0 = std::chrono::steady_clock::now();
    quasi::Error e = caught(engine, code);
    INFO(e.what());
    // A limit, or the expander's own bound on rewrites and nesting, whichever comes first.
    CHECK((e.kind() == "limit" || contains(e.message(), "does not terminate") ||
           contains(e.message(), "nesting too deep")));
    CHECK(since(t0) < 3s);
  }
  CHECK(engine.eval("(+ 1 2)").as<int>() == 3);
  // Without limits, an expansion that never ends is still an error, with the form's location.
  Engine plain;
  std::string msg = caught(plain, "(define-syntax g (syntax-rules () ((_) (g))))\n(g)").what();
  CHECK(contains(msg, "<string>:2:1: error:"));
  CHECK(contains(msg, "macro expansion does not terminate"));
  CHECK(contains(caught(plain, "(define-syntax h (syntax-rules () ((_ x) (list (h x))))) (h 1)").what(),
                 "nesting too deep"));
}

TEST_CASE("limits: macro expansion counts toward the step limit", "[api][limits][hostile]") {
  Engine::Options o = Engine::Options::sandboxed();
  o.step_limit = 200000;
  o.memory_limit = size_t(512) << 20;  // a safety net: the step limit must come first
  Engine engine(o);
  for (const char* code : {"(define-syntax f (syntax-rules () ((_ x ...) (f x ... x ...)))) (f 1)",
                           "(define-syntax f (syntax-rules () ((_ x ...) (list (f x ... x ...))))) (f 1)"}) {
    INFO(code);
    auto t0 = std::chrono::steady_clock::now();
    quasi::Error e = caught(engine, code);
    INFO(e.what());
    CHECK(e.kind() == "limit");
    CHECK(e.message() == "step limit exceeded");
    CHECK(since(t0) < 3s);
  }
  // Ordinary macro use is far below it.
  CHECK(engine.eval("(let-values (((a b) (values 1 2))) (do ((i 0 (+ i 1))) ((= i 10) (+ a b))))").as<int>() == 3);
}

TEST_CASE("limits: big-number conversions in checked steps give GMP's digits", "[api][limits]") {
  // With a time limit set, number->string and string->number of more than 100,000 digits go by
  // divide and conquer (core/numbers.cpp); without, by GMP in one call. Both must agree, and the
  // zeros inside (padding between the halves) must survive.
  Engine plain;
  Engine::Options o;
  o.time_limit = 60s;
  Engine limited(o);
  for (const char* code : {"(number->string (expt 7 400000))", "(number->string (- (expt 7 400000)))",
                           "(number->string (expt 10 250000))", "(number->string (- (expt 10 250000) 1))",
                           "(number->string (+ (expt 10 300000) 12345))",
                           "(number->string (/ (expt 7 200000) (expt 3 200000)))",
                           "(number->string (* (expt 2 1000000) (expt 10 150000)))"}) {
    INFO(code);
    std::string a = plain.eval(code).to_string(), b = limited.eval(code).to_string();
    CHECK(a.size() == b.size());
    CHECK(a == b);
  }
  CHECK(limited.eval("(let ((x (+ (expt 10 300000) 12345))) (= x (string->number (number->string x))))").as<bool>());
  CHECK(limited.eval("(let ((x (expt 7 400000))) (= x (string->number (number->string x))))").as<bool>());
  CHECK(limited.eval("(= (string->number (string-append \"1\" (make-string 250000 #\\0))) (expt 10 250000))").as<bool>());
  CHECK(limited.eval("(= (expt 3 1000000) (* (expt 3 500000) (expt 3 500000)))").as<bool>());
  CHECK(limited.eval("(= (expt -3 999999) (- (* 3 (expt 3 499999) (expt 3 499999))))").as<bool>());
  CHECK(limited.eval("(= (expt 2/3 300001) (/ (expt 2 300001) (expt 3 300001)))").as<bool>());
}

TEST_CASE("limits: a limit reached while a new symbol is interned", "[api][limits][hostile]") {
  // The check runs inside allocations, some made under the symbol table's lock: it must not
  // intern (that deadlocked), and the table must stay intact.
  Engine::Options o = Engine::Options::sandboxed();
  o.memory_limit = 4 << 20;
  o.time_limit = 30s;  // a safety net
  Engine engine(o);
  for (int run = 0; run < 6; run++) {
    std::string code = "(let loop ((i 0)) (string->symbol (string-append \"limits-sym-" + std::to_string(run) +
                       "-\" (number->string i))) (loop (+ i 1)))";
    quasi::Error e = caught(engine, code);
    CHECK(e.kind() == "limit");
  }
  CHECK(engine.eval("(eq? (string->symbol \"limits-sym-0-7\") 'limits-sym-0-7)").as<bool>());
}

TEST_CASE("limits: write of a hugely shared structure stops at the limits", "[api][limits][hostile]") {
  // 2^60 leaves in 60 pairs: write unfolds the sharing (only write-shared labels it).
  const char* code =
      "(let loop ((i 0) (x '(a))) (if (< i 60) (loop (+ i 1) (cons x x)) (write x (open-output-string))))";
  Engine::Options o = Engine::Options::sandboxed();
  o.time_limit = 200ms;
  Engine timed(o);
  auto t0 = std::chrono::steady_clock::now();
  quasi::Error e = caught(timed, code);
  CHECK(e.kind() == "limit");
  CHECK(contains(e.message(), "time limit exceeded"));
  CHECK(since(t0) < 3s);
  Engine::Options m = Engine::Options::sandboxed();
  m.memory_limit = 32 << 20;
  m.time_limit = 60s;  // a safety net
  Engine bounded(m);
  t0 = std::chrono::steady_clock::now();
  e = caught(bounded, code);
  CHECK(e.kind() == "limit");
  CHECK(contains(e.message(), "allocation limit exceeded"));
  CHECK(since(t0) < 10s);
}

TEST_CASE("limits: the VM's stacks count toward the memory limit", "[api][limits][hostile]") {
  // Deep recursion that allocates nothing on the heap: without the stacks charged, it ran until
  // the 512 MB value stack overflowed, whatever the memory limit.
  Engine::Options o = Engine::Options::sandboxed();
  o.memory_limit = 16 << 20;
  o.time_limit = 20s;
  Engine engine(o);
  engine.eval("(define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1)))))");
  engine.eval("(define (deep-apply n) (if (= n 0) 0 (+ 1 (apply deep-apply (list (- n 1))))))");
  for (const char* code : {"(deep 100000000)", "(deep-apply 100000000)"}) {
    INFO(code);
    quasi::Error e = caught(engine, code);
    INFO(e.what());
    CHECK(e.kind() == "limit");
    CHECK(e.message() == "allocation limit exceeded");
  }
  // What stays under the limit still runs, in later evaluations too.
  CHECK(engine.eval("(deep 100000)").as<int>() == 100000);
  CHECK(engine.eval("(deep 100000)").as<int>() == 100000);
  // Without a memory limit the same recursion is a stack overflow, as before.
  Engine unlimited;
  unlimited.eval("(define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1)))))");
  CHECK(caught(unlimited, "(deep 100000000)").kind() == "stack-overflow");
}
