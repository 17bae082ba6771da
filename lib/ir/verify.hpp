// verify.hpp — verify_ir: checks the invariants of ir/ir.hpp on a tree.
//
// Owner: ir. Passes run it after each pass under QUASI_PASSES=verify; the partial evaluator's
// residual code is checked with it too.
#pragma once

#include <string>

#include "ir/ir.hpp"

namespace quasi {

// Returns "" when the invariants hold, else what is wrong.
std::string verify_ir(Node* root);

}  // namespace quasi
