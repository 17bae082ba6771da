// Tests of the eqsat pass (lib/passes/eqsat.cpp): what it rewrites once the type lattice licenses
// it, and what it must leave alone (flonums, values of unknown type, errors). IR comes from the
// real expander in a real engine, with the pass switched on (level 3) and verify_ir after each pass.
#include <catch2/catch.hpp>

#include <string>

#include "engine/dump.hpp"
#include "engine/engine_bridge.hpp"
#include "passes/pass_manager.hpp"
#include "vm/vm.hpp"

using namespace quasi;

namespace {

bridge::Engine* eqsat_engine() {
  static bridge::Engine* e = [] {
    bridge::Engine* made = bridge::create_engine(bridge::EngineConfig{});
    bridge::vm_of(made).pass_options->verify = true;
    bridge::vm_of(made).pass_options->opt_level = kEqsatLevel;
    return made;
  }();
  return e;
}

// `code` after the whole pipeline with eqsat on (or after `pass`).
std::string opt(const std::string& code, const std::string& pass = "all") {
  Vm& vm = bridge::vm_of(eqsat_engine());
  std::string out = dump_ir_text(vm, vm.interaction_env, code, pass);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string eval(const std::string& code) {
  return bridge::write(bridge::eval(eqsat_engine(), code, "<test>"), false);
}

}  // namespace

TEST_CASE("eqsat: registered at level 3, after refold", "[eqsat]") {
  auto passes = registered_passes();
  REQUIRE(passes.size() == 6);
  CHECK(std::string(passes[5].name) == "eqsat");
  CHECK(passes[5].level == kEqsatLevel);
  CHECK(kEqsatLevel > kDefaultOptLevel);
}

TEST_CASE("eqsat: exact counters reassociate and fold", "[eqsat]") {
  // (forward moves a single-use let into its use, so the variable may be gone.)
  auto has = [](const std::string& out, const std::string& part) { return out.find(part) != std::string::npos; };
  std::string counter = opt("(lambda (v) (let ((s (vector-length v))) (+ (+ (+ s 1) 1) 1)))", "eqsat");
  CHECK(has(counter, "(+ (vector-length v) 3)"));
  CHECK_FALSE(has(counter, "1) 1)"));
  std::string halve = opt("(lambda (v) (let ((a (vector-length v))) (/ (* a 2) 2)))", "eqsat");
  CHECK(halve == "(lambda (v) (vector-length v))");
  // A type test proves exactness in its true branch only.
  CHECK(opt("(lambda (a) (if (exact-integer? a) (/ (* a 2) 2) (/ (* a 2) 2)))", "eqsat") ==
        "(lambda (a) (if (exact-integer? a) a (/ (* a 2) 2)))");
  // n is used twice: the let stays, and (- (+ n 5) n) is 5 (n cannot raise: it is bound).
  CHECK(opt("(lambda (v) (let ((n (string-length v))) (+ n (- (+ n 5) n))))", "eqsat") ==
        "(lambda (v) (let ((n (string-length v))) (+ n 5)))");
  CHECK(has(opt("(lambda (v) (let ((n (length v))) (+ (* n 2) n)))", "eqsat"), "(arithmetic-shift n 1)"));
}

TEST_CASE("eqsat: loop parameters that every call keeps exact are exact", "[eqsat]") {
  std::string exact = opt("(lambda (n) (let loop ((i 0)) (if (< n i) i (loop (+ (+ i 1) 1)))))", "eqsat");
  CHECK(exact.find("(+ i 2)") != std::string::npos);
  // Started at a flonum, or passed an unknown value by some call: not exact.
  std::string flo = opt("(lambda (n) (let loop ((i 0.5)) (if (< n i) i (loop (+ (+ i 1) 1)))))", "eqsat");
  CHECK(flo.find("(+ (+ i 1) 1)") != std::string::npos);
  std::string mixed = opt("(lambda (n) (let loop ((i 0) (k 0)) (if (< n k) i (loop (+ (+ i 1) 1) n))))", "eqsat");
  CHECK(mixed.find("(+ (+ i 1) 1)") == std::string::npos);
  std::string unknown = opt("(lambda (n x) (let loop ((i 0) (k 0)) (if (< n k) (+ (+ k 1) 1) (loop 1 x))))", "eqsat");
  CHECK(unknown.find("(+ (+ k 1) 1)") != std::string::npos);
  // A loop procedure that escapes may be called with anything.
  std::string escapes = opt("(lambda (n) (letrec ((f (lambda (i) (+ (+ i 1) 1)))) (f 0) f))", "eqsat");
  CHECK(escapes.find("(+ (+ i 1) 1)") != std::string::npos);
}

TEST_CASE("eqsat: flonums and unknown values are left alone", "[eqsat]") {
  // Unknown: (+ (+ s 1) 1) may be flonum arithmetic, (- x x) may raise.
  const char* unknown = "(lambda (s) (+ (+ s 1) 1))";
  CHECK(opt(unknown, "eqsat") == opt(unknown, "refold"));
  CHECK(opt("(lambda (x) (- x x))", "eqsat") == "(lambda (x) (- x x))");
  CHECK(opt("(lambda (a) (/ (* a 2) 2))", "eqsat") == "(lambda (a) (/ (* a 2) 2))");
  // Flonum: inexact contagion makes x a flonum; no reassociation.
  std::string flo = opt("(lambda (v) (let ((x (+ (vector-length v) 0.5))) (+ (+ x 1) 1)))", "eqsat");
  CHECK(flo.find("1) 1)") != std::string::npos);
  // An exact operand that can raise (quotient by zero) is not dropped.
  CHECK(opt("(lambda (v d) (let ((n (vector-length v))) (* (quotient n d) 0)))", "eqsat").find(
            "(* (quotient") != std::string::npos);
  // Assigned variables are not region leaves.
  const char* assigned = "(lambda (v) (let ((s (vector-length v))) (set! s 1.5) (+ (+ s 1) 1)))";
  CHECK(opt(assigned, "eqsat") == opt(assigned, "refold"));
}

TEST_CASE("eqsat: results are the same as without it", "[eqsat]") {
  CHECK(eval("((lambda (v) (let ((s (vector-length v))) (+ (+ (+ s 1) 1) 1))) (make-vector 4 0))") == "7");
  CHECK(eval("((lambda (a) (if (exact-integer? a) (/ (* a 2) 2) (/ (* a 2) 2))) 2.5)") == "2.5");
  CHECK(eval("((lambda (a) (if (exact-integer? a) (/ (* a 2) 2) (/ (* a 2) 2))) (expt 10 30))") ==
        "1000000000000000000000000000000");
}

TEST_CASE("eqsat: off at the default level", "[eqsat]") {
  bridge::Engine* plain = bridge::create_engine(bridge::EngineConfig{});
  Vm& vm = bridge::vm_of(plain);
  std::string out = dump_ir_text(vm, vm.interaction_env, "(lambda (v) (let ((s (vector-length v))) (+ (+ s 1) 1)))", "all");
  CHECK(out.find("1) 1)") != std::string::npos);  // not reassociated (forward may inline s)
  bridge::destroy_engine(plain);
}
