// Tests of the online partial evaluator (lib/pe): residual shapes, memoization, termination on
// programs built to make a naive specializer loop, soundness (effects, errors, mutation,
// redefinition), partially static data, and a differential test: original and specialized
// procedures agree on many inputs (including inputs that raise) for the examples and for a
// generated corpus of random programs.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/engine_bridge.hpp"
#include "quasi/error.hpp"

namespace {

using quasi::bridge::Engine;

// Each test case gets a fresh engine (stats and caches start empty).
struct Fixture {
  Engine* e = quasi::bridge::create_engine();
  ~Fixture() { quasi::bridge::destroy_engine(e); }

  std::string run(const std::string& code) {
    return quasi::bridge::write(quasi::bridge::eval(e, code, "<pe-test>"), false);
  }
  std::string error_of(const std::string& code) {
    try {
      run(code);
    } catch (quasi::Error& err) {
      return err.what();
    }
    return "<no error>";
  }
  // (outcome thunk): (ok value) or (err message irritants) or (raised object).
  void define_outcome() {
    run("(define (outcome thunk)"
        "  (guard (e (#t (if (error-object? e)"
        "                    (list 'err (error-object-message e) (error-object-irritants e))"
        "                    (list 'raised e))))"
        "    (list 'ok (thunk))))");
  }
  long stat(const std::string& name) {
    return std::stol(run("(cdr (assq '" + name + " (specialize-stats)))"));
  }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

// ---- residual shapes ----------------------------------------------------------------------------

TEST_CASE("the add example reads as (lambda (y) (+ 1 y))", "[pe]") {
  Fixture f;
  f.run("(define (add x y) (+ x y))");
  CHECK(f.run("(residual (specialize add 1))") == "(lambda (y) (+ 1 y))");
  CHECK(f.run("((specialize add 1) 41)") == "42");
}

TEST_CASE("primitives can be specialized", "[pe]") {
  Fixture f;
  CHECK(f.run("((specialize + 1) 2)") == "3");
  CHECK(f.run("((specialize + 1))") == "1");
  CHECK(f.run("((specialize + 1) 2 3 4)") == "10");
  CHECK(f.run("(residual (specialize cons 1))") == "(lambda (y) (cons 1 y))");
  CHECK(f.run("((specialize* - '((1 . 5))) 12)") == "7");
}

TEST_CASE("power with a static exponent is a chain of multiplications", "[pe]") {
  Fixture f;
  f.run("(define (power x n) (if (= n 0) 1 (* x (power x (- n 1)))))");
  CHECK(f.run("(residual (specialize* power '((1 . 3))))") == "(lambda (x) (* x (* x (* x 1))))");
  std::string r = f.run("(residual (specialize* power '((1 . 16))))");
  size_t muls = 0;
  for (size_t p = r.find("(* x"); p != std::string::npos; p = r.find("(* x", p + 1)) muls++;
  CHECK(muls == 16);
  CHECK(r.find("power") == std::string::npos);
  CHECK(f.run("((specialize* power '((1 . 16))) 2)") == "65536");
}

TEST_CASE("a static loop over a dynamic counter stays a loop", "[pe][termination]") {
  Fixture f;
  // A naive specializer unfolds (f 1 ...), (f 2 ...), ... forever: n grows under a dynamic test.
  f.run("(define (f n x) (if (= x 0) n (f (+ n 1) (- x 1))))");
  f.run("(define g (specialize f 0))");
  CHECK(f.run("(g 100000)") == "100000");
  std::string r = f.run("(residual g)");
  CHECK(r.find("letrec*") != std::string::npos);  // a residual loop
  CHECK(f.stat("budget-exhaustions") == 0);
}

TEST_CASE("programs that loop at specialization time end within the budget", "[pe][termination]") {
  Fixture f;
  // Static infinite recursion, reached only on some inputs.
  f.run("(define (spin n) (spin (+ n 1)))");
  f.run("(define (h n x) (if (> x 0) (spin n) x))");
  CHECK(f.run("((specialize h 0) -5)") == "-5");
  // Exponential static unfolding.
  f.run("(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))");
  f.run("(define (fibx n x) (+ x (fib n)))");
  // (A static run out of steps: that call alone stays residual.)
  CHECK(f.run("(residual (specialize fibx 40))") == "(lambda (x) (+ x (fib 40)))");
  CHECK(f.stat("residualized-calls") >= 1);
  // Exponential unfolding with a dynamic part: the runaway unfolding becomes a helper.
  f.run("(define (fibd n x) (if (< n 2) x (+ (fibd (- n 1) x) (fibd (- n 2) x))))");
  CHECK(f.run("((specialize fibd 25) 1)") == "121393");
  // A static value that grows forever and is also tested.
  f.run("(define (grow l x) (if (> x 0) (grow (cons 1 l) (- x 1)) (length l)))");
  CHECK(f.run("((specialize grow '()) 50)") == "50");
  // Deep static recursion.
  f.run("(define (count-down n acc) (if (= n 0) acc (count-down (- n 1) (+ acc 1))))");
  f.run("(define (cd n x) (+ x (count-down n 0)))");
  CHECK(f.run("((specialize cd 100000) 1)") == "100001");
  // Mutual recursion under dynamic control.
  f.run("(define (ev? n k) (if (= n 0) k (od? (- n 1) (+ k 1))))"
        "(define (od? n k) (if (= n 0) (- k) (ev? (- n 1) (+ k 1))))");
  CHECK(f.run("((specialize* ev? '((1 . 0))) 1001)") == "-1001");
}

TEST_CASE("(residual p) is the code that runs: cleaned by the optimizer's passes", "[pe]") {
  Fixture f;
  // The helper of the dynamic branch is called once: inline-small puts it in place, forward and
  // params tidy up; what residual shows is what eval (and the compiler) get.
  f.run("(define (second l) (cadr l))");
  f.run("(define (h x d) (if (> d 0) (if (null? (second x)) 'empty (car (second x))) 0))");
  f.run("(define h1 (specialize h '(1 (a b))))");
  CHECK(f.run("(residual h1)") == "(lambda (d) (if (> d 0) 'a 0))");
  CHECK(f.run("(map h1 '(-1 0 1))") == "(0 0 a)");
  CHECK(f.run("(map (eval (residual h1) (interaction-environment)) '(-1 0 1))") == "(0 0 a)");
  // A loop passes no invariant along (the count is read from the residual's parameter).
  f.run("(define (walk l n acc) (if (null? l) acc (walk (cdr l) n (+ acc n))))");
  CHECK(f.run("(residual (specialize* walk '((2 . 0))))") ==
        "(lambda (l n) (letrec* ((walk (lambda (l2 acc) (if (null? l2) acc (walk (cdr l2) (+ acc n)))))) (walk l 0)))");
}

TEST_CASE("printing deep residual code is linear", "[pe]") {
  Fixture f;
  f.run("(define (count n x) (if (= n 0) x (+ (count (- n 1) x) 1)))");
  f.run("(define p (specialize count 15000))");
  CHECK(f.run("(p 1)") == "15001");
  long size = std::stol(f.run("(let ((s (open-output-string))) (print-residual p s) (string-length (get-output-string s)))"));
  CHECK(size < 2000000);
}

// ---- memoization -------------------------------------------------------------------------------

TEST_CASE("specializing on equal? arguments returns the same procedure", "[pe][cache]") {
  Fixture f;
  f.run("(define (add x y) (+ x y))");
  CHECK(f.run("(eq? (specialize add 1) (specialize add 1))") == "#t");
  CHECK(f.run("(eq? (specialize add '(1 2)) (specialize add (list 1 2)))") == "#f");  // mutable list
  CHECK(f.run("(eq? (specialize add '(1 2)) (specialize add '(1 2)))") == "#t");
  CHECK(f.run("(eq? (specialize add \"ab\") (specialize add \"ab\"))") == "#t");
  CHECK(f.run("(eq? (specialize add 1) (specialize* add '((0 . 1))))") == "#t");
  CHECK(f.run("(eq? (specialize add 1) (specialize add 2))") == "#f");
  CHECK(f.stat("cache-hits") >= 3);
}

// ---- errors ------------------------------------------------------------------------------------

TEST_CASE("bad requests raise clear errors naming specialize", "[pe]") {
  Fixture f;
  f.run("(define (add x y) (+ x y))");
  CHECK(f.error_of("(specialize 5 1)").find("specialize") != std::string::npos);
  CHECK(f.error_of("(specialize 5 1)").find("procedure") != std::string::npos);
  CHECK(f.error_of("(specialize add 1 2 3)").find("specialize") != std::string::npos);
  CHECK(f.error_of("(specialize add 1 2 3)").find("too many") != std::string::npos);
  CHECK(f.error_of("(specialize car 1 2)").find("too many") != std::string::npos);
  CHECK(f.error_of("(specialize* add '((5 . 1)))").find("specialize*") != std::string::npos);
  CHECK(f.error_of("(specialize* add '((0 . 1) (0 . 2)))").find("twice") != std::string::npos);
  CHECK(f.error_of("(residual car)").find("residual") != std::string::npos);
  // An error object a handler can inspect.
  CHECK(f.run("(guard (e ((error-object? e) 'caught)) (specialize 'x))") == "caught");
}

// ---- soundness ---------------------------------------------------------------------------------

TEST_CASE("effects happen in program order, as often as in the original", "[pe][soundness]") {
  Fixture f;
  f.run("(define log '()) (define (note x) (set! log (cons x log)) x)");
  f.run("(define (g a b) (let ((u (note a))) (+ (note b) u (note a))))");
  f.run("(define g1 (specialize g 1))");
  CHECK(f.run("(begin (set! log '()) (g1 2) log)") == "(1 2 1)");
  CHECK(f.run("(begin (set! log '()) (g 1 2) log)") == "(1 2 1)");
  // An effectful dynamic value used twice is computed once.
  f.run("(define (twice n p) (let ((v (p))) (+ v v n)))");
  f.run("(define count 0)");
  CHECK(f.run("((specialize twice 1) (lambda () (set! count (+ count 1)) count))") == "3");
  CHECK(f.run("count") == "1");
  // Effects in a dead static branch do not happen; in a dynamic branch only when taken.
  f.run("(define (e n x) (if (> n 0) (if (> x 0) (note 'pos) (note 'neg)) (note 'never)))");
  CHECK(f.run("(begin (set! log '()) ((specialize e 1) -1) log)") == "(neg)");
}

TEST_CASE("a failing static computation raises only if reached", "[pe][soundness]") {
  Fixture f;
  f.define_outcome();
  f.run("(define (h n x) (if (> x 0) (car n) x))");
  f.run("(define h1 (specialize h '()))");
  CHECK(f.run("(h1 0)") == "0");
  CHECK(f.run("(outcome (lambda () (h1 1)))") == f.run("(outcome (lambda () (h '() 1)))"));
  f.run("(define (q n x) (if (= x 0) 'zero (quotient x n)))");
  CHECK(f.run("((specialize q 0) 0)") == "zero");
  CHECK(f.run("(outcome (lambda () ((specialize q 0) 5)))") == "(err \"quotient: division by zero in (quotient 5 0)\" ())");
  // An error call in static code stays an error at run time.
  f.run("(define (chk n x) (if (< n 0) (error \"negative\" n) (+ n x)))");
  CHECK(f.run("((specialize chk 1) 2)") == "3");
  CHECK(f.run("(outcome (lambda () ((specialize chk -1) 2)))") == "(err \"negative\" (-1))");
}

TEST_CASE("mutable static arguments are not frozen", "[pe][soundness]") {
  Fixture f;
  f.run("(define v (vector 1 2 3))");
  f.run("(define (vr v i) (vector-ref v i))");
  f.run("(define vr1 (specialize vr v))");
  CHECK(f.run("(vr1 0)") == "1");
  f.run("(vector-set! v 0 99)");
  CHECK(f.run("(vr1 0)") == "99");
  f.run("(define l (list 1 2))");
  f.run("(define (first l x) (+ (car l) x))");
  f.run("(define f1 (specialize first l))");
  f.run("(set-car! l 10)");
  CHECK(f.run("(f1 1)") == "11");
  f.run("(define s (string #\\a #\\b))");
  f.run("(define (sr s i) (string-ref s i))");
  f.run("(define s1 (specialize sr s))");
  f.run("(string-set! s 0 #\\z)");
  CHECK(f.run("(s1 0)") == "#\\z");
  // A literal is immutable: its contents are used.
  CHECK(f.run("(residual (specialize first '(5 6)))") == "(lambda (x) (+ 5 x))");
}

TEST_CASE("redefining a global the specialization used invalidates it", "[pe][soundness]") {
  Fixture f;
  f.run("(define (sq x) (* x x))");
  f.run("(define (use n x) (+ (sq n) x))");
  f.run("(define u (specialize use 3))");
  CHECK(f.run("(residual u)") == "(lambda (x) (+ 9 x))");
  CHECK(f.run("(u 1)") == "10");
  f.run("(define (sq x) (* 10 x))");
  CHECK(f.run("(u 1)") == "31");
  CHECK(f.stat("invalidations") == 1);
  CHECK(f.run("(eq? u (specialize use 3))") == "#f");
  CHECK(f.run("((specialize use 3) 1)") == "31");
  f.run("(set! sq (lambda (x) 0))");
  CHECK(f.run("((specialize use 3) 1)") == "1");
  CHECK(f.run("(u 1)") == "1");
}

TEST_CASE("set! variables are dynamic; closures and higher-order arguments", "[pe][soundness]") {
  Fixture f;
  f.run("(define (counter n) (let ((c n)) (lambda (k) (set! c (+ c k)) c)))");
  f.run("(define (cnt n k) (let ((ctr (counter n))) (ctr k) (ctr k)))");
  CHECK(f.run("((specialize cnt 10) 5)") == "20");
  // A runtime closure over a set! variable is called, not inlined.
  f.run("(define c2 (counter 0))");
  f.run("(define (bump p x) (p x))");
  CHECK(f.run("(let ((b (specialize bump c2))) (b 1) (b 1))") == "2");
  // A static lambda passed in is inlined.
  f.run("(define (my-map f l) (if (null? l) '() (cons (f (car l)) (my-map f (cdr l)))))");
  f.run("(define (addall n l) (my-map (lambda (x) (+ x n)) l))");
  CHECK(f.run("((specialize addall 10) '(1 2 3))") == "(11 12 13)");
  CHECK(f.run("(residual (specialize addall 10))").find("lambda (x)") == std::string::npos);
  f.run("(define (compose f g) (lambda (x) (f (g x))))");
  f.run("(define (app h x) (h x))");
  CHECK(f.run("(residual (specialize app (compose car cdr)))") == "(lambda (x) (car (cdr x)))");
  CHECK(f.run("((specialize map (lambda (x) (* x x))) '(1 2 3))") == "(1 4 9)");
}

TEST_CASE("rest arguments, case-lambda, apply, call/cc and dynamic-wind", "[pe]") {
  Fixture f;
  f.run("(define (r a . rest) (apply + a rest))");
  CHECK(f.run("((specialize r 1 2 3) 4 5)") == "15");
  CHECK(f.run("((specialize r 1))") == "1");
  f.run("(define cl (case-lambda ((a) (list 'one a)) ((a b) (list 'two a b)) ((a . r) (list 'many a r))))");
  CHECK(f.run("(let ((c (specialize cl 1))) (list (c) (c 2) (c 2 3)))") == "((one 1) (two 1 2) (many 1 (2 3)))");
  f.run("(define (ap f x) (apply f 1 (list x 3)))");
  CHECK(f.run("(residual (specialize ap list))") == "(lambda (x) (list 1 x 3))");
  f.run("(define (cc n x) (call/cc (lambda (k) (if (> x n) (k 'big) 'small))))");
  CHECK(f.run("(let ((c (specialize cc 5))) (list (c 10) (c 1)))") == "(big small)");
  f.run("(define (dw n x) (let ((out '())) (dynamic-wind (lambda () (set! out (cons 'in out)))"
        " (lambda () (+ n x)) (lambda () (set! out (cons 'out out)))) out))");
  CHECK(f.run("((specialize dw 1) 2)") == "(out in)");
  // Re-entering a continuation captured inside specialized code.
  f.run("(define k #f) (define n 0)");
  f.run("(define (gen a x) (+ a (call/cc (lambda (c) (set! k c) x))))");
  CHECK(f.run("(let ((g (specialize gen 100))) (let ((v (g 1))) (set! n (+ n 1)) (if (< n 3) (k n) v)))") ==
        "102");
}

TEST_CASE("partially static data: known parts of built structures", "[pe][ps]") {
  Fixture f;
  f.run("(define (lk y) (cdr (assq 'x (list (cons 'w 0) (cons 'x y)))))");
  CHECK(f.run("(residual (specialize lk))") == "(lambda (y) y)");
  f.run("(define (pv a b) (let ((v (vector a b))) (+ (vector-ref v 0) (vector-length v))))");
  CHECK(f.run("(residual (specialize pv))") == "(lambda (a b) (+ a 2))");
  // An object that escapes is built once and keeps its identity.
  f.run("(define saved #f)");
  f.run("(define (esc n x) (let ((p (cons n x))) (set! saved p) (eq? p saved)))");
  CHECK(f.run("((specialize esc 1) 2)") == "#t");
  CHECK(f.run("saved") == "(1 . 2)");
  // Mutation after an escape is seen.
  f.run("(define (mut n x) (let ((p (list n x))) (set-car! (cdr p) 7) (cadr p)))");
  CHECK(f.run("((specialize mut 1) 2)") == "7");
}

TEST_CASE("the interpreter's residual has no dispatch and no environment", "[pe][examples]") {
  Fixture f;
  std::string src = slurp(std::string(QUASI_SOURCE_DIR) + "/scheme/examples/interp.scm");
  f.run(src);
  std::string r = f.run("(residual compiled)");
  for (const char* absent : {"'add", "'call", "lookup", "find-fun", "eq?", "car", "cadr", "symbol?", "number?"})
    CHECK(r.find(absent) == std::string::npos);
  CHECK(f.run("(equal? (map compiled '(0 1 2 7 12)) (map (lambda (n) (run-program program n)) '(0 1 2 7 12)))") ==
        "#t");
}

TEST_CASE("the KMP test: the specialized matcher never re-reads matched text", "[pe][examples]") {
  Fixture f;
  f.run(slurp(std::string(QUASI_SOURCE_DIR) + "/scheme/examples/kmp.scm"));
  // The same matcher, reading the text through a logging accessor.
  f.run("(define reads 0)"
        "(define (count-with get pat n)"
        "  (let ((m (string-length pat)))"
        "    (define (try start i known count)"
        "      (cond ((= i m) (shift start i known (+ count 1)))"
        "            ((pair? known) (if (char=? (string-ref pat i) (car known))"
        "                               (try start (+ i 1) (cdr known) count) (shift start i known count)))"
        "            ((>= (+ start i) n) count)"
        "            ((char=? (string-ref pat i) (get (+ start i))) (try start (+ i 1) '() count))"
        "            (else (shift start i '() count))))"
        "    (define (shift start i rest count)"
        "      (try (+ start 1) 0 (cond ((> i 0) (append (prefix-chars pat 1 i) rest))"
        "                               ((pair? rest) (cdr rest)) (else '())) count))"
        "    (try 0 0 '() 0)))"
        "(define (naive-with get pat n)"
        "  (let ((m (string-length pat)))"
        "    (let loop ((s 0) (c 0))"
        "      (if (> (+ s m) n) c"
        "          (loop (+ s 1) (let at ((i 0)) (cond ((= i m) (+ c 1))"
        "                                             ((char=? (string-ref pat i) (get (+ s i))) (at (+ i 1)))"
        "                                             (else c))))))))"
        "(define text \"aaaaaaaaabaaaaaaaaaabaaaaaaaaaaaaaaaaaaaaaaaaab\")"
        "(define (getter i) (set! reads (+ reads 1)) (string-ref text i))"
        "(define spec (specialize* count-with (list (cons 1 \"aaaaaaaab\"))))");
  std::string n = f.run("(string-length text)");
  CHECK(f.run("(begin (set! reads 0) (spec getter (string-length text)))") ==
        f.run("(naive-with getter \"aaaaaaaab\" (string-length text))"));
  long spec_reads = std::stol(f.run("(begin (set! reads 0) (spec getter (string-length text)) reads)"));
  long naive_reads = std::stol(f.run("(begin (set! reads 0) (naive-with getter \"aaaaaaaab\" (string-length text)) reads)"));
  // KMP reads each character at most twice (once when it matches, once more after a mismatch).
  CHECK(spec_reads <= 2 * std::stol(n));
  CHECK(naive_reads > 3 * spec_reads);
  // No helper in the residual of the example reads a text position below the one it was given.
  CHECK(f.run("(equal? (map kmp '(\"\" \"abaababaabaababa\" \"xyz\")) "
              "(map (lambda (t) (count-occurrences pattern t)) '(\"\" \"abaababaabaababa\" \"xyz\")))") == "#t");
}

// ---- differential testing ----------------------------------------------------------------------

namespace {

// Inputs that probe fixnum/bignum boundaries, type errors and lists.
const char* kInputs[] = {"0", "1", "-1", "7", "-13", "4611686018427387903", "-4611686018427387904",
                         "1180591620717411303424", "'a", "'(1 2 3)", "\"str\"", "2.5", "'()", "#t"};

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int pick(int n) { return int(rng_() % uint32_t(n)); }

