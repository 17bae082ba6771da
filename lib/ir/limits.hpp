// limits.hpp — the size limits every IR transformation shares: how large a constant folding may
// put into code, and how large a procedure body may be copied into each call.
//
// Owner: ir. One definition each, read by fold-constants, inline-small and the partial
// evaluator (which used to carry copies that disagreed). Invariant: a transformation whose result
// would exceed a limit leaves the code as it was (the program computes the value at run time).
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/value.hpp"

namespace quasi {

// Fold limits, as CPython's AST optimizer bounds its constants (Python/ast_opt.c: MAX_STR_SIZE
// 4096 characters, MAX_COLLECTION_SIZE 256 items; CPython keeps ints under 128 bits, Quasi allows
// 4096 as issue 2 asked).
constexpr int64_t kMaxFoldStringChars = 4096;  // characters of a string
constexpr int64_t kMaxFoldIntegerBits = 4096;  // bits of an exact integer (each part of a ratio)
constexpr int64_t kMaxFoldElements = 256;      // elements of a vector, bytevector or list

// Whether a value computed at compile time is small enough to appear in code. Also false for
// multiple values (never a constant) and for circular lists.
bool within_fold_limits(Value v);

// Largest body, in IR nodes, that is copied into every call site (inline-small's tiny
// procedures, the partial evaluator's tiny helpers).
constexpr size_t kInlineBodyLimit = 16;

}  // namespace quasi
