// Tests of the JIT (lib/jit): every instruction family run by the interpreter alone and by
// machine code, with the same results and the same error messages.
//
// Each differential check evaluates the same definitions and the same call three times, each in
// a fresh engine:
//   off    (jit-mode 'off): the interpreter alone; the reference
//   on     the procedures named by the test compiled with (jit-compile! ...) (and checked with
//          (jit-compiled? ...)), then the call run under (jit-mode 'on)
//   force  (jit-mode 'force): every procedure compiled the first time it runs (nested lambdas,
//          top-level forms and the Scheme-level library included)
// and compares the written results, or "error: " with the error's full report (location and
// message), its kind and its backtrace, or "exit N". The three runs are
// made once with the optimizer's passes on and once with them off (QUASI_PASSES=off), which
// leaves more of the raw instruction set in the code (br-not, for instance).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine_bridge.hpp"
#include "quasi/error.hpp"
#include "vm/vm.hpp"
#include "vm/vm_impl.hpp"

namespace {

namespace qb = quasi::bridge;

// One engine, destroyed with the object: no JIT mode leaks from one test into another.
struct JitEngine {
  // When set, run on every new engine (HostProcedures below).
  static inline void (*setup)(qb::Engine*) = nullptr;

  qb::Engine* e;
  JitEngine() : e(qb::create_engine()) {
    if (setup) setup(e);
    run("(jit-mode 'on)");
  }
  ~JitEngine() { qb::destroy_engine(e); }
  JitEngine(const JitEngine&) = delete;
  JitEngine& operator=(const JitEngine&) = delete;

  std::string run(const std::string& code) { return qb::write(qb::eval(e, code, "<test>"), false); }
  std::string display(const std::string& code) { return qb::write(qb::eval(e, code, "<test>"), true); }
  // The written value, or "error: " followed by the message (location included), the error's
  // kind and its backtrace; or "exit N".
  std::string outcome(const std::string& code) {
    try {
      return run(code);
    } catch (quasi::Error& err) {
      std::string r = std::string("error: ") + err.what() + " [kind " + err.kind() + "] [backtrace";
      for (const std::string& b : err.backtrace()) r += " " + b;
      return r + "]";
    } catch (quasi::Exit& ex) {
      return "exit " + std::to_string(ex.status());
    }
  }
  int64_t high_water() { return qb::vm_of(e).impl->high_water; }
};

struct Outcomes {
  std::string off, on, force;
};

// QUASI_PASSES=off while it lives: engines created meanwhile compile without the optimizer's
// passes (lib/passes/README.md), so more of the raw instruction set shows up (br-not, not...).
class PassesOff {
 public:
  PassesOff() {
    const char* old = std::getenv("QUASI_PASSES");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("QUASI_PASSES", "off", 1);
  }
  ~PassesOff() {
    if (had_) setenv("QUASI_PASSES", old_.c_str(), 1);
    else unsetenv("QUASI_PASSES");
  }
  PassesOff(const PassesOff&) = delete;
  PassesOff& operator=(const PassesOff&) = delete;