  std::string expr(int depth, const std::vector<std::string>& vars) {
    if (depth <= 0 || pick(5) == 0) return leaf(vars);
    switch (pick(20)) {
      case 0: return "(+ " + expr(depth - 1, vars) + " " + expr(depth - 1, vars) + ")";
      case 1: return "(- " + expr(depth - 1, vars) + " " + expr(depth - 1, vars) + ")";
      case 2: return "(* " + expr(depth - 1, vars) + " " + expr(depth - 1, vars) + ")";
      case 3: return "(quotient " + expr(depth - 1, vars) + " " + expr(depth - 1, vars) + ")";
      case 4: return "(if (< " + expr(depth - 1, vars) + " " + expr(depth - 1, vars) + ") " + expr(depth - 1, vars) +
                     " " + expr(depth - 1, vars) + ")";
      case 5: return "(if (pair? " + expr(depth - 1, vars) + ") " + expr(depth - 1, vars) + " " + expr(depth - 1, vars) + ")";
      case 6: {
        std::string v = "v" + std::to_string(counter_++);
        std::vector<std::string> inner = vars;
        inner.push_back(v);
        return "(let ((" + v + " " + expr(depth - 1, vars) + ")) " + expr(depth - 1, inner) + ")";
      }
      case 7: {
        std::string v = "w" + std::to_string(counter_++);
        std::vector<std::string> inner = vars;
        inner.push_back(v);
        return "((lambda (" + v + ") " + expr(depth - 1, inner) + ") " + expr(depth - 1, vars) + ")";
      }
      case 8: return "(car " + list(depth - 1, vars) + ")";
      case 9: return "(cdr " + list(depth - 1, vars) + ")";
      case 10: return "(length " + list(depth - 1, vars) + ")";
      case 11: return "(if (= " + expr(depth - 1, vars) + " 3) (error \"boom\" " + expr(depth - 1, vars) + ") " +
                      expr(depth - 1, vars) + ")";
      case 12: return "(loop (remainder " + expr(depth - 1, vars) + " 5) " + expr(depth - 1, vars) + ")";
      case 13: return "(vector-ref (vector " + expr(depth - 1, vars) + " " + expr(depth - 1, vars) + ") (remainder " +
                      expr(depth - 1, vars) + " 2))";
      case 14: return "(cdr (assq 'k (list (cons 'j " + expr(depth - 1, vars) + ") (cons 'k " + expr(depth - 1, vars) + "))))";
      case 15: return "(apply + (list " + expr(depth - 1, vars) + " " + expr(depth - 1, vars) + "))";
      case 16: {  // a partially static vector that is mutated
        std::string v = "b" + std::to_string(counter_++);
        return "(let ((" + v + " (vector " + expr(depth - 1, vars) + " 0))) (vector-set! " + v + " 1 " +
               expr(depth - 1, vars) + ") (+ (vector-ref " + v + " 0) (vector-ref " + v + " 1)))";
      }
      case 17: {  // an assigned variable
        std::string v = "c" + std::to_string(counter_++);
        std::vector<std::string> inner = vars;
        inner.push_back(v);
        return "(let ((" + v + " " + expr(depth - 1, vars) + ")) (set! " + v + " (- " + v + " " +
               expr(depth - 1, inner) + ")) " + v + ")";
      }
      case 18: {  // a closure that escapes into a list and is called from there
        std::string z = "z" + std::to_string(counter_++);
        std::vector<std::string> inner = vars;
        inner.push_back(z);
        return "((car (list (lambda (" + z + ") " + expr(depth - 1, inner) + "))) " + expr(depth - 1, vars) + ")";
      }
      default: {  // an escape through call/cc
        std::string k = "k" + std::to_string(counter_++);
        return "(call/cc (lambda (" + k + ") (if (< " + expr(depth - 1, vars) + " 0) (" + k + " " +
               expr(depth - 1, vars) + ") " + expr(depth - 1, vars) + ")))";
      }
    }
  }

