// early_reads.hpp — the references that may read a letrec variable before its init has run.
//
// The IR's letrec assigns each variable as its init returns (letrec*; the expander gives R7RS
// letrec the inits-first form when an init may capture a continuation). A read of the j-th
// variable of a group can come before its init returns only from inits 0..j: at once (not inside
// a lambda), or from a lambda made there, which runs that early only if some init from the one
// making it up to j may call something (ir/util.hpp, only_pure_primitive_calls: no closure is
// called otherwise). Reads in the body or in a later init never come early, nor any read in a
// group of lambdas. The compiler follows each early read with a check that raises naming the
// variable (vm/compiler.cpp); passes keep such a read a read (inline_small does not inline a
// call through it), so every mode raises the same error.
// Invariant: conservative — a read left out is never early; when the walk was cut short by depth
// (truncated()), reads past the cut are missing, and a user must not trust the set.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/functor.hpp"

namespace quasi {

struct Environment;

class EarlyReads : public ExprVisitor {
 public:
  explicit EarlyReads(Environment* core) : core_(core) {}
  std::unordered_set<LocalRefNode*> reads;

  void visit_lambda(LambdaNode* n) override;
  void visit_local_ref(LocalRefNode* n) override;
  void visit_letrec(LetNode* n) override;

 private:
  // A group whose inits are being walked.
  struct Group {
    size_t at = 0;                     // the init being walked
    size_t lambdas = 0;                // lambda nesting at the letrec: deeper is inside a lambda
    std::vector<size_t> calls_before;  // [k]: how many inits before the k-th may call something
  };
  Environment* core_;
  size_t lambdas_ = 0;
  std::unordered_map<Var*, std::pair<Group*, size_t>> initializing_;  // variable -> group, index
};

}  // namespace quasi
