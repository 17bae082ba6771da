#include "passes/pass_manager.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/error.hpp"
#include "vm/vm.hpp"

namespace quasi {

namespace {

// The registry: every pass of the default pipeline, in the order the pipeline runs them.
const PassInfo kPasses[] = {
    {"fold-constants", 1,
     "fold pure primitives over constants, propagate let constants, prune branches and dead code",
     fold_constants_pass},
    {"inline-small", 2, "inline let/letrec-bound procedures that are called once or are tiny",
     inline_small_pass},
    {"forward", 2, "move a let-bound expression used once to its use when only inert code runs in between",
     forward_pass},
    {"params", 2, "drop dead and invariant parameters of let/letrec-bound procedures only called directly",
     params_pass},
    {"refold", 2, "fold-constants again over what inline-small, forward and params exposed", refold_pass},
    {"eqsat", kEqsatLevel, "equality saturation over pure exact-integer arithmetic (scheme/rules/eqsat-arith.scm)",
     eqsat_pass},
};

}  // namespace

PassOptions PassOptions::parse(std::string_view spec) {
  PassOptions o;
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == "off" || item == "none") o.opt_level = 0;
    else if (item == "on") o.opt_level = kDefaultOptLevel;
    else if (item.size() == 1 && item[0] >= '0' && item[0] <= '9') o.opt_level = item[0] - '0';
    else if (item == "verify") o.verify = true;
    else if (item.size() > 1 && item.front() == '-') o.disabled.emplace_back(item.substr(1));
  }
  return o;
}

PassOptions PassOptions::from_environment() {
  const char* spec = std::getenv("QUASI_PASSES");
  return spec ? parse(spec) : PassOptions();
}

Node* run_pass(const Pass& pass, Node* ir, PassContext& ctx) {
  bool enabled = pass.level <= ctx.options.opt_level;
  for (const std::string& off : ctx.options.disabled) enabled = enabled && off != pass.name;
  if (enabled) {
    ir = pass.run(ir, ctx);
    if (ctx.options.verify) {
      std::string problem = verify_ir(ir);
      if (!problem.empty())
        throw_condition("internal", "optimizer", "pass " + pass.name + " broke the IR: " + problem);
    }
  }
  if (!ctx.capture_after.empty() && ctx.capture_after == pass.name) ctx.captured = ir;
  return ir;
}

Pass sequential(std::string name, std::string description, std::vector<Pass> passes) {
  Pass p;
  p.name = std::move(name);
  p.level = 0;
  p.description = std::move(description);
  p.run = [passes = std::move(passes)](Node* ir, PassContext& ctx) {
    for (const Pass& member : passes) ir = run_pass(member, ir, ctx);
    return ir;
  };
  return p;
}

std::span<const PassInfo> registered_passes() { return kPasses; }

bool is_registered_pass(std::string_view name) {
  for (const PassInfo& p : kPasses)
    if (name == p.name) return true;
  return false;
}

const Pass& default_pipeline() {
  static const Pass pipeline = [] {
    std::vector<Pass> passes;
    for (const PassInfo& p : kPasses) passes.push_back(p.make());
    return sequential("all", "the default pipeline", std::move(passes));
  }();
  return pipeline;
}

Node* run_default_pipeline(Vm& vm, Node* ir) {
  static const PassOptions kDefaults;
  const PassOptions& options = vm.pass_options ? *vm.pass_options : kDefaults;
  // Nothing to run: skip even the walk.
  if (options.opt_level <= 0) return ir;
  PassContext ctx(vm, vm.core_env, options);
  return run_pass(default_pipeline(), ir, ctx);
}

Node* run_residual_pipeline(Vm& vm, Node* ir) {
  PassOptions options = vm.pass_options ? *vm.pass_options : PassOptions();
  options.opt_level = std::max(options.opt_level, kEqsatLevel);
  PassContext ctx(vm, vm.core_env, options);
  ctx.residual = true;
  for (int round = 0; round < kResidualRounds; round++) {
    Node* out = run_pass(default_pipeline(), ir, ctx);
    if (out == ir) break;
    ir = out;
  }
  return ir;
}

Node* run_pipeline_until(Vm& vm, Node* ir, std::string_view after_pass) {
  if (after_pass == "expand") return ir;
  if (after_pass.empty() || after_pass == "all") return run_default_pipeline(vm, ir);
  if (!is_registered_pass(after_pass)) {
    std::string names = "expand";
    for (const PassInfo& p : kPasses) names += std::string(", ") + p.name;
    throw_condition("error", "dump-ir",
                    "unknown pass " + std::string(after_pass) + " (passes: " + names + ", all)");
  }
  static const PassOptions kDefaults;
  const PassOptions& options = vm.pass_options ? *vm.pass_options : kDefaults;
  PassContext ctx(vm, vm.core_env, options);
  ctx.capture_after = std::string(after_pass);
  run_pass(default_pipeline(), ir, ctx);
  return ctx.captured ? ctx.captured : ir;
}

}  // namespace quasi