  std::string list(int depth, const std::vector<std::string>& vars) {
    switch (pick(4)) {
      case 0: return "(list " + expr(depth, vars) + " " + expr(depth, vars) + ")";
      case 1: return "(cons " + expr(depth, vars) + " " + expr(depth, vars) + ")";
      case 2: return "'(1 2 3)";
      default: return leaf(vars);
    }
  }

  std::string leaf(const std::vector<std::string>& vars) {
    switch (pick(6)) {
      case 0: return std::to_string(pick(7) - 2);
      case 1: return pick(2) ? "4611686018427387903" : "-4611686018427387904";
      default: return vars[size_t(pick(int(vars.size())))];
    }
  }

 private:
  std::mt19937 rng_;
  int counter_ = 0;
};

}  // namespace

TEST_CASE("differential: random programs agree with their specializations", "[pe][differential]") {
  Fixture f;
  f.define_outcome();
  // A bounded recursive helper the programs call (a loop under a dynamic test).
  f.run("(define (loop k acc) (if (and (integer? k) (> k 0)) (loop (- k 1) (+ acc k)) acc))");
  // PE_FUZZ_PROGRAMS / PE_FUZZ_SEED run a longer or different corpus (default: 120, fixed seed).
  const char* np = std::getenv("PE_FUZZ_PROGRAMS");
  const char* ns = std::getenv("PE_FUZZ_SEED");
  Gen gen(ns ? uint32_t(std::stoul(ns)) : 20240611u);
  int programs = np ? std::stoi(np) : 120, compared = 0;
  for (int p = 0; p < programs; p++) {
    std::string body = gen.expr(4, {"s", "d"});
    std::string name = "g" + std::to_string(p);
    f.run("(define (" + name + " s d) " + body + ")");
    for (int si = 0; si < 3; si++) {
      std::string s = kInputs[gen.pick(int(sizeof kInputs / sizeof *kInputs))];
      // Fix s (position 0), and separately d (position 1).
      f.run("(define sp0 (specialize " + name + " " + s + "))");
      f.run("(define sp1 (specialize* " + name + " (list (cons 1 " + s + "))))");
      for (const char* d : kInputs) {
        std::string want = f.run("(outcome (lambda () (" + name + " " + s + " " + d + ")))");
        INFO("program: (define (" + name + " s d) " + body + ")  s=" + s + " d=" + d);
        CHECK(f.run("(outcome (lambda () (sp0 " + std::string(d) + ")))") == want);
        std::string want1 = f.run("(outcome (lambda () (" + name + " " + d + " " + s + ")))");
        CHECK(f.run("(outcome (lambda () (sp1 " + std::string(d) + ")))") == want1);
        compared += 2;
      }
    }
  }
  CHECK(compared >= programs * 3 * 28);
}

TEST_CASE("differential: the examples agree with their originals", "[pe][differential]") {
  Fixture f;
  f.define_outcome();
  for (const char* ex : {"power.scm", "interp.scm", "kmp.scm", "add-example.scm", "flow.scm"})
    f.run(slurp(std::string(QUASI_SOURCE_DIR) + "/scheme/examples/" + ex));
  for (const char* x : {"0", "1", "2", "-3", "5", "'a", "4611686018427387903", "2.5"}) {
    std::string xs = x;
    CHECK(f.run("(outcome (lambda () (power16 " + xs + ")))") == f.run("(outcome (lambda () (power " + xs + " 16)))"));
    CHECK(f.run("(outcome (lambda () (cube " + xs + ")))") == f.run("(outcome (lambda () (power " + xs + " 3)))"));
    CHECK(f.run("(outcome (lambda () (add1 " + xs + ")))") == f.run("(outcome (lambda () (add 1 " + xs + ")))"));
  }
  for (const char* n : {"0", "1", "3", "8", "-2"})
    CHECK(f.run(std::string("(outcome (lambda () (compiled ") + n + ")))") ==
          f.run(std::string("(outcome (lambda () (run-program program ") + n + ")))"));
  CHECK(f.run("(outcome (lambda () (compiled 'x)))") == f.run("(outcome (lambda () (run-program program 'x)))"));
  for (const char* t : {"\"\"", "\"abaababa\"", "\"abaababaababa\"", "\"ababababaababaaba\"", "\"zz\""})
    CHECK(f.run(std::string("(kmp ") + t + ")") == f.run(std::string("(count-occurrences pattern ") + t + ")"));
  CHECK(f.run("(outcome (lambda () (kmp 5)))") == f.run("(outcome (lambda () (count-occurrences pattern 5)))"));
  for (const char* n : {"0", "1", "2", "3", "64", "65", "300", "-2", "2.5", "'x", "\"s\""})
    CHECK(f.run(std::string("(outcome (lambda () (compiled-flow ") + n + ")))") ==
          f.run(std::string("(outcome (lambda () (run-flow flow-program ") + n + ")))"));
}
