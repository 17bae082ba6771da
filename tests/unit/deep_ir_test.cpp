// Deep IR (issue 9): every walk over the IR either has a depth guard that ends in a clean error or
// fallback, or is iterative. A counting loop specialized to 100,000 levels, and IR nested 100,000
// deep (the shape `(specialize f 100000)` of a non-tail counting loop builds), go through every
// registered pass, verify_ir, the printer, the toolkit's analyses and the compiler without
// crashing; what cannot be handled is refused cleanly.
#include <catch2/catch.hpp>

#include <pthread.h>

#include <string>

#include "core/error.hpp"
#include "engine/engine_bridge.hpp"
#include "eval/environment.hpp"
#include "ir/free_vars.hpp"
#include "ir/functor.hpp"
#include "ir/util.hpp"
#include "ir/verify.hpp"
#include "passes/pass_manager.hpp"
#include "quasi/error.hpp"
#include "vm/compiler.hpp"
#include "vm/vm.hpp"

using namespace quasi;

namespace {

constexpr int kDepth = 100000;

const char* kCount = "(define (count n x) (if (= n 0) x (+ (count (- n 1) x) 1)))";

// (lambda (x) (+ (+ ... (+ x 1) ... 1) 1)), `depth` calls deep, as residual code writes it.
LambdaNode* deep_lambda(Vm& vm, int depth) {
  Value plus = vm.core_env->lookup(intern("+")).as<GlobalCell>()->value;
  Var* x = make_var(intern("x"));
  Node* body = gc_new<LocalRefNode>(x, SrcLoc{});
  for (int i = 0; i < depth; i++) {
    auto* call = gc_new<PrimCallNode>(plus, SrcLoc{});
    call->args.push_back(body);
    call->args.push_back(gc_new<ConstNode>(make_fixnum(1), SrcLoc{}));
    body = call;
  }
  auto* lam = gc_new<LambdaNode>(intern("deep"), SrcLoc{});
  auto* clause = gc_new<LambdaClause>();
  clause->params.push_back(x);
  clause->body = body;
  lam->clauses.push_back(clause);
  return lam;
}

}  // namespace

TEST_CASE("a counting loop specialized to 100,000 levels gives the right procedure", "[deep][pe]") {
  bridge::Engine* e = bridge::create_engine(bridge::EngineConfig{});
  bridge::eval(e, kCount, "<deep>");
  CHECK(bridge::write(bridge::eval(e, "((specialize count 100000) 5)", "<deep>"), false) == "100005");
  CHECK(bridge::write(bridge::eval(e, "((specialize count 15000) 5)", "<deep>"), false) == "15005");
  bridge::destroy_engine(e);
}

TEST_CASE("IR nested 100,000 deep goes through every pass and the toolkit without crashing", "[deep][passes]") {
  bridge::Engine* e = bridge::create_engine(bridge::EngineConfig{});
  Vm& vm = bridge::vm_of(e);
  LambdaNode* lam = deep_lambda(vm, kDepth);
  PassOptions options;
  options.verify = true;
  for (const PassInfo& info : registered_passes()) {
    PassContext ctx(vm, vm.core_env, options);
    Node* out = nullptr;
    // A pass leaves what is too deep to walk as it is: the output is the input or a valid tree.
    REQUIRE_NOTHROW(out = run_pass(info.make(), lam, ctx));
    CHECK(out != nullptr);
    CHECK(verify_ir(out).empty());
  }
  CHECK(verify_ir(lam).empty());                    // too deep to check all: nothing found
  CHECK_FALSE(for_each_node(lam, [](Node*) {}));    // the walk says it was cut short
  CHECK(node_size(lam, 50) == 51);
  CHECK_FALSE(is_pure(lam->clauses[0]->body, vm.core_env));  // purity looks a bounded depth
  CHECK(copy_with_fresh_vars(lam) == nullptr);      // refuses to copy
  FreeVariables fv;
  fv.run(lam);
  CHECK(fv.truncated());
  CHECK(free_vars(fv, lam) == nullptr);             // an incomplete scan is not an answer
  Value datum = ir_to_datum(lam);                   // prints `...` past the depth bound
  CHECK(is_pair(datum));
  // The compiler refuses cleanly with an error instead of overflowing the C stack.
  CHECK_THROWS_AS(compile_toplevel(vm, lam), SchemeError);
  bridge::destroy_engine(e);
}

namespace {
struct SmallStackRun {
  std::string result;
};
void* run_on_small_stack(void* arg) {
  auto* r = static_cast<SmallStackRun*>(arg);
  try {
    bridge::Engine* e = bridge::create_engine(bridge::EngineConfig{});
    bridge::eval(e, kCount, "<deep>");
    r->result = bridge::write(bridge::eval(e, "((specialize count 15000) 5)", "<deep>"), false);
    bridge::destroy_engine(e);
  } catch (std::exception& ex) {
    r->result = std::string("error: ") + ex.what();
  }
  return nullptr;
}
}  // namespace

TEST_CASE("specializing into deep code on a thread with a small C stack falls back cleanly", "[deep][pe]") {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 20);  // 1 MiB
  SmallStackRun run;
  pthread_t t;
  REQUIRE(pthread_create(&t, &attr, run_on_small_stack, &run) == 0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  CHECK(run.result == "15005");
}
