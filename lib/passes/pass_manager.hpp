// pass_manager.hpp — named passes over the core IR, pipelines of them, and the default pipeline
// that compile_form runs on everything the expander produces (as Chez runs cp0 on all code).
//
// A pass is a function from IR to IR with a name, an optimization level and a one-line
// description; each has one factory (fold_constants_pass(), ...) and one row in the registry
// (registered_passes(), in pipeline order). `sequential` composes passes. Running a pass through
// run_pass honours the options (a pass above the level or switched off by name is skipped) and
// can capture the IR after any named pass, which is how `quasi --dump-ir=PASS` and the REPL's
// `,optimize` print intermediate code.
//
// The contract every pass keeps:
//  - it never writes an input node (functional update, ir/functor.hpp); the input tree stays
//    valid, so the IR straight from the expander can still be printed or reused;
//  - the output keeps the invariants of ir/ir.hpp (each Var bound once, `assigned` true while a
//    LocalSet of it remains); verify_ir checks them and PassOptions::verify runs it after each pass;
//  - the program means the same: same values, same effects in the same order, same errors at
//    run time. When unsure, a pass leaves the code alone.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.hpp"
#include "ir/verify.hpp"

namespace quasi {

struct Vm;
struct Environment;

// Optimization level of the default pipeline: every registered pass runs.
constexpr int kDefaultOptLevel = 2;

struct PassOptions {
  int opt_level = kDefaultOptLevel;   // passes whose level is above this are skipped; 0: none
  std::vector<std::string> disabled;  // passes switched off by name
  bool verify = false;                // check IR invariants after each pass (tests, debugging)

  // Parses the QUASI_PASSES syntax: comma-separated items, each `off` (no passes), a level
  // digit `0`..`2`, `verify`, or `-NAME` (switch that pass off). Unknown items are ignored.
  static PassOptions parse(std::string_view spec);
  // From the QUASI_PASSES environment variable (defaults when unset). Read at engine creation.
  static PassOptions from_environment();
};

// What a running pass may use.
struct PassContext {
  Vm& vm;                      // to call primitives at compile time
  Environment* core;           // the core environment: its cells holding primitives are known
  const PassOptions& options;
  std::string capture_after;   // name of the pass whose output to keep ("" for none)
  Node* captured = nullptr;    // that output, once the pass has run (or been skipped)
  bool residual = false;       // the code is a transformation's residual (run_residual_pipeline)

  PassContext(Vm& v, Environment* c, const PassOptions& o) : vm(v), core(c), options(o) {}
};

struct Pass {
  std::string name;
  int level = 1;  // runs when options.opt_level >= level
  std::string description;
  std::function<Node*(Node*, PassContext&)> run;
};

// Runs `pass` on `ir` (or skips it, per the options), verifies and captures its output.
Node* run_pass(const Pass& pass, Node* ir, PassContext& ctx);
// A pass that runs `passes` in order (each through run_pass).
Pass sequential(std::string name, std::string description, std::vector<Pass> passes);

// ---- the passes (one factory each; passes/README.md says what each does) ------------------------
Pass fold_constants_pass();  // "fold-constants", level 1
Pass inline_small_pass();    // "inline-small", level 2
Pass refold_pass();          // "refold", level 2: fold-constants again after inline-small
Pass params_pass();          // "params", level 2: dead and invariant parameters of known procedures
Pass forward_pass();         // "forward", level 2: single-use lets moved to their use
// "eqsat", level kEqsatLevel: equality saturation over pure exact-integer arithmetic (eqsat.cpp).
// Above the default level, so ordinary code skips it (QUASI_PASSES=3 turns it on) until its cost
// is measured; residual code (run_residual_pipeline) gets it.
constexpr int kEqsatLevel = 3;
Pass eqsat_pass();

struct PassInfo {
  const char* name;
  int level;
  const char* description;
  Pass (*make)();
};
// Every pass of the default pipeline, in the order it runs them.
std::span<const PassInfo> registered_passes();
bool is_registered_pass(std::string_view name);

// fold-constants, inline-small, forward, params, refold.
const Pass& default_pipeline();

// Runs the default pipeline with the engine's options (vm.pass_options; defaults when null).
Node* run_default_pipeline(Vm& vm, Node* ir);
// Code a transformation made (the partial evaluator's residual code) is cleaned to a fixpoint: the
// default pipeline runs until its output stops changing, at most kResidualRounds times. It runs at
// kEqsatLevel (eqsat included) even when the engine's options lower it (QUASI_PASSES=off): turning residual
// code into readable code is part of making it. Passes switched off by name (-NAME) stay off and
// `verify` applies. Eight rounds: a loop the partial evaluator split over several helpers (an
// interpreter's helper per call expression and per function body) needs a round per merge
// before the parameters only passed around it are seen to be dead (pe-flow-test's gcd: 7).
constexpr int kResidualRounds = 8;
Node* run_residual_pipeline(Vm& vm, Node* ir);
// The IR of `ir` after `after_pass`: "expand" (the input itself), a registered pass name, or ""
// / "all" (after the whole pipeline). Throws a SchemeError for an unknown name.
Node* run_pipeline_until(Vm& vm, Node* ir, std::string_view after_pass);

}  // namespace quasi
