// differential.hpp — runs a generated program every way Quasi can run it and compares.
//
// The ways (one engine each, kept across programs and renewed every few hundred):
//   off      the interpreter alone (jit off); the reference
//   force    every procedure compiled when it first runs
//   hot      jit on with a hot threshold lowered to a random 2..40 per program, the program run
//            three times per argument tuple, so procedures start interpreted and switch to
//            machine code part-way (at entries, returns and loop heads)
//   nopass   the optimizer's passes off (QUASI_PASSES=off when the engine is made), jit on
//   spec-off / spec-hot   (specialize* f '((pos . value) ...)) on a random subset of the
//            arguments, the residual called with the rest: interpreted, and compiled at once
// Each run's outcome is the written (outcome trace) datum the program returns (generator.hpp),
// or the error that reached C++. A run stopped by a limit (2 s) in the reference makes the
// program "skipped"; anywhere else it is a mismatch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "generator.hpp"

namespace quasi_gen {

struct Mismatch {
  std::string way;      // "force", "spec-hot", ...
  size_t tuple = 0;     // which argument tuple
  std::string call;     // the call that was run (source)
  std::string expected;  // the reference outcome
  std::string got;
};

struct Result {
  bool skipped = false;  // the reference hit a limit
  int values = 0, raises = 0;  // reference outcomes: returned, raised (to the outer guard)
  std::vector<Mismatch> mismatches;
};

class Runner {
 public:
  Runner();
  ~Runner();
  // Runs `p` every way (tuples: all when `only_tuple` < 0). `hot_threshold` 0: chosen from the
  // program's seed by the caller.
  Result run(const Program& p, int hot_threshold, bool specialize, int only_tuple = -1);
  // The reference outcome (interpreter) of argument tuple `tuple` alone.
  std::string reference(const Program& p, size_t tuple);
  // Fresh engines (bounded memory, specialization caches, no state left from earlier programs).
  void renew();

 private:
  struct Engines;
  std::unique_ptr<Engines> e_;
};

}  // namespace quasi_gen