 private:
  bool had_ = false;
  std::string old_;
};

// `defs` evaluated, then `call`, in the three modes (see the top of the file), in engines with
// the optimizer's passes as configured (`no_passes` false) or off. `compile` names expressions
// whose procedures get (jit-compile! ...) before the 'on run; with `must_compile` each of them
// must then be (jit-compiled? ...). Checks that the three outcomes agree and returns them.
Outcomes three_ways_once(const std::string& defs, const std::string& call, const std::vector<std::string>& compile,
                         bool must_compile, bool no_passes) {
  INFO("definitions: " << defs);
  INFO("call: " << call);
  INFO((no_passes ? "passes off" : "passes on"));
  Outcomes r;
  {
    JitEngine j;
    j.run("(jit-mode 'off)");
    if (!defs.empty()) j.run(defs);
    r.off = j.outcome(call);
  }
  {
    JitEngine j;
    j.run("(jit-mode 'off)");  // nothing is compiled behind the test's back while defining
    if (!defs.empty()) j.run(defs);
    for (const std::string& p : compile) {
      INFO("compiling " << p);
      std::string compiled = j.run("(jit-compile! " + p + ")");
      if (must_compile) {
        CHECK(compiled == "#t");
        CHECK(j.run("(jit-compiled? " + p + ")") == "#t");
      }
    }
    j.run("(jit-mode 'on)");
    r.on = j.outcome(call);
  }
  {
    JitEngine j;
    j.run("(jit-mode 'force)");
    if (!defs.empty()) j.run(defs);
    r.force = j.outcome(call);
  }
  INFO("off:   " << r.off);
  INFO("on:    " << r.on);
  INFO("force: " << r.force);
  CHECK(r.on == r.off);
  CHECK(r.force == r.off);
  return r;
}

// Three ways with the passes on, then three ways with them off; returns the first.
Outcomes three_ways(const std::string& defs, const std::string& call,
                    const std::vector<std::string>& compile = {"f"}, bool must_compile = true) {
  Outcomes r = three_ways_once(defs, call, compile, must_compile, false);
  PassesOff passes_off;
  three_ways_once(defs, call, compile, must_compile, true);
  return r;
}

// The interpreter's outcome, after checking that the JIT gives the same.
std::string same(const std::string& defs, const std::string& call,
                 const std::vector<std::string>& compile = {"f"}, bool must_compile = true) {
  return three_ways(defs, call, compile, must_compile).off;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The bytecode listing of `proc` after `defs` (to check a snippet compiles to the instruction
// a test means to exercise).
std::string bytecode(const std::string& defs, const std::string& proc, bool no_passes = false) {
  std::unique_ptr<PassesOff> passes_off;
  if (no_passes) passes_off = std::make_unique<PassesOff>();
  JitEngine j;
  j.run("(jit-mode 'off)");
  j.run(defs);
  return j.display("(disassemble " + proc + ")");
}

#define CHECK_BYTECODE(defs, proc, mnemonic) CHECK_BYTECODE_P(defs, proc, mnemonic, false)
#define CHECK_BYTECODE_P(defs, proc, mnemonic, no_passes)     \
  do {                                                        \
    std::string listing_ = bytecode(defs, proc, no_passes);   \
    INFO("bytecode of " << proc << ":\n" << listing_);        \
    CHECK(contains(listing_, std::string(" ") + (mnemonic) + " ")); \
  } while (0)

const std::string kBig62 = "(define max-fix (- (expt 2 62) 1)) (define min-fix (- (expt 2 62))) ";

}  // namespace

// ---- the Scheme interface -------------------------------------------------------------------

TEST_CASE("jit-mode reports and sets the mode", "[jit]") {
  {
    // A new engine starts in the process default (QUASI_JIT, "on" when unset).
    qb::Engine* e = qb::create_engine();
    std::string mode = qb::write(qb::eval(e, "(jit-mode)", "<test>"), false);
    const char* env = std::getenv("QUASI_JIT");
    if (!env || !*env) CHECK(mode == "on");
    CHECK((mode == "on" || mode == "off" || mode == "force"));
    qb::destroy_engine(e);
  }
  JitEngine j;
  CHECK(j.run("(jit-mode)") == "on");
  CHECK(j.run("(jit-mode 'off)") == "on");  // returns the old mode
  CHECK(j.run("(jit-mode)") == "off");
  CHECK(j.run("(jit-mode 'force)") == "off");
  CHECK(j.run("(jit-mode)") == "force");
  CHECK(j.run("(jit-mode 'on)") == "force");
  CHECK(j.run("(jit-mode)") == "on");
  CHECK(contains(j.outcome("(jit-mode 'fast)"), "jit-mode: expected one of the symbols off, on, force"));
  CHECK(contains(j.outcome("(jit-mode \"on\")"), "jit-mode"));
  CHECK(j.run("(jit-mode)") == "on");  // a refused mode changes nothing
}

TEST_CASE("jit-compiled? and jit-compile!", "[jit]") {
  JitEngine j;
  j.run("(jit-mode 'off)");
  j.run("(define (f x) (+ x 1))");
  CHECK(j.run("(jit-compiled? f)") == "#f");
  CHECK(j.run("(f 1)") == "2");
  CHECK(j.run("(jit-compiled? f)") == "#f");
  CHECK(j.run("(jit-compile! f)") == "#t");  // whatever the mode
  CHECK(j.run("(jit-compiled? f)") == "#t");
  CHECK(j.run("(jit-compile! f)") == "#t");  // again: nothing to do
  CHECK(j.run("(jit-compiled? car)") == "#f");
  CHECK(j.run("(jit-compiled? 42)") == "#f");
  CHECK(contains(j.outcome("(jit-compile! car)"), "jit-compile!: expected a compiled procedure"));
  CHECK(contains(j.outcome("(jit-compile! 'f)"), "jit-compile!"));
  j.run("(jit-mode 'on)");
  CHECK(j.run("(f 41)") == "42");
}

TEST_CASE("the mode decides what gets compiled", "[jit]") {
  SECTION("off: never") {
    JitEngine j;
    j.run("(jit-mode 'off)");
    j.run("(define (f x) (+ x 1)) (define (loop i) (if (< i 1000) (begin (f i) (loop (+ i 1)))))");
    j.run("(loop 0)");
    CHECK(j.run("(jit-compiled? f)") == "#f");
  }
  SECTION("on: once hot") {
    JitEngine j;
    j.run("(define (f x) (+ x 1)) (define (loop i) (if (< i 1000) (begin (f i) (loop (+ i 1)))))");
    CHECK(j.run("(f 1)") == "2");
    CHECK(j.run("(jit-compiled? f)") == "#f");
    j.run("(loop 0)");
    CHECK(j.run("(jit-compiled? f)") == "#t");
    CHECK(j.run("(jit-compiled? loop)") == "#t");
  }
  SECTION("force: at the first call") {
    JitEngine j;
    j.run("(jit-mode 'force)");
    j.run("(define (f x) (+ x 1))");
    CHECK(j.run("(jit-compiled? f)") == "#f");
    CHECK(j.run("(f 1)") == "2");
    CHECK(j.run("(jit-compiled? f)") == "#t");
  }
}

TEST_CASE("jit-disassemble lists x86-64 code", "[jit]") {
  JitEngine j;
  j.run("(jit-mode 'off)");
  j.run("(define (f x y) (if (< x y) (+ x y) (car x)))");
  std::string before = j.display("(jit-disassemble f)");
  CHECK(contains(before, "not compiled yet"));
  CHECK(contains(before, "mov"));
  CHECK(j.run("(jit-compile! f)") == "#t");
  std::string after = j.display("(jit-disassemble f)");
  INFO(after);
  CHECK(contains(after, "; f: "));
  CHECK(contains(after, "compiled ("));
  CHECK(contains(after, "bytes of machine code"));
  CHECK(contains(after, "mov"));
  CHECK(contains(after, "cmp"));
  CHECK(contains(after, "jo"));  // the fixnum overflow check of +
  CHECK(contains(j.outcome("(jit-disassemble car)"), "jit-disassemble: expected a compiled procedure"));
  j.run("(jit-mode 'on)");
  CHECK(j.run("(f 1 2)") == "3");
}

TEST_CASE("jit-log reports and sets the logging flag", "[jit]") {
  JitEngine j;
  std::string old = j.run("(jit-log)");
  CHECK((old == "#t" || old == "#f"));
  CHECK(j.run("(jit-log #f)") == old);
  CHECK(j.run("(jit-log)") == "#f");
  j.run("(jit-log " + old + ")");  // process-wide: restore it
  CHECK(j.run("(jit-log)") == old);
}

// ---- moves, constants, globals ----------------------------------------------------------------

TEST_CASE("jit: move and const", "[jit]") {
  std::string defs =
      "(define (f x y) (let ((a y) (b x))"
      "  (cons a (cons b (cons 'sym (cons \"str\" (cons 1.5 (cons #\\a (cons '(1 . 2)"
      "    (cons '#(1 2) (cons 12345678901234567890 '())))))))))))";
  CHECK_BYTECODE(defs, "f", "const");
  CHECK(same(defs, "(f 1 2)") == "(2 1 sym \"str\" 1.5 #\\a (1 . 2) #(1 2) 12345678901234567890)");
  CHECK(same("(define (f x) x)", "(list (f 1) (f 'a) (f '()) (f #f) (f 2.5) (f (expt 2 100)))") ==
        "(1 a () #f 2.5 1267650600228229401496703205376)");
}

TEST_CASE("jit: global reference, set! and define", "[jit]") {
  std::string defs = "(define g 1) (define (f x) (set! g (+ g x)) g)";
  CHECK_BYTECODE(defs, "f", "gref");
  CHECK_BYTECODE(defs, "f", "gset");
  CHECK(same(defs, "(list (f 1) (f 10) (f 100) g)") == "(2 12 112 112)");
  // A global redefined after the compilation is seen by the compiled code.
  CHECK(same("(define (h) 1) (define (f) (h))", "(let ((a (f))) (set! h (lambda () 2)) (list a (f)))") == "(1 2)");
  CHECK(same("(define (h) 1) (define (f) (h))", "(begin (define (h) 3) (f))") == "3");
  // Top-level define and set! inside forms that 'force compiles.
  CHECK(same("", "(begin (define zz 10) (set! zz (+ zz 1)) (define zz2 (* zz 2)) (list zz zz2))", {}) == "(11 22)");
}

TEST_CASE("jit: unbound globals", "[jit]") {
  std::string r = same("(define (f) undefined-variable-xyz)", "(f)");
  CHECK(contains(r, "unbound variable: undefined-variable-xyz"));
  // Defined later: the compiled code sees it.
  CHECK(same("(define (f) later-var)", "(begin (define later-var 7) (f))") == "7");
  r = same("(define (f) (set! undefined-abc 1) 'done)", "(f)");
  CHECK(contains(r, "undefined-abc"));
  CHECK(contains(r, "error: "));
  CHECK(same("(define (f) (set! later-var2 1) later-var2)", "(begin (define later-var2 0) (f))") == "1");
  // Caught by a handler around the compiled code.
  CHECK(same("(define (f) (+ 1 undefined-variable-xyz))",
             "(guard (e (#t (list 'caught (error-object-message e)))) (f))") ==
        "(caught \"unbound variable: undefined-variable-xyz\")");
}

// ---- closures, free variables, boxes ---------------------------------------------------------

TEST_CASE("jit: closures, free variables and boxes", "[jit]") {
  // The maker also assigns n, so n lives in a box (a counter whose maker does not: below).
  std::string defs =
      "(define (make-counter start) (let ((n start)) (if (eq? start 'reset) (set! n 0)) (lambda (d) (set! n (+ n d)) n)))";
  CHECK_BYTECODE(defs, "make-counter", "box");
  CHECK_BYTECODE(defs, "make-counter", "closure");
  CHECK_BYTECODE(defs, "(make-counter 0)", "free-unbox");
  CHECK_BYTECODE(defs, "(make-counter 0)", "set-box");
  CHECK_BYTECODE(defs, "(make-counter 0)", "free");
  CHECK(same(defs, "(let ((c (make-counter 10)) (c2 (make-counter 100))) (c 1) (c2 5) (list (c 2) (c2 0) (c 3)))",
             {"make-counter", "(make-counter 0)"}) == "(13 105 16)");
  // Assigned only by the one closure that is its binder's body: kept in that closure's slot.
  std::string own = "(define (make-counter start) (let ((n start)) (lambda (d) (set! n (+ n d)) n)))";
  CHECK_BYTECODE(own, "(make-counter 0)", "set-free");
  CHECK(same(own, "(let ((c (make-counter 10)) (c2 (make-counter 100))) (c 1) (c2 5) (list (c 2) (c2 0) (c 3)))",
             {"make-counter", "(make-counter 0)"}) == "(13 105 16)");
  // unbox: a variable captured and assigned, read in the procedure that made it.
  std::string defs2 = "(define (f x) (let ((v x)) (let ((get (lambda () v))) (set! v (* v 2)) (cons v (get)))))";
  CHECK_BYTECODE(defs2, "f", "unbox");
  CHECK(same(defs2, "(list (f 1) (f 21) (f 1.5))") == "((2 . 2) (42 . 42) (3.0 . 3.0))");
  // Closures capturing free variables of their maker (from_free captures).
  std::string defs3 = "(define (f a) (lambda (b) (lambda (c) (list a b c))))";
  CHECK(same(defs3, "(((f 1) 2) 3)", {"f", "(f 0)", "((f 0) 0)"}) == "(1 2 3)");
}

TEST_CASE("jit: letrec closures (fix-closure) and mutual tail calls", "[jit]") {
  std::string defs =
      "(define (f k) (letrec ((ev? (lambda (n) (if (= n k) #t (od? (- n 1)))))"
      "                       (od? (lambda (n) (if (= n k) #f (ev? (- n 1))))))"
      "  (cons ev? od?)))";
  CHECK_BYTECODE(defs, "f", "fix-closure");
  CHECK(same(defs, "(let ((p (f 0))) (list ((car p) 10) ((cdr p) 7) ((car p) 1000001) ((cdr p) 1000001)))",
             {"f", "(car (f 0))", "(cdr (f 0))"}) == "(#t #t #f #t)");
}

TEST_CASE("jit: letrec variable used before its initialization", "[jit]") {
  // A read that may come before the init is followed by check-bound (vm/compiler.cpp, the
  // Analysis's letrec test); the JIT leaves to the interpreter there, which raises.
  CHECK(same("(define (f x) (letrec ((a (if x b 1)) (b 2)) a))", "(f #f)") == "1");
  CHECK(contains(same("(define (f x) (letrec ((a (if x b 1)) (b 2)) a))", "(f #t)"),
                 "letrec: b used before its initialization"));
  CHECK_BYTECODE("(define (f x) (letrec ((a (if x b 1)) (b 2)) a))", "f", "check-bound");
  // letrec evaluates every init before it assigns (R7RS 4.2.2): a is still unassigned at (a).
  CHECK(contains(same("(define (f) (letrec ((a (lambda () b)) (b (a))) b))", "(f)", {"f"}),
                 "letrec: a used before its initialization"));
  CHECK(contains(same("(define (f) (letrec* ((a (lambda () b)) (b (a))) b))", "(f)", {"f"}),
                 "letrec: b used before its initialization"));
  CHECK(contains(same("(define (f) (letrec* ((b (+ c 1)) (c 1)) b))", "(f)"),
                 "letrec: c used before its initialization"));
  CHECK(same("(define (f) (letrec ((a (lambda () b)) (b 2)) (a)))", "(f)") == "2");
  // Only reads that may come early are checked: a group of lambdas, a lambda no init before its
  // variable's calls, or a read in the body has none.
  std::string loop = "(define (f n) (define k (* n 2)) (define (g i acc) (if (= i 0) acc (g (- i 1) (+ acc k)))) (g n 0))";
  CHECK(same(loop, "(f 10)") == "200");
  CHECK(!contains(bytecode(loop, "f"), "check-bound"));
  std::string even = "(define (f n) (letrec ((ev? (lambda (n) (if (= n 0) #t (od? (- n 1))))) (od? (lambda (n) (if (= n 0) #f (ev? (- n 1)))))) (ev? n)))";
  CHECK(same(even, "(f 11)") == "#f");
  CHECK(!contains(bytecode(even, "f"), "check-bound"));
}

// ---- control flow ----------------------------------------------------------------------------

TEST_CASE("jit: jump and jump-if-false", "[jit]") {
  std::string defs =
      "(define (g x) x)"
      "(define (f x) (let ((r (if (g x) 'yes 'no))) (cons r (cond ((g x) => (lambda (v) v)) (else 'none)))))";
  CHECK_BYTECODE(defs, "f", "jump-if-false");
  CHECK_BYTECODE(defs, "f", "jump");
  CHECK(same(defs, "(list (f #f) (f 0) (f '()) (f 'a))") == "((no . none) (yes . 0) (yes) (yes . a))");
  CHECK(same("(define (f x y) (and x (or y 'dflt)))", "(list (f #f 1) (f 1 #f) (f 1 2))") == "(#f dflt 2)");
  CHECK(same("(define (f x) (case x ((1 2) 'small) ((a b) 'sym) (else 'other)))",
             "(list (f 1) (f 'b) (f 3) (f \"a\"))") == "(small sym other other)");
}

TEST_CASE("jit: calls, tail calls and returns", "[jit]") {
  std::string defs = "(define (h x) (* x 2)) (define (g x) (+ (h x) 1)) (define (f x) (g (h x)))";
  CHECK_BYTECODE(defs, "f", "call");
  CHECK_BYTECODE(defs, "f", "tail-call");
  CHECK(same(defs, "(list (f 1) (f 10) (f 1.5))", {"f", "g", "h"}) == "(5 41 7.0)");
  // Compiled -> interpreted -> compiled: g is not compiled in the 'on run (and takes a rest list).
  std::string mixed = "(define (h x) (* x 2)) (define (g . xs) (h (car xs))) (define (f x) (+ 1 (g x)))";
  CHECK(same(mixed, "(list (f 1) (f 20))", {"f", "h"}) == "(3 41)");
  // Interpreted -> compiled -> interpreted.
  CHECK(same("(define (i x) (list 'i x)) (define (f x) (cons 'f (i x))) (define (top x) (f x))",
             "(top 5)", {"f"}) == "(f i 5)");
  // Wrong argument counts to a compiled procedure.
  std::string r = same("(define (f x) x)", "(f 1 2)");
  CHECK(contains(r, "f: expected 1 argument, got 2"));
  r = same("(define (g x y) x) (define (f x) (g x))", "(f 1)", {"f", "g"});
  CHECK(contains(r, "g: expected 2 arguments, got 1"));
  // Calling a non-procedure.
  r = same("(define (f x) (x 1))", "(f 5)");
  CHECK(contains(r, "error: "));
  r = same("(define (f x) (+ 1 (x 1)))", "(f \"str\")");
  CHECK(contains(r, "error: "));
}

TEST_CASE("jit: calls to primitives", "[jit]") {
  CHECK(same("(define (f x) (string-append \"<\" (symbol->string x) \">\"))", "(f 'abc)") == "\"<abc>\"");
  CHECK(same("(define (f x) (let ((l (list x x))) (length l)))", "(f 1)") == "2");
  CHECK(same("(define (f x) (+ 1 (length x)))", "(f '(1 2 3))") == "4");
  CHECK(same("(define (f . xs) (apply + xs))", "(list (f) (f 1 2 3))", {"f"}, false) == "(0 6)");
  CHECK(same("(define (f x y z) (+ x y z))", "(list (f 1 2 3) (f 1.5 2 3))") == "(6 6.5)");
  CHECK(same("(define (f x y z) (- x y z))", "(f 1 2 3)") == "-4");
  // Errors raised by a primitive called from compiled code (non-tail and tail).
  std::string r = same("(define (f s) (+ 1 (string-ref s 10)))", "(f \"abc\")");
  CHECK(contains(r, "string-ref"));
  r = same("(define (f s) (string-ref s 10))", "(f \"abc\")");
  CHECK(contains(r, "string-ref"));
  r = same("(define (f s) (+ 1 (string-length s)))", "(f 42)");
  CHECK(contains(r, "string-length"));
  r = same("(define (f s) (string-length s s))", "(f \"a\")");
  CHECK(contains(r, "error: "));
  r = same("(define (f x) (+ 1 (error \"my error\" x)))", "(f 42)");
  CHECK(contains(r, "my error"));
  // Primitives that call back into Scheme.
  CHECK(same("(define (sq x) (* x x)) (define (f l) (map sq l))", "(f '(1 2 3))", {"f", "sq"}) == "(1 4 9)");
  CHECK(same("(define (f v) (let ((acc 0)) (vector-for-each (lambda (x) (set! acc (+ acc x))) v) acc))",
             "(f (vector 1 2 3 4))") == "10");
  CHECK(same("(define (f l) (sort l <))", "(f '(3 1 2))") == "(1 2 3)");
  r = same("(define (f l) (map car l))", "(f '((1) 2))");
  CHECK(contains(r, "car"));
  // A primitive that turns the JIT off, called from compiled code.
  CHECK(same("(define (f) (let ((old (jit-mode 'off))) (list (+ 1 2) (jit-mode))))", "(f)") == "(3 off)");
}

TEST_CASE("jit: self tail calls run in constant space", "[jit]") {
  std::string defs = "(define (f n acc) (if (= n 0) acc (f (- n 1) (+ acc 1))))";
  CHECK(same(defs, "(f 1000000 0)") == "1000000");
  // The stack high-water mark does not grow with the iterations.
  JitEngine j;
  j.run(defs);
  CHECK(j.run("(jit-compile! f)") == "#t");
  CHECK(j.run("(f 10 0)") == "10");
  int64_t before = j.high_water();
  CHECK(j.run("(f 3000000 0)") == "3000000");
  CHECK(j.high_water() - before < 100);
  // Named let loops (a closure calling itself through its free variable).
  CHECK(same("(define (f n) (let lp ((i 0) (acc 0)) (if (< i n) (lp (+ i 1) (+ acc i)) acc)))", "(f 1000000)",
             {"f"}) == "499999500000");
  CHECK(same("(define (ping n) (if (= n 0) 'ok (pong (- n 1)))) (define (pong n) (ping n))", "(ping 1000000)",
             {"ping", "pong"}) == "ok");
  CHECK(same("(define (f n) (do ((i 0 (+ i 1)) (acc '() (if (< i 3) (cons i acc) acc))) ((= i n) acc)))",
             "(f 1000000)") == "(2 1 0)");
}

TEST_CASE("jit: known callees: self calls and calls through globals", "[jit]") {
  // Self recursion through the global (a direct machine call behind a guard on its value).
  CHECK(same("(define (f n) (if (< n 2) n (+ (f (- n 1)) (f (- n 2)))))", "(f 20)") == "6765");
  CHECK(same("(define (f x y z) (if (not (< y x)) z (f (f (- x 1) y z) (f (- y 1) z x) (f (- z 1) x y))))",
             "(f 18 12 6)") == "7");
  CHECK(same("(define (f m n) (cond ((= m 0) (+ n 1)) ((= n 0) (f (- m 1) 1)) (else (f (- m 1) (f m (- n 1))))))",
             "(f 2 9)") == "21");
  // A compiled helper called through its global; mutual non-tail recursion.
  CHECK(same("(define (g a b) (+ a (* 2 b))) (define (f n) (let loop ((i 0) (acc 0)) (if (= i n) acc (loop (+ i 1) (g acc i)))))",
             "(f 100)", {"g", "f"}) == "9900");
  CHECK(same("(define (g n) (if (= n 0) 0 (+ 1 (f (- n 1))))) (define (f n) (if (= n 0) 0 (+ 2 (g (- n 1)))))",
             "(list (f 1001) (g 1000))", {"g", "f"}) == "(1502 1500)");
  // An error deep inside self-called frames: same message, location and backtrace.
  std::string r = same("(define (g n) (if (= n 0) (car n) (+ 1 (g (- n 1))))) (define (f) (* 2 (g 5)))", "(f)", {"g", "f"});
  CHECK(contains(r, "car: expected a pair, got 0"));
  CHECK(contains(r, "[backtrace g g g"));
  CHECK(contains(r, " f]"));
  // The global assigned while a compiled activation recurses through it: the guard falls back.
  std::string defs = "(define (f n acc) (if (<= n 0) acc (cons n (f (- n 1) acc)))) (define f0 f)";
  CHECK(same(defs, "(list (f 3 '()) (begin (set! f (lambda (n acc) 'other)) (f0 3 '())) (begin (set! f f0) (f 2 'x)))",
             {"f", "f0"}) == "((3 2 1) (3 . other) (2 1 . x))");
  CHECK(contains(same(defs, "(begin (set! f (lambda (n) n)) (f0 3 '()))", {"f", "f0"}), "expected 1 argument, got 2"));
  CHECK(contains(same(defs, "(begin (set! f 42) (f0 3 '()))", {"f", "f0"}), "expected a procedure, got 42"));
  CHECK(same(defs, "(begin (set! f list) (f0 3 'a))", {"f", "f0"}) == "(3 2 a)");
  CHECK(same(defs, "(begin (eval '(define (f n acc) (list 'new n)) (interaction-environment)) (f0 3 '()))", {"f", "f0"}) ==
        "(3 new 2)");
  // Arity errors at a call through the global.
  CHECK(contains(same(defs, "(f 1)", {"f"}), "expected 2 arguments, got 1"));
  CHECK(contains(same("(define (g x) (f x)) " + defs, "(g 1)", {"f", "g"}), "expected 2 arguments, got 1"));
  // call/cc captured inside self-called frames and re-entered after they returned.
  CHECK(same("(define k #f) (define n 0)"
             "(define (f i) (if (= i 0) (call/cc (lambda (c) (set! k c) 0)) (+ i (f (- i 1)))))"
             "(define (run) (let ((r (f 100))) (set! n (+ n 1)) (if (< n 4) (k (* n 1000)) (list n r))))",
             "(run)", {"f", "run"}) == "(4 8050)");
}

TEST_CASE("jit: deep non-tail recursion", "[jit]") {
  std::string defs = "(define (f n) (if (= n 0) 0 (+ 1 (f (- n 1)))))";
  CHECK(same(defs, "(f 100000)") == "100000");
  CHECK(same(defs, "(f 1000000)") == "1000000");
  CHECK(same("(define (f l) (if (null? l) '() (cons (* 2 (car l)) (f (cdr l)))))",
             "(length (f (iota 100000)))") == "100000");
  // The stack grows with it.
  JitEngine j;
  j.run(defs);
  CHECK(j.run("(jit-compile! f)") == "#t");
  int64_t before = j.high_water();
  CHECK(j.run("(f 100000)") == "100000");
  CHECK(j.high_water() - before >= 100000);
  // Runaway recursion: the same error, and the engine keeps working.
  std::string r = same("(define (f n) (+ 1 (f n)))", "(f 1)");
  CHECK(contains(r, "recursion too deep"));
  CHECK(same("(define (f n) (+ 1 (f n)))", "(guard (e (#t 'caught)) (f 1))") == "caught");
}

// ---- inline arithmetic ------------------------------------------------------------------------

TEST_CASE("jit: + - * on fixnums", "[jit]") {
  CHECK_BYTECODE("(define (f x y) (+ x y))", "f", "add");
  CHECK_BYTECODE("(define (f x y) (- x y))", "f", "sub");
  CHECK_BYTECODE("(define (f x y) (* x y))", "f", "mul");
  std::string defs = "(define (f x y) (list (+ x y) (- x y) (* x y)))";
  CHECK(same(defs, "(list (f 1 2) (f -7 3) (f 0 0) (f 123456 -654321))") ==
        "((3 -1 2) (-4 -10 -21) (0 0 0) (-530865 777777 -80779853376))");
}

TEST_CASE("jit: + - * overflow at the fixnum boundaries", "[jit]") {
  std::string defs = kBig62 + "(define (add x y) (+ x y)) (define (sub x y) (- x y)) (define (mul x y) (* x y))";
  std::vector<std::string> procs = {"add", "sub", "mul"};
  CHECK(same(defs, "(list (add max-fix 1) (add max-fix 0) (add min-fix -1) (add min-fix 0) (add max-fix min-fix)"
                   "      (add max-fix max-fix) (add min-fix min-fix) (add 1 max-fix))", procs) ==
        "(4611686018427387904 4611686018427387903 -4611686018427387905 -4611686018427387904 -1"
        " 9223372036854775806 -9223372036854775808 4611686018427387904)");
  CHECK(same(defs, "(list (sub min-fix 1) (sub max-fix -1) (sub 0 min-fix) (sub -1 max-fix) (sub -2 max-fix)"
                   "      (sub max-fix min-fix) (sub min-fix max-fix))", procs) ==
        "(-4611686018427387905 4611686018427387904 4611686018427387904 -4611686018427387904"
        " -4611686018427387905 9223372036854775807 -9223372036854775807)");
  CHECK(same(defs, "(list (mul (expt 2 31) (expt 2 31)) (mul (- (expt 2 31)) (expt 2 31)) (mul (expt 2 31) (expt 2 30))"
                   "      (mul -1 min-fix) (mul min-fix -1) (mul min-fix 1) (mul max-fix -1) (mul max-fix 2)"
                   "      (mul 3037000499 3037000499) (mul 3037000500 3037000500) (mul min-fix 0) (mul 0 min-fix)"
                   "      (mul 2147483648 -2147483648) (mul -2147483648 -2147483649))", procs) ==
        "(4611686018427387904 -4611686018427387904 2305843009213693952 4611686018427387904 4611686018427387904"
        " -4611686018427387904 -4611686018427387903 9223372036854775806 9223372030926249001"
        " 9223372037000250000 0 0 -4611686018427387904 4611686020574871552)");
  // The results are exact integers that keep working (fixnum again after the round trip).
  CHECK(same(defs, "(list (sub (add max-fix 1) 1) (add (sub min-fix 1) 1) (eqv? (sub (add max-fix 1) 1) max-fix))",
             procs) == "(4611686018427387903 -4611686018427387904 #t)");
}

TEST_CASE("jit: + - * with bignums, rationals and flonums", "[jit]") {
  std::string defs = "(define (f x y) (list (+ x y) (- x y) (* x y)))";
  CHECK(same(defs, "(f (expt 2 100) 1)") ==
        "(1267650600228229401496703205377 1267650600228229401496703205375 1267650600228229401496703205376)");
  CHECK(same(defs, "(f 1 (expt 2 100))") ==
        "(1267650600228229401496703205377 -1267650600228229401496703205375 1267650600228229401496703205376)");
  CHECK(same(defs, "(f (expt 2 70) (- (expt 2 70)))") == "(0 2361183241434822606848 -1393796574908163946345982392040522594123776)");
  CHECK(same(defs, "(f 1/2 1/3)") == "(5/6 1/6 1/6)");
  CHECK(same(defs, "(f 1/2 1/2)") == "(1 0 1/4)");
  CHECK(same(defs, "(f 1.5 2.25)") == "(3.75 -0.75 3.375)");
  CHECK(same(defs, "(f 1 0.5)") == "(1.5 0.5 0.5)");
  CHECK(same(defs, "(f 0.5 1)") == "(1.5 -0.5 0.5)");
  CHECK(same(defs, "(f -0.0 0.0)") == "(0.0 -0.0 -0.0)");
  CHECK(same(defs, "(f -0.0 -0.0)") == "(-0.0 0.0 0.0)");
  same(defs, "(f 0 -0.0)");
  CHECK(same(defs, "(f +nan.0 1.0)") == "(+nan.0 +nan.0 +nan.0)");
  CHECK(same(defs, "(f +inf.0 -inf.0)") == "(+nan.0 +inf.0 -inf.0)");
  CHECK(same(defs, "(f 1e308 1e308)") == "(+inf.0 0.0 +inf.0)");
  same(defs, "(f (expt 2 70) 0.5)");
  same(defs, "(f 1/3 0.5)");
  same(defs, "(f (exact->inexact (expt 2 62)) (- (expt 2 62)))");
}

TEST_CASE("jit: small primitives done inline (c[ad]+r, type tests, char comparisons)", "[jit]") {
  std::string defs =
      "(define (f x) (list (cadr x) (cddr x) (caddr x) (number? (car x)) (symbol? (cadr x))"
      "  (string? x) (vector? x) (pair? x) (char? (car x)) (boolean? (car x)) (eof-object? x)))";
  CHECK(same(defs, "(f '(1 a 2))") == "(a (2) 2 #t #t #f #f #t #f #f #f)");
  CHECK(same(defs, "(f '(#\\a \"s\" #t))") == "(\"s\" (#t) #t #f #f #f #f #t #t #f #f)");
  CHECK(same(defs, "(f (list 2.5 'b 1/2))") == "(b (1/2) 1/2 #t #t #f #f #t #f #f #f)");
  CHECK(same(defs, "(f (list (expt 2 80) 'b #f))") == "(b (#f) #f #t #t #f #f #t #f #f #f)");
  CHECK(same(defs, "(f (list #f 'b 3))") == "(b (3) 3 #f #t #f #f #t #f #t #f)");
  // Errors come from the primitive itself, as in the interpreter.
  CHECK(contains(same(defs, "(f '(1))"), "cadr"));
  CHECK(contains(same("(define (f x) (caddr x))", "(f '(1 2))"), "caddr"));
  CHECK(contains(same("(define (f x) (cadr x))", "(f 5)"), "5"));
  // In tail position, and on the other argument types.
  CHECK(same("(define (f x) (if (symbol? x) 'sym (cadr x)))", "(list (f 'a) (f '(1 2)))") == "(sym 2)");
  CHECK(same("(define (f x) (number? x))", "(map f (list 1 2.0 1/2 (expt 2 70) 'a \"s\" #\\a '()))") ==
        "(#t #t #t #t #f #f #f #f)");
  CHECK(same("(define (f x) (char? x))", "(map f (list #\\a 1 'a \"a\" #f))") == "(#t #f #f #f #f)");
  std::string chars = "(define (f a b) (list (char=? a b) (char<? a b) (char>? a b) (char<=? a b) (char>=? a b)))";
  CHECK(same(chars, "(f #\\a #\\b)") == "(#f #t #f #t #f)");
  CHECK(same(chars, "(f #\\b #\\a)") == "(#f #f #t #f #t)");
  CHECK(same(chars, "(f #\\x3bb #\\x3bb)") == "(#t #f #f #t #t)");
  CHECK(same(chars, "(f #\\x10FFFF #\\a)") == "(#f #f #t #f #t)");
  CHECK(contains(same(chars, "(f #\\a 1)"), "char=?"));
  // A global assigned after compiling: the code checks that it still holds the same builtin.
  JitEngine j;
  j.run("(define op cadr) (define (g x) (op x))");
  CHECK(j.run("(jit-compile! g)") == "#t");
  CHECK(j.run("(g '(1 2 3))") == "2");
  j.run("(set! op caddr)");
  CHECK(j.run("(g '(1 2 3))") == "3");
  j.run("(set! op (lambda (x) 'mine))");
  CHECK(j.run("(g '(1 2 3))") == "mine");
  j.run("(set! op symbol?)");
  CHECK(j.run("(g 'a)") == "#t");
}

TEST_CASE("jit: runs of flonum arithmetic (flonum groups)", "[jit]") {
  // Intermediates die inside the expression: computed in SSE registers, never boxed.
  std::string defs = "(define (f x y z) (+ (* x y) (- z (* x 2.0))))";
  CHECK(same(defs, "(f 1.5 2.0 10.0)") == "10.0");
  CHECK(same(defs, "(f -0.0 0.0 -0.0)") == "0.0");
  CHECK(same(defs, "(f +nan.0 1.0 1.0)") == "+nan.0");
  CHECK(same(defs, "(f 1e300 1e300 1.0)") == "+inf.0");
  CHECK(same(defs, "(f +inf.0 0.0 1.0)") == "+nan.0");
  // Any operand that is not a flonum takes the one-by-one path: exact results, errors.
  CHECK(same(defs, "(f 3 4 10)") == "16.0");
  CHECK(same(defs, "(f 3 4 10.5)") == "16.5");
  CHECK(same(defs, "(f (expt 2 70) 1.0 0)") == "-1.1805916207174113e21");
  CHECK(same(defs, "(f 1/2 0.5 1/4)") == "-0.5");
  CHECK(contains(same(defs, "(f 1.5 'a 2.0)"), "*: expected a number, got a"));
  CHECK(contains(same(defs, "(f 1.5 2.0 \"s\")"), "-: expected a number"));
  // Immediates, a value reused in the group, a register overwritten in it.
  CHECK(same("(define (f x) (- (+ (* x x) 1) 3))", "(f 0.5)") == "-1.75");
  CHECK(same("(define (f x) (- (+ (* x x) 1) 3))", "(f 2)") == "2");
  CHECK(same("(define (f x y) (let ((t (* x y))) (* (+ t 1.0) (- t 1.0))))", "(f 2.0 1.5)") == "8.0");
}

TEST_CASE("jit: flonum groups ending in a comparison", "[jit]") {
  std::string branch = "(define (f x y) (if (> (+ (* x x) (* y y)) 4.0) 'out 'in))";
  CHECK(same(branch, "(f 1.0 1.0)") == "in");
  CHECK(same(branch, "(f 2.0 1.0)") == "out");
  CHECK(same(branch, "(f +nan.0 1.0)") == "in");
  CHECK(same(branch, "(f 2 1)") == "out");
  CHECK(contains(same(branch, "(f 2.0 #f)"), "*: expected a number, got #f"));
  std::string eq = "(define (f x y) (if (= (* x y) 6.0) 'six 'other))";
  CHECK(same(eq, "(f 2.0 3.0)") == "six");
  CHECK(same(eq, "(f +nan.0 3.0)") == "other");
  CHECK(same(eq, "(f 2 3)") == "six");
  std::string imm = "(define (f x y) (if (< (- x y) 4) 'small 'large))";
  CHECK(same(imm, "(f 5.5 2.0)") == "small");
  CHECK(same(imm, "(f 8.5 2.0)") == "large");
  CHECK(same(imm, "(f -inf.0 2.0)") == "small");
  // As a value, with or without values that live on.
  std::string value = "(define (f x y) (let ((b (<= (* x y) (+ x y)))) (list b (* x 2.0))))";
  CHECK(same(value, "(f 1.0 1.0)") == "(#t 2.0)");
  CHECK(same(value, "(f 3.0 3.0)") == "(#f 6.0)");
  CHECK(same(value, "(f +nan.0 3.0)") == "(#f +nan.0)");
  std::string kept = "(define (f x y) (let* ((s (+ x y)) (b (>= (* s s) 10.0))) (list s b)))";
  CHECK(same(kept, "(f 1.0 2.0)") == "(3.0 #f)");
  CHECK(same(kept, "(f 2.0 2.0)") == "(4.0 #t)");
}

TEST_CASE("jit: a mandelbrot loop in SSE registers", "[jit]") {
  std::string defs =
      "(define (f cr ci)"
      "  (let loop ((zr 0.0) (zi 0.0) (k 0))"
      "    (if (or (= k 64) (> (+ (* zr zr) (* zi zi)) 4.0))"
      "        k"
      "        (loop (+ (- (* zr zr) (* zi zi)) cr) (+ (* 2.0 (* zr zi)) ci) (+ k 1)))))";
  same(defs, "(list (f -0.75 0.1) (f 0.3 0.5) (f -2.0 0.0) (f 0.25 +nan.0))", {}, false);
  CHECK(same(defs, "(f 0.0 0.0)", {}, false) == "64");
  CHECK(same(defs, "(f 1.0 1.0)", {}, false) == "2");
  // The group is really there: only flonum groups use xmm2 and up.
  JitEngine j;
  j.run("(define (g x y) (if (> (+ (* x x) (* y y)) 4.0) 1 2))");
  CHECK(j.run("(jit-compile! g)") == "#t");
  std::string listing = j.display("(jit-disassemble g)");
  INFO(listing);
  CHECK(contains(listing, "mulsd xmm3"));
  CHECK(contains(listing, "addsd xmm6"));
}

TEST_CASE("jit: + - * errors name the procedure", "[jit]") {
  std::string r = same("(define (f x y) (+ x y))", "(f 1 'a)");
  CHECK(contains(r, "+: expected a number, got a"));
  r = same("(define (f x y) (- x y))", "(f \"s\" 1)");
  CHECK(contains(r, "-: expected a number"));
  r = same("(define (f x y) (* x y))", "(f 2 #t)");
  CHECK(contains(r, "*: expected a number, got #t"));
  r = same("(define (f x y) (* x y))", "(f 2.5 '())");
  CHECK(contains(r, "*: expected a number"));
  r = same("(define (f x) (+ 1 (* x 2)))", "(f 'q)");
  CHECK(contains(r, "*: expected a number, got q"));
  // Caught around compiled code.
  CHECK(same("(define (f x y) (+ x y))", "(guard (e (#t (error-object-message e))) (f 1 'a))").find("+") !=
        std::string::npos);
}

TEST_CASE("jit: immediate + and - (add-imm, sub-imm)", "[jit]") {
  std::string defs = kBig62 +
      "(define (inc x) (+ x 1)) (define (dec x) (- x 1)) (define (inc2 x) (+ 1 x))"
      "(define (addm x) (+ x -1)) (define (subm x) (- x -1)) (define (big+ x) (+ x 30000))"
      "(define (big- x) (- x 30000)) (define (neg- x) (- x -30000))";
  std::vector<std::string> procs = {"inc", "dec", "inc2", "addm", "subm", "big+", "big-", "neg-"};
  CHECK_BYTECODE(defs, "inc", "add-imm");
  CHECK_BYTECODE(defs, "inc2", "add-imm");
  CHECK_BYTECODE(defs, "dec", "sub-imm");
  CHECK_BYTECODE(defs, "big-", "sub-imm");
  CHECK(same(defs, "(list (inc 1) (dec 1) (inc2 -1) (addm 0) (subm 0) (big+ 1) (big- 1) (neg- 1))", procs) ==
        "(2 0 0 -1 1 30001 -29999 30001)");
  CHECK(same(defs, "(list (inc max-fix) (inc2 max-fix) (dec min-fix) (addm min-fix) (subm max-fix)"
                   "      (inc (- max-fix 1)) (dec (+ min-fix 1)))", procs) ==
        "(4611686018427387904 4611686018427387904 -4611686018427387905 -4611686018427387905"
        " 4611686018427387904 4611686018427387903 -4611686018427387904)");
  CHECK(same(defs, "(list (big+ (- max-fix 29999)) (big+ (- max-fix 30000)) (big- (+ min-fix 29999))"
                   "      (big- (+ min-fix 30000)) (neg- (- max-fix 29999)) (neg- (- max-fix 30000)))", procs) ==
        "(4611686018427387904 4611686018427387903 -4611686018427387905 -4611686018427387904"
        " 4611686018427387904 4611686018427387903)");
  CHECK(same(defs, "(list (inc (expt 2 100)) (dec (- (expt 2 62))) (dec (expt 2 62)) (inc (- -1 (expt 2 62))))", procs) ==
        "(1267650600228229401496703205377 -4611686018427387905 4611686018427387903 -4611686018427387904)");
  CHECK(same(defs, "(list (inc 1/2) (dec 1/2) (inc 1.5) (dec 1.5) (inc -0.0) (dec +nan.0) (inc +inf.0) (big- 0.5))",
             procs) == "(3/2 -1/2 2.5 0.5 1.0 +nan.0 +inf.0 -29999.5)");
  std::string r = same(defs, "(inc 'a)", procs);
  CHECK(contains(r, "+: expected a number, got a"));
  r = same(defs, "(dec \"x\")", procs);
  CHECK(contains(r, "-: expected a number"));
  r = same(defs, "(inc2 #f)", procs);
  CHECK(contains(r, "+: expected a number, got #f"));
}

// ---- comparisons ----------------------------------------------------------------------------

TEST_CASE("jit: comparisons as values", "[jit]") {
  std::string defs = "(define (f x y) (list (< x y) (<= x y) (> x y) (>= x y) (= x y)))";
  CHECK_BYTECODE(defs, "f", "lt");
  CHECK_BYTECODE(defs, "f", "le");
  CHECK_BYTECODE(defs, "f", "gt");
  CHECK_BYTECODE(defs, "f", "ge");
  CHECK_BYTECODE(defs, "f", "num-eq");
  CHECK(same(defs, "(list (f 1 2) (f 2 1) (f 2 2) (f -5 3))") ==
        "((#t #t #f #f #f) (#f #f #t #t #f) (#f #t #f #t #t) (#t #t #f #f #f))");
  CHECK(same(defs, "(list (f (- (expt 2 62)) (- (expt 2 62) 1)) (f (- (expt 2 62) 1) (- (expt 2 62))))") ==
        "((#t #t #f #f #f) (#f #f #t #t #f))");
  CHECK(same(defs, "(list (f (expt 2 70) (expt 2 71)) (f (expt 2 70) 1) (f 1 (- (expt 2 70))) (f (expt 2 62) (expt 2 62)))") ==
        "((#t #t #f #f #f) (#f #f #t #t #f) (#f #f #t #t #f) (#f #t #f #t #t))");
  CHECK(same(defs, "(list (f 1/2 1/3) (f 1/2 0.5) (f 1 1.0) (f 1.5 2.5) (f 2.5 2.5))") ==
        "((#f #f #t #t #f) (#f #t #f #t #t) (#f #t #f #t #t) (#t #t #f #f #f) (#f #t #f #t #t))");
  CHECK(same(defs, "(list (f +nan.0 1.0) (f 1.0 +nan.0) (f +nan.0 +nan.0) (f +nan.0 1) (f 1 +nan.0))") ==
        "((#f #f #f #f #f) (#f #f #f #f #f) (#f #f #f #f #f) (#f #f #f #f #f) (#f #f #f #f #f))");
  CHECK(same(defs, "(list (f -0.0 0.0) (f 0.0 -0.0) (f -0.0 0) (f 0 -0.0))") ==
        "((#f #t #f #t #t) (#f #t #f #t #t) (#f #t #f #t #t) (#f #t #f #t #t))");
  CHECK(same(defs, "(list (f -inf.0 +inf.0) (f +inf.0 (expt 2 1000)))") ==
        "((#t #t #f #f #f) (#f #f #t #t #f))");
  std::string r = same(defs, "(f 1 'a)");
  CHECK(contains(r, "<: expected a number, got a"));
  r = same(defs, "(f #t 1)");
  CHECK(contains(r, "<: expected a number, got #t"));
  r = same("(define (f x y) (= x y))", "(f 1 \"one\")");
  CHECK(contains(r, "=: expected a number"));
  r = same("(define (f x y) (>= x y))", "(f 1.5 'b)");
  CHECK(contains(r, ">=: expected a number, got b"));
}

TEST_CASE("jit: fused compare-and-branch on two registers", "[jit]") {
  std::string defs =
      "(define (f x y) (if (< x y) 'lt (if (<= x y) 'le (if (> x y) 'gt (if (>= x y) 'ge (if (= x y) 'eq 'none))))))"
      "(define (g x y) (if (= x y) 'eq 'ne))";
  CHECK_BYTECODE(defs, "f", "br-lt");
  CHECK_BYTECODE(defs, "f", "br-le");
  CHECK_BYTECODE(defs, "f", "br-gt");
  CHECK_BYTECODE(defs, "f", "br-ge");
  CHECK_BYTECODE(defs, "f", "br-num-eq");
  std::vector<std::string> procs = {"f", "g"};
  CHECK(same(defs, "(list (f 1 2) (f 2 2) (f 3 2) (g 2 2) (g 2 3))", procs) == "(lt le gt eq ne)");
  CHECK(same(defs, "(list (f 1.0 2.0) (f 2.0 2.0) (f 3.0 2.0) (f 1 2.0) (f 2.0 1) (f 1/2 1/3) (f (expt 2 70) 1))", procs) ==
        "(lt le gt lt gt gt gt)");
  CHECK(same(defs, "(list (f +nan.0 1.0) (f 1.0 +nan.0) (f +nan.0 +nan.0) (g +nan.0 +nan.0) (g +nan.0 1.0) (g 1 +nan.0))",
             procs) == "(none none none ne ne ne)");
  CHECK(same(defs, "(list (f -0.0 0.0) (g -0.0 0.0) (g 0.0 -0.0) (g 0 -0.0) (g 1 1.0) (g 1/2 0.5) (g (expt 2 70) (expt 2 70)))",
             procs) == "(le eq eq eq eq eq eq)");
  CHECK(same(defs, "(list (f +inf.0 1e308) (f -inf.0 -1e308) (g +inf.0 +inf.0))", procs) == "(gt lt eq)");
  std::string r = same(defs, "(f 1 'a)", procs);
  CHECK(contains(r, "<: expected a number, got a"));
  r = same(defs, "(f 'a 1.5)", procs);
  CHECK(contains(r, "<: expected a number, got a"));
  r = same(defs, "(g \"s\" 1)", procs);
  CHECK(contains(r, "=: expected a number"));
  r = same("(define (f x y) (if (> x y) 1 2))", "(f 'a 1)");
  CHECK(contains(r, ">: expected a number, got a"));
}

TEST_CASE("jit: fused compare-and-branch with an immediate", "[jit]") {
  std::string defs =
      "(define (f x) (list (if (< x 3) 'a 'b) (if (<= x 3) 'a 'b) (if (> x 3) 'a 'b) (if (>= x 3) 'a 'b)"
      "                    (if (= x 3) 'a 'b)))"
      "(define (z x) (if (= x 0) 'zero 'nonzero))"
      "(define (n x) (if (< x -5) 'below 'not-below))";
  CHECK_BYTECODE(defs, "f", "br-lt-imm");
  CHECK_BYTECODE(defs, "f", "br-le-imm");
  CHECK_BYTECODE(defs, "f", "br-gt-imm");
  CHECK_BYTECODE(defs, "f", "br-ge-imm");
  CHECK_BYTECODE(defs, "f", "br-num-eq-imm");
  std::vector<std::string> procs = {"f", "z", "n"};
  CHECK(same(defs, "(list (f 2) (f 3) (f 4) (f -100) (f (expt 2 70)) (f (- (expt 2 70))))", procs) ==
        "((a a b b b) (b a b a a) (b b a a b) (a a b b b) (b b a a b) (a a b b b))");
  CHECK(same(defs, "(list (f 2.5) (f 3.0) (f 3.5) (f 5/2) (f 7/2) (f +nan.0) (f +inf.0) (f -inf.0))", procs) ==
        "((a a b b b) (b a b a a) (b b a a b) (a a b b b) (b b a a b) (b b b b b) (b b a a b) (a a b b b))");
  CHECK(same(defs, "(list (z 0) (z 0.0) (z -0.0) (z +nan.0) (z 1/2) (z (expt 2 70)) (n -6) (n -5) (n -5.5) (n -11/2))",
             procs) == "(zero zero zero nonzero nonzero nonzero below not-below below below)");
  std::string r = same(defs, "(f 'a)", procs);
  CHECK(contains(r, "<: expected a number, got a"));
  r = same(defs, "(z '())", procs);
  CHECK(contains(r, "=: expected a number, got ()"));
}

TEST_CASE("jit: swapped immediate comparisons (< 0 x)", "[jit]") {
  std::string defs =
      "(define (f x) (list (if (< 0 x) 'a 'b) (if (<= 0 x) 'a 'b) (if (> 0 x) 'a 'b) (if (>= 0 x) 'a 'b)"
      "                    (if (= 0 x) 'a 'b)))";
  {
    std::string listing = bytecode(defs, "f");
    INFO(listing);
    CHECK(contains(listing, "br-gt-imm      1 0 1"));  // (< 0 x) is x > 0, marked swapped
  }
  CHECK(same(defs, "(list (f 1) (f 0) (f -1) (f (expt 2 70)) (f (- (expt 2 70))))") ==
        "((a a b b b) (b a b a a) (b b a a b) (a a b b b) (b b a a b))");
  CHECK(same(defs, "(list (f 1/2) (f -1/2) (f 0.5) (f -0.5) (f 0.0) (f -0.0) (f +nan.0))") ==
        "((a a b b b) (b b a a b) (a a b b b) (b b a a b) (b a b a a) (b a b a a) (b b b b b))");
  // Errors name the procedure the program called, with the operand it was given.
  std::string r = same("(define (f x) (if (< 0 x) 1 2))", "(f 'a)");
  CHECK(contains(r, "<: expected a number, got a"));
  r = same("(define (f x) (if (>= 10 x) 1 2))", "(f #t)");
  CHECK(contains(r, ">=: expected a number, got #t"));
  r = same("(define (f x) (if (> 0 x) 1 2))", "(f \"s\")");
  CHECK(contains(r, ">: expected a number"));
  r = same("(define (f x) (if (= 5 x) 1 2))", "(f '(1))");
  CHECK(contains(r, "=: expected a number"));
}

// ---- eq?, pairs, predicates -----------------------------------------------------------------

TEST_CASE("jit: eq? as a value and as a branch", "[jit]") {
  std::string defs = "(define (f x y) (list (eq? x y) (if (eq? x y) 'same 'different)))";
  CHECK_BYTECODE(defs, "f", "eq");
  CHECK_BYTECODE(defs, "f", "br-eq");
  CHECK(same(defs, "(list (f 'a 'a) (f 'a 'b) (f 1 1) (f '() '()) (f #f #f) (f #\\a #\\a) (f \"a\" \"b\"))") ==
        "((#t same) (#f different) (#t same) (#t same) (#t same) (#t same) (#f different))");
  CHECK(same(defs, "(let ((l (list 1 2)) (v 2.5)) (list (f l l) (f l (list 1 2)) (f v v) (f car car)))") ==
        "((#t same) (#f different) (#t same) (#t same))");
}

TEST_CASE("jit: car, cdr and cons", "[jit]") {
  std::string defs = "(define (f x) (cons (car x) (cdr x))) (define (g x y) (cons y x))";
  CHECK_BYTECODE(defs, "f", "car");
  CHECK_BYTECODE(defs, "f", "cdr");
  CHECK_BYTECODE(defs, "f", "cons");
  CHECK(same(defs, "(list (f '(1 2 3)) (f '(a . b)) (g 1 2) (g '() '()))", {"f", "g"}) ==
        "((1 2 3) (a . b) (2 . 1) (()))");
  std::string r = same("(define (f x) (car x))", "(f 42)");
  CHECK(contains(r, "car: expected a pair, got 42"));
  r = same("(define (f x) (cdr x))", "(f '())");
  CHECK(contains(r, "cdr: expected a pair, got ()"));
  r = same("(define (f x) (car x))", "(f \"str\")");
  CHECK(contains(r, "car: expected a pair, got \"str\""));
  r = same("(define (f x) (car x))", "(f #\\a)");
  CHECK(contains(r, "car: expected a pair"));
  r = same("(define (f x) (car x))", "(f (vector 1))");
  CHECK(contains(r, "car: expected a pair, got #(1)"));
  r = same("(define (f x) (+ 1 (car (cdr x))))", "(f '(1))");
  CHECK(contains(r, "car: expected a pair, got ()"));
  // A handler around the compiled code sees the same condition.
  CHECK(same("(define (f x) (car x))",
             "(guard (e ((error-object? e) (list (error-object-message e) (error-object-irritants e)))) (f 5))") ==
        "(\"car: expected a pair, got 5\" ())");
  // Allocation: many conses made by compiled code survive collections.
  CHECK(same("(define (f n acc) (if (= n 0) acc (f (- n 1) (cons n acc))))"
             "(define (sum l acc) (if (null? l) acc (sum (cdr l) (+ acc (car l)))))",
             "(let ((l (f 300000 '()))) (gc) (list (length l) (sum l 0) (car l) (car (reverse l))))",
             {"f", "sum"}) == "(300000 45000150000 1 300000)");
}

TEST_CASE("jit: null?, pair?, not, zero? as values", "[jit]") {
  std::string defs = "(define (f x) (list (null? x) (pair? x) (not x)))";
  CHECK_BYTECODE(defs, "f", "null?");
  CHECK_BYTECODE(defs, "f", "pair?");
  CHECK_BYTECODE(defs, "f", "not");
  CHECK(same(defs, "(map f (list '() '(1) #f #t 0 \"s\" #\\a (vector) 'sym 2.5 (expt 2 70) car))") ==
        "((#t #f #f) (#f #t #f) (#f #f #t) (#f #f #f) (#f #f #f) (#f #f #f) (#f #f #f) (#f #f #f) (#f #f #f)"
        " (#f #f #f) (#f #f #f) (#f #f #f))");
  std::string zdefs = "(define (f x) (zero? x))";
  CHECK_BYTECODE(zdefs, "f", "zero?");
  CHECK(same(zdefs, "(list (f 0) (f 1) (f -1) (f 0.0) (f -0.0) (f +nan.0) (f 1/2) (f (expt 2 70)) (f 1e-300))") ==
        "(#t #f #f #t #t #f #f #f #f)");
  std::string r = same(zdefs, "(f 'a)");
  CHECK(contains(r, "zero?: expected a number, got a"));
  r = same(zdefs, "(f '())");
  CHECK(contains(r, "zero?: expected a number, got ()"));
}

TEST_CASE("jit: fused null?, pair?, zero?, not branches", "[jit]") {
  std::string defs =
      "(define (f x) (list (if (null? x) 'null 'not-null) (if (pair? x) 'pair 'not-pair) (if (not x) 'false 'true)))"
      "(define (z x) (if (zero? x) 'zero 'nonzero))";
  CHECK_BYTECODE(defs, "f", "br-null");
  CHECK_BYTECODE(defs, "f", "br-pair");
  CHECK_BYTECODE_P(defs, "f", "br-not", true);  // with the passes on, (if (not x) a b) is (if x b a)
  CHECK_BYTECODE(defs, "z", "br-zero");
  std::vector<std::string> procs = {"f", "z"};
  CHECK(same(defs, "(map f (list '() '(1) #f #t 0 \"s\" #\\a (vector) 2.5))", procs) ==
        "((null not-pair true) (not-null pair true) (not-null not-pair false) (not-null not-pair true)"
        " (not-null not-pair true) (not-null not-pair true) (not-null not-pair true) (not-null not-pair true)"
        " (not-null not-pair true))");
  CHECK(same(defs, "(map z (list 0 1 -1 0.0 -0.0 +nan.0 1/2 (expt 2 70) +inf.0))", procs) ==
        "(zero nonzero nonzero zero zero nonzero nonzero nonzero nonzero)");
  std::string r = same(defs, "(z 'a)", procs);
  CHECK(contains(r, "zero?: expected a number, got a"));
  r = same(defs, "(z \"0\")", procs);
  CHECK(contains(r, "zero?: expected a number"));
}

// ---- vectors ---------------------------------------------------------------------------------

TEST_CASE("jit: vector-ref", "[jit]") {
  std::string defs = "(define (f v i) (vector-ref v i))";
  CHECK_BYTECODE(defs, "f", "vector-ref");
  CHECK(same(defs, "(let ((v (vector 'a 'b 'c))) (list (f v 0) (f v 2) (f '#(1 2) 1)))") == "(a c 2)");
  std::string r = same(defs, "(f (vector 1 2 3) 3)");
  CHECK(contains(r, "vector-ref"));
  std::string r2 = same(defs, "(f (vector 1 2 3) -1)");
  CHECK(contains(r2, "vector-ref"));
  r = same(defs, "(f (vector) 0)");
  CHECK(contains(r, "vector-ref"));
  r = same(defs, "(f (vector 1 2 3) (expt 2 70))");
  CHECK(contains(r, "vector-ref"));
  r = same(defs, "(f (vector 1 2 3) 1.0)");
  CHECK(contains(r, "vector-ref"));
  r = same(defs, "(f (vector 1 2 3) 'a)");
  CHECK(contains(r, "vector-ref"));
  r = same(defs, "(f \"abc\" 0)");
  CHECK(contains(r, "vector-ref: expected a vector, got \"abc\""));
  r = same(defs, "(f '(1 2) 0)");
  CHECK(contains(r, "vector-ref: expected a vector"));
  r = same(defs, "(f 5 0)");
  CHECK(contains(r, "vector-ref: expected a vector, got 5"));
  CHECK(same(defs, "(guard (e (#t (error-object-message e))) (f (vector 1) 5))").find("vector-ref") !=
        std::string::npos);
}

TEST_CASE("jit: vector-set!", "[jit]") {
  std::string defs = "(define (f v i x) (vector-set! v i x) v)";
  CHECK_BYTECODE(defs, "f", "vector-set!");
  CHECK(same(defs, "(let ((v (make-vector 3 0))) (f v 0 'a) (f v 2 2.5) (f v 1 (list 1)))") == "#(a (1) 2.5)");
  std::string r = same(defs, "(f (vector 1 2 3) 3 'x)");
  CHECK(contains(r, "vector-set!"));
  r = same(defs, "(f (vector 1 2 3) -1 'x)");
  CHECK(contains(r, "vector-set!"));
  r = same(defs, "(f (vector 1 2 3) 1.0 'x)");
  CHECK(contains(r, "vector-set!"));
  r = same(defs, "(f \"abc\" 0 #\\x)");
  CHECK(contains(r, "vector-set!: expected a vector"));
  // A literal constant is immutable.
  r = same(defs, "(f '#(1 2 3) 0 'x)");
  CHECK(contains(r, "vector-set!: expected a mutable vector, got #(1 2 3)"));
  r = same("(define (f) (let ((v '#(1 2 3))) (vector-set! v 0 9) v))", "(f)");
  CHECK(contains(r, "vector-set!: expected a mutable vector"));
  // The literal is unchanged afterwards.
  CHECK(same("(define (lit) '#(1 2 3)) (define (f) (guard (e (#t (lit))) (vector-set! (lit) 0 9) 'set))", "(f)",
             {"f", "lit"}) == "#(1 2 3)");
  // Vectors filled by compiled code survive collections.
  CHECK(same("(define (fill v i) (if (< i (vector-length v)) (begin (vector-set! v i (cons i (* i 1.5))) (fill v (+ i 1))) v))"
             "(define (chk v i ok) (if (= i (vector-length v)) ok (chk v (+ i 1) (and ok (= (car (vector-ref v i)) i)))))",
             "(let ((v (fill (make-vector 100000 #f) 0))) (gc) (list (chk v 0 #t) (vector-ref v 99999)))",
             {"fill", "chk"}) == "(#t (99999 . 149998.5))");
}

// ---- continuations, dynamic-wind, handlers --------------------------------------------------

TEST_CASE("jit: call/cc escapes from compiled frames", "[jit]") {
  std::string defs =
      "(define (walk n k) (if (= n 0) (k 'escaped) (+ 1 (walk (- n 1) k))))"
      "(define (f n) (call/cc (lambda (k) (walk n k))))";
  CHECK(same(defs, "(list (f 10) (f 10000))", {"f", "walk"}) == "(escaped escaped)");
  CHECK(same("(define (f l) (call/cc (lambda (return) (for-each (lambda (x) (if (negative? x) (return x))) l) 'none)))",
             "(list (f '(1 2 -3 4)) (f '(1 2)))") == "(-3 none)");
  CHECK(same("(define (f x) (+ 1 (call/cc (lambda (k) (+ 10 (k x))))))", "(list (f 2) (f 2.5))") == "(3 3.5)");
  // Escaping from inside a primitive that called back into compiled code.
  CHECK(same("(define (f l) (call/cc (lambda (k) (map (lambda (x) (if (pair? x) (k (car x)) x)) l))))",
             "(list (f '(1 2 3)) (f '(1 (2) 3)))") == "((1 2 3) 2)");
}

TEST_CASE("jit: call/cc re-entry across compiled frames", "[jit]") {
  std::string defs =
      "(define saved #f) (define count 0)"
      "(define (f x) (+ x (call/cc (lambda (k) (set! saved k) 1))))"
      "(define (g) (set! count 0) (let ((r (f 10))) (set! count (+ count 1)) (if (< count 3) (saved count) (list r count))))";
  CHECK(same(defs, "(g)", {"f", "g"}) == "(12 3)");
  // Re-entry inside a deep non-tail recursion: the frames below are restored.
  std::string deep =
      "(define ks '())"
      "(define (deep n) (if (= n 0) (call/cc (lambda (k) (set! ks (cons k ks)) 0)) (+ 1 (deep (- n 1)))))"
      "(define (f) (let ((r (deep 500))) (if (< r 1000) ((car ks) 500) r)))";
  CHECK(same(deep, "(f)", {"f", "deep"}) == "1000");
  // A generator: re-entering a compiled loop suspended in the middle.
  std::string gen =
      "(define (make-gen l)"
      "  (define return #f)"
      "  (define (resume-point) (for-each (lambda (x) (call/cc (lambda (k) (set! resume-point (lambda () (k #f))) (return x)))) l) (return 'done))"
      "  (lambda () (call/cc (lambda (r) (set! return r) (resume-point)))))"
      "(define (f l) (let ((g (make-gen l))) (let loop ((acc '())) (let ((v (g))) (if (eq? v 'done) (reverse acc) (loop (cons v acc)))))))";
  CHECK(same(gen, "(f '(1 2 3 4))", {"f", "make-gen"}) == "(1 2 3 4)");
}

TEST_CASE("jit: dynamic-wind around compiled code", "[jit]") {
  std::string defs =
      "(define trace '())"
      "(define (note x) (set! trace (cons x trace)))"
      "(define (body k) (note 'body) (k 1) (note 'not-reached))"
      "(define (f) (set! trace '()) (call/cc (lambda (k) (dynamic-wind (lambda () (note 'in)) (lambda () (body k)) (lambda () (note 'out))))) (reverse trace))";
  CHECK(same(defs, "(f)", {"f", "body", "note"}) == "(in body out)");
  // Re-entry into the extent runs the before thunk again.
  std::string reentry =
      "(define trace '()) (define kk #f) (define n 0)"
      "(define (note x) (set! trace (cons x trace)))"
      "(define (f)"
      "  (set! trace '()) (set! n 0)"
      "  (dynamic-wind (lambda () (note 'in))"
      "                (lambda () (call/cc (lambda (k) (set! kk k))) (set! n (+ n 1)) (note n))"
      "                (lambda () (note 'out)))"
      "  (if (< n 3) (kk #f))"
      "  (reverse trace))";
  CHECK(same(reentry, "(f)", {"f", "note"}) == "(in 1 out in 2 out in 3 out)");
  // An error inside the extent runs the after thunk before the handler's guard clause.
  std::string err =
      "(define trace '())"
      "(define (note x) (set! trace (cons x trace)))"
      "(define (f x) (guard (e (#t (note 'handled))) (dynamic-wind (lambda () (note 'in)) (lambda () (car x)) (lambda () (note 'out)))) (reverse trace))";
  CHECK(same(err, "(f 5)", {"f", "note"}) == "(in out handled)");
}

TEST_CASE("jit: exception handlers around compiled code", "[jit]") {
  CHECK(same("(define (f x) (+ 1 (raise-continuable x)))",
             "(with-exception-handler (lambda (e) (* e 10)) (lambda () (f 4)))") == "41");
  CHECK(same("(define (f x) (guard (e ((symbol? e) (list 'sym e)) ((string? e) (list 'str e))) (+ 1 (raise x))))",
             "(list (f 'a) (f \"b\"))") == "((sym a) (str \"b\"))");
  std::string r = same("(define (f x) (guard (e ((symbol? e) 'sym)) (+ 1 (raise x))))", "(f 42)");
  CHECK(contains(r, "uncaught exception: 42"));
  CHECK(same("(define (f x) (guard (e ((error-object? e) (error-object-message e))) (vector-ref x 10)))",
             "(f (vector 1 2))").find("vector-ref") != std::string::npos);
  CHECK(same("(define (f x) (guard (e (#t (list 'caught (error-object-message e) (error-object-irritants e)))) (car x)))",
             "(f 1)") == "(caught \"car: expected a pair, got 1\" ())");
  // A handler that returns from an error raised by an inline op in compiled code.
  same("(define (f x) (list 'after (car x)))",
       "(with-exception-handler (lambda (e) 'handled) (lambda () (f 5)))");
  // A handler that escapes.
  CHECK(same("(define (f x) (* 2 (car x)))",
             "(call/cc (lambda (k) (with-exception-handler (lambda (e) (k (list 'escaped (error-object-message e)))) (lambda () (f 5)))))") ==
        "(escaped \"car: expected a pair, got 5\")");
  // Errors from inside nested compiled calls, caught at each level.
  CHECK(same("(define (inner x) (vector-ref x 0)) (define (outer x) (guard (e (#t 'outer-caught)) (+ 1 (inner x))))"
             "(define (f) (list (outer (vector 1)) (outer 5) (outer (vector))))",
             "(f)", {"f", "outer", "inner"}) == "(2 outer-caught outer-caught)");
}

TEST_CASE("jit: raise and error record where they were called", "[jit]") {
  CHECK(same("(define (f) (raise 42))\n", "(f)") == "error: <test>:1:13: error: uncaught exception: 42 [kind raise] [backtrace]");
  CHECK(same("(define (f x) (+ 1 (raise (list x 2))))", "(f 1)").find("<test>:1:20: error: uncaught exception: (1 2)") !=
        std::string::npos);
  std::string r = same("(define (f x) (error \"bad\" x 'y))", "(f \"s\")");
  CHECK(contains(r, "<test>:1:15: error: bad \"s\" y"));
  r = same("(define (g x) (+ 1 (error \"deep\" x))) (define (f x) (* 2 (g x)))", "(f 1)", {"f", "g"});
  CHECK(contains(r, "<test>:1:20: error: deep 1"));
  CHECK(contains(r, "[backtrace g f]"));
}

TEST_CASE("jit: multiple values", "[jit]") {
  std::string defs = "(define (f x) (values x (+ x 1))) (define (g x) (call-with-values (lambda () (f x)) (lambda (a b) (* a b))))";
  CHECK(same(defs, "(list (g 3) (call-with-values (lambda () (f 1)) list))", {"f", "g"}) == "(12 (1 2))");
  CHECK(same("(define (f x) (let-values (((q r) (floor/ x 7)) ((a . rest) (values 1 2 3))) (list q r a rest)))",
             "(f 100)") == "(14 2 1 (2 3))");
  CHECK(same("(define (f) (values))", "(call-with-values f list)") == "()");
}

TEST_CASE("jit: apply", "[jit]") {
  std::string defs = "(define (add3 a b c) (+ a b c)) (define (f l) (apply add3 l)) (define (g . l) (apply max l))";
  CHECK(same(defs, "(list (f '(1 2 3)) (apply add3 1 '(2 3)) (g 1 5 2))", {"f", "add3"}) == "(6 6 5)");
  std::string r = same(defs, "(f '(1 2))", {"f", "add3"});
  CHECK(contains(r, "add3: expected 3 arguments, got 2"));
  r = same(defs, "(f 5)", {"f", "add3"});
  CHECK(contains(r, "apply"));
  CHECK(same("(define (f x) (apply + 1 2 x))", "(f '(3 4))") == "10");
}

TEST_CASE("jit: case-lambda and rest arguments", "[jit]") {
  std::string defs =
      "(define f (case-lambda ((a) (list 'one a)) ((a b) (list 'two a b)) ((a . r) (list 'many a r))))";
  CHECK(same(defs, "(list (f 1) (f 1 2) (f 1 2 3))", {"f"}, false) == "((one 1) (two 1 2) (many 1 (2 3)))");
  std::string r = same(defs, "(f)", {"f"}, false);
  CHECK(contains(r, "error: "));
  CHECK(same("(define (f a . r) (cons a r))", "(list (f 1) (f 1 2 3))", {"f"}, false) == "((1) (1 2 3))");
  CHECK(same("(define (f . r) r) (define (g x) (f x x))", "(list (g 1) (f))", {"g", "f"}, false) == "((1 1) ())");
  r = same("(define (f a b . r) r)", "(f 1)", {"f"}, false);
  CHECK(contains(r, "f: expected at least 2 arguments"));
}

// ---- polling: limits and interrupts reach compiled loops ------------------------------------

TEST_CASE("jit: step limit stops a compiled loop", "[jit]") {
  for (const char* mode : {"off", "on"}) {
    INFO("mode " << mode);
    JitEngine j;
    j.run("(define (spin n) (spin (+ n 1)))");
    j.run("(jit-compile! spin)");
    j.run(std::string("(jit-mode '") + mode + ")");
    qb::set_limits(j.e, 2000000, 0, 0);
    CHECK(contains(j.outcome("(spin 0)"), "step limit exceeded"));
    CHECK(j.run("(+ 1 2)") == "3");
  }
}

TEST_CASE("jit: an interrupt stops a compiled loop", "[jit]") {
  JitEngine j;
  j.run("(define (spin n) (if (< n 0) n (spin (+ n 1))))");
  CHECK(j.run("(jit-compile! spin)") == "#t");
  std::atomic<bool> done{false};
  std::thread t([&] {
    while (!done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      qb::interrupt(j.e);
    }
  });
  std::string r = j.outcome("(spin 0)");
  done.store(true);
  t.join();
  CHECK(contains(r, "interrupted"));
  CHECK(j.run("(spin -5)") == "-5");
}

// ---- more callees: parameters, records, continuations, exit ---------------------------------

TEST_CASE("jit: parameter objects and records called from compiled code", "[jit]") {
  CHECK(same("(define p (make-parameter 1)) (define (f) (list (p) (parameterize ((p 2)) (+ 1 (p))) (p)))", "(f)") ==
        "(1 3 1)");
  CHECK(same("(define p (make-parameter 10 (lambda (x) (* x 2)))) (define (f x) (parameterize ((p x)) (p)))",
             "(list (f 1) (p))") == "(2 20)");
  std::string defs =
      "(define-record-type point (make-point x y) point? (x point-x set-point-x!) (y point-y))"
      "(define (f a) (let ((q (make-point a 2))) (set-point-x! q (+ a 10)) (list (point? q) (point-x q) (point-y q) (point? 5))))";
  CHECK(same(defs, "(f 1)") == "(#t 11 2 #f)");
  std::string r = same(defs + "(define (g x) (point-x x))", "(g 5)", {"g"});
  CHECK(contains(r, "point-x"));
}

TEST_CASE("jit: exit from compiled code", "[jit]") {
  CHECK(same("(define (f x) (+ 1 (exit x)))", "(f 7)") == "exit 7");
  CHECK(same("(define (f x) (exit x))", "(f 3)") == "exit 3");
}

TEST_CASE("jit: a handler that returns from an error raised in compiled code", "[jit]") {
  // What happens then is the interpreter's business; the JIT must do the same.
  same("(define (f s) (+ 1 (string-ref s 10)))", "(with-exception-handler (lambda (e) 0) (lambda () (f \"abc\")))");
  same("(define (f s) (string-ref s 10))", "(with-exception-handler (lambda (e) 0) (lambda () (list (f \"abc\"))))");
  same("(define (f x) (list 'after (car x)))", "(with-exception-handler (lambda (e) 'handled) (lambda () (f 5)))");
  same("(define (f x) (list 'after (vector-ref x 9)))",
       "(with-exception-handler (lambda (e) 'handled) (lambda () (f (vector))))");
  same("(define (f x) (if (< x 1) 'a 'b))", "(with-exception-handler (lambda (e) 'handled) (lambda () (f 'q)))");
  CHECK(same("(define (f x) (list 'after (raise-continuable x)))",
             "(with-exception-handler (lambda (e) (list 'handled e)) (lambda () (f 5)))") == "(after (handled 5))");
}

TEST_CASE("jit: continuations captured under one mode and resumed under another", "[jit]") {
  JitEngine j;
  j.run("(define kk #f) (define n 0)"
        "(define (inner) (call/cc (lambda (k) (set! kk k) 0)))"
        "(define (f) (let ((r (+ 100 (inner)))) (set! n (+ n 1)) (list r n)))");
  CHECK(j.run("(jit-compile! f)") == "#t");
  CHECK(j.run("(jit-compile! inner)") == "#t");
  CHECK(j.run("(f)") == "(100 1)");
  j.run("(jit-mode 'off)");
  CHECK(j.run("(kk 5)") == "(105 2)");
  j.run("(jit-mode 'on)");
  CHECK(j.run("(kk 7)") == "(107 3)");
  j.run("(jit-mode 'force)");
  CHECK(j.run("(kk 9)") == "(109 4)");
}

// ---- what the JIT refuses, and procedures compiled while they run -----------------------------

TEST_CASE("jit: calls with many arguments, and procedures too big to compile", "[jit]") {
  // " 1 2 ... n", or with a prefix " a1 a2 ... an".
  auto seq = [](int n, const char* prefix = "") {
    std::string s;
    for (int i = 1; i <= n; i++) {
      s += ' ';
      s += prefix;
      s += std::to_string(i);
    }
    return s;
  };
  auto numbers = [&](int n) { return seq(n); };
  // A tail call with 64 arguments is compiled; with 65 it is refused. Same results either way.
  std::string g = "(define (g . xs) (apply + xs))";
  CHECK(same("(define (sum64" + seq(64, "a") + ") (+ a1 a64)) (define (f) (sum64" + numbers(64) + "))", "(f)",
             {"f", "sum64"}) == "65");
  CHECK(same(g + "(define (f) (g" + numbers(64) + "))", "(f)") == "2080");
  {
    JitEngine j;
    j.run(g + "(define (f) (g" + numbers(65) + "))");
    CHECK(j.run("(jit-compile! f)") == "#f");
    CHECK(j.run("(jit-compiled? f)") == "#f");
    std::string listing = j.display("(jit-disassemble f)");
    CHECK(contains(listing, "not compilable"));
    CHECK(contains(listing, "tail call with too many arguments"));
    CHECK(j.run("(f)") == "2145");
  }
  CHECK(same(g + "(define (f) (g" + numbers(65) + "))", "(f)", {"f"}, false) == "2145");
  // A non-tail call with many arguments is compiled.
  CHECK(same(g + "(define (f) (+ 1 (g" + numbers(200) + ")))", "(f)") == "20101");
  // A procedure of more than 20000 instructions stays interpreted.
  std::string body;
  for (int i = 0; i < 6000; i++) body += " (set! counter (+ counter 1))";
  std::string big = "(define counter 0) (define (f)" + body + " counter)";
  {
    JitEngine j;
    j.run(big);
    CHECK(j.run("(jit-compile! f)") == "#f");
    CHECK(contains(j.display("(jit-disassemble f)"), "too many instructions"));
    CHECK(j.run("(f)") == "6000");
  }
  CHECK(same(big, "(list (f) (f))", {"f"}, false) == "(6000 12000)");
  // Many registers: a call with 300 arguments built from 300 locals.
  std::string lets = "(define (f x) (let* (";
  std::string args;
  for (int i = 0; i < 300; i++) {
    lets += "(v" + std::to_string(i) + " (+ x " + std::to_string(i) + ")) ";
    args += " v";
    args += std::to_string(i);
  }
  lets += ") (cons 'r (list" + args + "))))";  // a non-tail call: a tail call would be refused
  CHECK(same(lets, "(apply + (cdr (f 1)))") == "45150");
}

TEST_CASE("jit: procedures compiled in the middle of their own run ('on, hot)", "[jit]") {
  // No explicit compilation: the policy compiles the procedures once hot, while interpreted
  // frames of the same procedures are on the stack.
  struct Case {
    const char* defs;
    const char* call;
  };
  const Case cases[] = {
      {"(define (f n) (if (= n 0) 0 (+ 1 (f (- n 1)))))", "(f 100000)"},
      {"(define (f n) (if (= n 0) '() (cons (* n 1.5) (f (- n 1)))))", "(length (f 5000))"},
      {"(define (f n acc) (if (= n 0) acc (f (- n 1) (+ acc n))))", "(f 1000000 0)"},
      {"(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))", "(fib 22)"},
      {"(define (tak x y z) (if (not (< y x)) z (tak (tak (- x 1) y z) (tak (- y 1) z x) (tak (- z 1) x y))))",
       "(tak 18 12 6)"},
      {"(define (f n) (if (= n 0) (car n) (+ 1 (f (- n 1)))))", "(f 1000)"},
      {"(define (f n) (if (= n 0) (call/cc (lambda (k) (k 'esc))) (cons n (f (- n 1)))))", "(length (f 3000))"},
      {"(define (f v i) (if (= i (vector-length v)) v (begin (vector-set! v i (* i i)) (f v (+ i 1)))))",
       "(vector-ref (f (make-vector 1000 0) 0) 999)"},
  };
  for (const Case& c : cases) {
    INFO(c.defs << " " << c.call);
    std::string off, on;
    {
      JitEngine j;
      j.run("(jit-mode 'off)");
      j.run(c.defs);
      off = j.outcome(c.call);
    }
    {
      JitEngine j;
      j.run(c.defs);
      on = j.outcome(c.call);
      CHECK(on == off);
      CHECK(j.outcome(c.call) == off);  // and again, now that they are compiled
    }
  }
}

TEST_CASE("jit: machine code of collected procedures", "[jit]") {
  // Many procedures compiled ('force) and dropped, with collections in between.
  JitEngine j;
  j.run("(jit-mode 'force)");
  CHECK(j.run("(let loop ((i 0) (acc 0))"
              "  (if (= i 2000) acc"
              "      (begin (if (= 0 (remainder i 200)) (gc))"
              "             (loop (+ i 1) (+ acc ((eval (list 'lambda '(x) (list '+ 'x i))) 1))))))") == "2001000");
  j.run("(gc)");
  CHECK(j.run("((eval '(lambda (x) (* x x))) 12)") == "144");
}

TEST_CASE("jit: negation, squares and operands in one register", "[jit]") {
  std::string defs = kBig62 +
      "(define (neg x) (- x)) (define (neg0 x) (- 0 x)) (define (sq x) (* x x)) (define (dbl x) (+ x x))"
      "(define (zero x) (- x x))";
  std::vector<std::string> procs = {"neg", "neg0", "sq", "dbl", "zero"};
  CHECK(same(defs, "(list (neg 5) (neg0 5) (sq -7) (dbl 21) (zero 9))", procs) == "(-5 -5 49 42 0)");
  CHECK(same(defs, "(list (neg min-fix) (neg0 min-fix) (neg max-fix) (neg0 max-fix))", procs) ==
        "(4611686018427387904 4611686018427387904 -4611686018427387903 -4611686018427387903)");
  CHECK(same(defs, "(list (sq 2147483648) (sq 3037000499) (sq (- (expt 2 31))) (dbl max-fix) (dbl min-fix) (zero min-fix))",
             procs) ==
        "(4611686018427387904 9223372030926249001 4611686018427387904 9223372036854775806 -9223372036854775808 0)");
  same(defs, "(list (neg 0.0) (neg0 0.0) (neg -0.0) (neg0 -0.0) (sq -0.0) (dbl -0.0) (zero +inf.0) (zero +nan.0))",
       procs);
  same(defs, "(list (neg 1/2) (neg0 (expt 2 80)) (sq 1/3) (dbl 0.1) (zero 1/3))", procs);
  same(defs, "(list (* 0 -0.0) (* -0.0 0) (+ 0 -0.0) (- -0.0 0))", {});
}

TEST_CASE("jit: specialized (residual) procedures and their validity guard", "[jit]") {
  std::string defs =
      "(define (helper x) (* x 10)) (define (f a b) (+ (helper a) b)) (define (setter v) (set! helper v))";
  CHECK(same(defs,
             "(let ((g (specialize f 2))) (let ((r1 (g 1))) (setter (lambda (x) (* x 100))) (list r1 (g 1) (f 2 1))))",
             {"f", "setter"}) == "(21 201 201)");
  CHECK(same(defs, "(let ((g (specialize f 3))) (let ((r1 (g 1))) (set! helper -) (list r1 (g 1))))", {"f"}) ==
        "(31 -2)");
  // Residual procedures get machine code at once under 'on.
  JitEngine j;
  j.run(defs);
  j.run("(define g (specialize f 2))");
  CHECK(j.run("(jit-compiled? g)") == "#t");
  CHECK(j.run("(g 5)") == "25");
  j.run("(setter (lambda (x) x))");
  CHECK(j.run("(g 5)") == "7");
  // The policy object decides: with the JIT off, residual procedures stay bytecode.
  j.run("(jit-mode 'off)");
  j.run("(define g3 (specialize f 3))");
  CHECK(j.run("(jit-compiled? g3)") == "#f");
  CHECK(j.run("(g3 5)") == "8");
}

TEST_CASE("jit: allocation and time limits stop compiled code", "[jit]") {
  for (const char* mode : {"off", "on"}) {
    INFO("mode " << mode);
    JitEngine j;
    j.run("(define (grow n acc) (grow (+ n 1) (cons (make-vector 10 n) acc)))");
    CHECK(j.run("(jit-compile! grow)") == "#t");
    j.run(std::string("(jit-mode '") + mode + ")");
    qb::set_limits(j.e, 0, 0, 50 * 1000 * 1000);
    CHECK(contains(j.outcome("(grow 0 '())"), "allocation limit exceeded"));
    qb::set_limits(j.e, 0, 200 * 1000 * 1000, 0);
    CHECK(contains(j.outcome("(let spin ((i 0)) (spin (+ i 1)))"), "time limit exceeded"));
    qb::set_limits(j.e, 0, 0, 0);
    CHECK(j.run("(+ 1 2)") == "3");
  }
}

// ---- host procedures (C++ primitives of the embedding API) called from compiled code ----------

namespace {

// (host-add a b), (host-call proc arg ...) which calls back into Scheme through the bridge,
// (host-fail) which throws quasi::Error, (host-throw) which throws a std::runtime_error.
qb::Word host_add(void*, int, const qb::Word* argv) {
  int64_t a = 0, b = 0;
  if (!qb::to_int64(argv[0], &a) || !qb::to_int64(argv[1], &b)) throw quasi::Error("expected integers");
  return qb::make_int(a + b);
}
qb::Word host_call(void* ctx, int argc, const qb::Word* argv) {
  return qb::apply(static_cast<qb::Engine*>(ctx), argv[0], argc - 1, argv + 1);
}
qb::Word host_fail(void*, int, const qb::Word*) { throw quasi::Error("bad thing"); }
qb::Word host_throw(void*, int, const qb::Word*) { throw std::runtime_error("boom"); }

void define_host_procedures(qb::Engine* e) {
  qb::define_global(e, "host-add", qb::make_host_procedure(e, "host-add", 2, 2, host_add, e, nullptr));
  qb::define_global(e, "host-call", qb::make_host_procedure(e, "host-call", 1, -1, host_call, e, nullptr));
  qb::define_global(e, "host-fail", qb::make_host_procedure(e, "host-fail", 0, 0, host_fail, e, nullptr));
  qb::define_global(e, "host-throw", qb::make_host_procedure(e, "host-throw", 0, 0, host_throw, e, nullptr));
}

struct HostProcedures {
  HostProcedures() { JitEngine::setup = define_host_procedures; }
  ~HostProcedures() { JitEngine::setup = nullptr; }
};

}  // namespace

TEST_CASE("jit: host procedures called from compiled code", "[jit]") {
  HostProcedures host;
  CHECK(same("(define (f x) (+ 1 (host-add x 2)))", "(f 5)") == "8");
  CHECK(same("(define (f x) (host-add x 2))", "(f 5)") == "7");
  std::string r = same("(define (f x) (+ 1 (host-add x 2)))", "(f 'a)");
  CHECK(contains(r, "host-add: expected integers"));
  r = same("(define (f) (+ 1 (host-fail)))", "(f)");
  CHECK(contains(r, "host-fail: bad thing"));
  r = same("(define (f) (host-fail))", "(f)");
  CHECK(contains(r, "host-fail: bad thing"));
  r = same("(define (f) (+ 1 (host-throw)))", "(f)");
  CHECK(contains(r, "boom"));
  CHECK(same("(define (f) (guard (e (#t (list 'caught (error-object-message e)))) (+ 1 (host-fail))))", "(f)") ==
        "(caught \"host-fail: bad thing\")");
  CHECK(same("(define (f) (+ 1 (host-call exit 4)))", "(f)") == "exit 4");
}

TEST_CASE("jit: host procedures calling back into compiled code", "[jit]") {
  HostProcedures host;
  CHECK(same("(define (g x) (* x 10)) (define (f x) (+ 1 (host-call g x)))", "(f 4)", {"f", "g"}) == "41");
  CHECK(same("(define (g x) (host-call (lambda (y) (if (= y 0) 0 (+ 1 (g (- y 1))))) x)) (define (f x) (g x))",
             "(f 50)", {"f", "g"}) == "50");
  // An error in a Scheme callback, uncaught, caught outside, caught inside.
  std::string r = same("(define (f x) (+ 1 (host-call (lambda (y) (car y)) x)))", "(f 5)");
  CHECK(contains(r, "car: expected a pair, got 5"));
  CHECK(same("(define (f x) (guard (e (#t (list 'caught (error-object-message e)))) (+ 1 (host-call car x))))",
             "(f 5)") == "(caught \"car: expected a pair, got 5\")");
  CHECK(same("(define (g x) (guard (e (#t 'inner)) (car x))) (define (f x) (cons 1 (host-call g x)))",
             "(list (f 5) (f '(2)))", {"f", "g"}) == "((1 . inner) (1 . 2))");
  // Escaping from the callback through the C++ frames.
  CHECK(same("(define (f x) (call/cc (lambda (k) (+ 1 (host-call (lambda (y) (k (list 'escaped y))) x)))))", "(f 3)") ==
        "(escaped 3)");
  CHECK(same("(define trace '())"
             "(define (f x) (set! trace '())"
             "  (let ((r (call/cc (lambda (k) (dynamic-wind (lambda () (set! trace (cons 'in trace)))"
             "                                               (lambda () (host-call (lambda (y) (k y)) x))"
             "                                               (lambda () (set! trace (cons 'out trace))))))))"
             "    (list r (reverse trace))))",
             "(f 'v)") == "(v (in out))");
  // Deep recursion through C++ frames.
  CHECK(same("(define (f n) (if (= n 0) 0 (+ 1 (host-call f (- n 1)))))", "(f 200)") == "200");
}

TEST_CASE("jit: location of an error a host callback's primitive raises", "[jit]") {
  // The host procedure calls a *primitive* through the bridge and it fails: the error object has
  // no location of its own, so the outer run gives it the location of the failing call. The
  // interpreter's error_pc was overwritten by the nested run (VmImpl::apply sets it to null), so
  // it reports no location; compiled code sets error_pc after the call (VmImpl::checkpoint) and
  // reports "<test>:1:20" (the host-call). Both must agree.
  HostProcedures host;
  std::string r = same("(define (f x) (+ 1 (host-call car x)))", "(f 5)");
  CHECK(contains(r, "car: expected a pair, got 5"));
  r = same("(define (f x) (host-call vector-ref x 3))", "(f (vector 1))");
  CHECK(contains(r, "vector-ref"));
}

TEST_CASE("jit: every operator on every pair of boundary values", "[jit]") {
  // The cross product of operand kinds: fixnums at and around the 2^62 limits, bignums just
  // outside, rationals, flonums (signed zeros, infinities, NaN), and non-numbers (the errors).
  // Each application's outcome is its value or its error message.
  std::string defs =
      "(define vals (list 0 1 -1 2 -2 7 -7 3037000499 3037000500 -3037000500 2147483648 -2147483648"
      "  (- (expt 2 62) 1) (- (expt 2 62)) (- (expt 2 62) 2) (+ (- (expt 2 62)) 1) (expt 2 62) (- -1 (expt 2 62))"
      "  (expt 2 63) (- (expt 2 63)) (expt 2 100) (- (expt 2 100)) 1/2 -1/3 0.0 -0.0 1.5 -2.5 +inf.0 -inf.0 +nan.0"
      "  4.611686018427388e18 'a))"
      "(define-syntax try (syntax-rules () ((_ e) (guard (c ((error-object? c) (error-object-message c))) e))))"
      "(define (add x y) (+ x y)) (define (sub x y) (- x y)) (define (mul x y) (* x y))"
      "(define (lt x y) (< x y)) (define (le x y) (<= x y)) (define (gt x y) (> x y))"
      "(define (ge x y) (>= x y)) (define (eq x y) (= x y))"
      "(define (blt x y) (if (< x y) 'y 'n)) (define (ble x y) (if (<= x y) 'y 'n))"
      "(define (bgt x y) (if (> x y) 'y 'n)) (define (bge x y) (if (>= x y) 'y 'n))"
      "(define (beq x y) (if (= x y) 'y 'n))"
      "(define (i1 x) (+ x 1)) (define (i2 x) (- x 1)) (define (i3 x) (+ x -1)) (define (i4 x) (+ 7 x))"
      "(define (i5 x) (- x 300)) (define (i6 x) (+ x 32767)) (define (i7 x) (- x -32768))"
      "(define (i8 x) (if (< x 1) 'y 'n)) (define (i9 x) (if (<= x -1) 'y 'n)) (define (i10 x) (if (> x 0) 'y 'n))"
      "(define (i11 x) (if (>= x 2) 'y 'n)) (define (i12 x) (if (= x 0) 'y 'n)) (define (i13 x) (if (< 0 x) 'y 'n))"
      "(define (i14 x) (if (> 5 x) 'y 'n)) (define (i15 x) (if (= 1 x) 'y 'n)) (define (i16 x) (zero? x))"
      "(define (i17 x) (if (zero? x) 'y 'n))"
      "(define (table op) (map (lambda (x) (map (lambda (y) (try (op x y))) vals)) vals))"
      "(define (column op) (map (lambda (x) (try (op x))) vals))"
      "(define (all) (list (map column (list i1 i2 i3 i4 i5 i6 i7 i8 i9 i10 i11 i12 i13 i14 i15 i16 i17))"
      "                    (map table (list add sub mul lt le gt ge eq blt ble bgt bge beq))))";
  std::vector<std::string> procs = {"add", "sub", "mul", "lt", "le", "gt", "ge", "eq", "blt", "ble", "bgt", "bge",
                                    "beq", "i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8", "i9", "i10", "i11",
                                    "i12", "i13", "i14", "i15", "i16", "i17"};
  Outcomes r = three_ways(defs, "(all)", procs);
  CHECK(!contains(r.off, "error: "));
  CHECK(contains(r.off, "+nan.0"));
  CHECK(contains(r.off, "+: expected a number, got a"));
}

TEST_CASE("jit: engines on several threads compile and run at once", "[jit]") {
  constexpr int kThreads = 4;
  std::vector<std::string> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&results, t] {
      try {
        JitEngine j;  // made on this thread
        j.run("(jit-mode 'force)");
        j.run("(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))"
              "(define (build n acc) (if (= n 0) acc (build (- n 1) (cons (* n 1.5) acc))))");
        std::string r;
        for (int round = 0; round < 100; round++) {
          // A fresh procedure each round: compiled while the other threads compile theirs.
          r = j.run("(let ((g (eval '(lambda (x) (+ x " + std::to_string(round) + "))))) "
                    "(list (fib 18) (length (build 20000 '())) (g " + std::to_string(t) + ")))");
          if (round % 10 == 0) qb::collect_garbage();
        }
        results[t] = r;
      } catch (const std::exception& e) {
        results[t] = std::string("exception: ") + e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; t++) CHECK(results[t] == "(2584 20000 " + std::to_string(99 + t) + ")");
}
