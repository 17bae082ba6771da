// Tests of engine/redefinition: what procedures an environment remembers (those referring to an
// imported cell), that the memory for them stays bounded while procedures die, and that a
// redefinition moves exactly the procedures compiled in that environment.
#include <catch2/catch.hpp>

#include <gc/gc.h>

#include "engine/engine_bridge.hpp"
#include "engine/library.hpp"
#include "engine/redefinition.hpp"
#include "engine/toplevel.hpp"
#include "eval/environment.hpp"
#include "vm/vm.hpp"

using namespace quasi;

namespace {

struct Fixture {
  bridge::Engine* engine = bridge::create_engine(bridge::EngineConfig{});
  ~Fixture() { bridge::destroy_engine(engine); }
  Vm& vm() { return bridge::vm_of(engine); }
  Value eval(const std::string& code, Environment* env) { return eval_source(vm(), code, "<test>", env); }
};

}  // namespace

TEST_CASE("redefinition: only procedures that refer to an imported cell are remembered") {
  Fixture f;
  Environment* env = environment_from_imports(f.vm(), list({list({intern("scheme"), intern("base")})}), kFalse);
  f.eval("(define (k) 42)", env);
  CHECK(remembered_procedures(env) == 0);
  f.eval("(define (first x) (car x))", env);
  CHECK(remembered_procedures(env) == 1);
  f.eval("(define (both x) (list (lambda () (cdr x)) (lambda () 1)))", env);
  CHECK(remembered_procedures(env) == 3);  // both and its first lambda
}

TEST_CASE("redefinition: procedures that died are forgotten, so eval in a loop stays bounded") {
  Fixture f;
  Environment* env = environment_from_imports(f.vm(), list({list({intern("scheme"), intern("base")})}), kFalse);
  for (int round = 0; round < 40; round++) {
    for (int i = 0; i < 500; i++) f.eval("((lambda (x) (car x)) '(1))", env);
    GC_gcollect();
  }
  // 20,000 procedures were compiled and remembered; compaction keeps what is alive.
  CHECK(remembered_procedures(env) < 5000);
}

TEST_CASE("redefinition: a define moves the procedures of its own environment only") {
  Fixture f;
  Vm& vm = f.vm();
  Value base = list({list({intern("scheme"), intern("base")})});
  Environment* a = environment_from_imports(vm, base, kFalse);
  Environment* b = environment_from_imports(vm, base, kFalse);
  f.eval("(define (first x) (car x))", a);
  f.eval("(define (first x) (car x))", b);
  f.eval("(define (car x) 'redefined)", a);
  CHECK(f.eval("(first '(1 2))", a) == intern("redefined"));
  CHECK(f.eval("(first '(1 2))", b) == make_fixnum(1));
}
