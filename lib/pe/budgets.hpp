// budgets.hpp — the named limits that make the partial evaluator terminate and keep its output
// small. Every limit is per `specialize` request (one run of the Specializer) unless it says
// otherwise. Reaching a limit never fails a request: the run residualizes instead (see "What
// running out does" in lib/pe/README.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ir/limits.hpp"

namespace quasi::pe {

// Effort: one unit per IR node the evaluator visits, per unfolded call and per specialized call
// it sets up. Bounds the time of a run, including static computations that never end (a static
// loop that does not terminate, exponential unfolding). When it runs out the whole request falls
// back to the trivial residual `(lambda (dyn ...) (f static ... dyn ...))`. Chez cp0 calls the
// same idea effort-limit (200 per inlining attempt there; ours is per whole request, because a
// request specializes a whole program, e.g. an interpreter together with its input program).
constexpr int64_t kEffortLimit = 800000;

// Residual size: IR nodes the evaluator emits per request. Bounds the code a request can make
// (unrolling a static loop 10^6 times would stay within the effort limit only barely; this
// stops it far earlier). Running out is handled like the effort limit.
constexpr int64_t kResidualSizeLimit = 60000;

// Generalization: the whistle is homeomorphic embedding of helper keys (whistle.hpp). This is
// its backstop: how many specializations of one lambda clause may be pending (being built, one
// nested inside the other) at once; one more restarts the OLDEST pending one with every argument
// that differs between it and the new one made dynamic.
constexpr int kMaxPendingVariants = 512;

// Variants: specialized copies of one lambda clause per request. Past it, a new call uses the
// copy whose arguments are all dynamic (there is only one such copy). An interpreter specialized
// to a program has a few per program point.
constexpr int kMaxVariantsPerClause = 1024;

// Key size: items in the static skeleton of one specialized call (values, pairs, closures). A
// call whose arguments have a larger skeleton makes its largest arguments dynamic.
// 512 (was 256): the KMP matcher's restart keys hold the text read so far, two items per
// character, so 256 made the text dynamic from 128-character patterns on (correct residual,
// but it re-read the text).
constexpr int kMaxKeyItems = 512;

// Static runs (static_run.hpp): a call whose callee and arguments are all static, and whose
// code can only compute, runs on the real evaluator (compiled code, the JIT) instead of being
// interpreted by the specializer. Each run may take kStaticRunSteps VM steps (calls + backward
// jumps); all runs of one request together kStaticRunStepsPerRequest. A run that runs out leaves
// just that call residual; the rest of the request goes on.
constexpr uint64_t kStaticRunSteps = 10000000;
constexpr uint64_t kStaticRunStepsPerRequest = 30000000;
// Objects looked at when checking that an argument or a result of a static run is plain data.
constexpr int64_t kStaticDataItems = 100000;

// Runaway unfolding: a lambda unfolded this many times nested in one procedure being built (a
// static recursion that goes on and on), or the deepest-unfolded one when the effort, the
// residual size or the C stack runs out, has that unfolding undone and the call specialized (a
// memoized helper, generalized by the whistle) instead; at most kMaxRecoveries times per request,
// then the whole request gives up.
// Only nested unfoldings count: a call in tail position of an unfolded body is the next level
// of the same loop (unfold.cpp), so a chain of decided tail calls (a static countdown, the KMP
// matcher's restart cascade, m^2/2 tail calls on a^(m-1)b) nests nothing and only the effort
// budget bounds it. Each nested level is about seven C++ frames; stack_exhausted() still stops
// a deeper walk (then the outermost unfolding recovers as above).
constexpr int kMaxUnfoldDepth = 16384;
constexpr int kMaxRecoveries = 4;

// Calls under dynamic control are unfolded, not specialized, when the callee cannot reach itself
// (through globals and captured procedures, at most kRecursionScanClosures of them looked at)
// and its body has at most kDynUnfoldBodyLimit nodes.
constexpr int kRecursionScanClosures = 64;
constexpr size_t kDynUnfoldBodyLimit = 120;
// A helper's code about to unfold a call compares it with at most this many unfoldings of the
// same lambda in progress in outer worlds, the nearest first (Specializer::repeats_outer_unfolding:
// an interpreted loop's body becomes a helper its first call enters).
constexpr int kOuterUnfoldingProbes = 16;
// Such a call undoes the outer unfolding, which becomes the loop's helper (Specializer::EnterLoop);
// past this many per request the call makes its own helper inside (the outer unfolding then
// enters it when it ends: loop_helper).
constexpr int kMaxLoopEntries = 64;

// ---- per-request options ------------------------------------------------------------------------
// (specialize* f fixed options) may change some limits for one request (api.cpp parses the alist;
// lib/pe/README.md, "Options"). The defaults are the constants above. Requests that differ in
// their options are cached apart.
enum class WhistleMode : uint8_t {
  kEmbedding,  // homeomorphic embedding of keys, and accumulators (the default)
  kOff,        // neither: only the backstops (kMaxPendingVariants, the budgets) stop a chain
  kStrict,     // any pending variant of the same procedure clause blows: at most one variant per
               // program point is pending, so each chain is generalized at its second step
};
struct Options {
  int64_t effort = kEffortLimit;
  int64_t residual_size = kResidualSizeLimit;
  uint64_t static_steps = kStaticRunSteps;  // per static run (the request's total stays)
  WhistleMode whistle = WhistleMode::kEmbedding;
  bool operator==(const Options&) const = default;
};

// Fold size limits: ir/limits.hpp (kMaxFoldStringChars, kMaxFoldIntegerBits, kMaxFoldElements),
// shared with fold-constants through one checker, within_fold_limits.

// Cleanup of residual code: the optimizer's passes to a fixpoint, at most kResidualRounds times
// (passes/pass_manager.hpp).

// The per-engine cache of specialized procedures (specialize on equal? arguments returns the same
// procedure) holds at most this many entries and this many residual IR nodes in all (~160 bytes
// of residual datum, IR, bytecode and machine code each; an entry's fixed costs are ~7 KB, a
// generated program's entry ~40 KB): ~20-30 MB per engine at most. Past either, the least recently used entries go until it is
// down to 3/4 (procedures already returned keep working; only eq?-ness with later requests is
// lost). Each entry counts kCachedEntryNodes nodes more for its fixed costs.
constexpr size_t kMaxCachedSpecializations = 1024;
constexpr size_t kMaxCachedResidualNodes = 128 * 1024;
constexpr size_t kCachedEntryNodes = 64;
// The per-lambda facts the evaluator caches (free variables, control lambdas) are forgotten past
// this many lambdas, between requests: every procedure ever specialized would otherwise stay.
constexpr size_t kMaxLambdaFacts = 16384;

}  // namespace quasi::pe
