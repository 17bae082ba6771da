// flonum_groups.hpp — finds runs of flonum arithmetic inside one basic block whose intermediate
// results die inside the run, so that the emitter can compute the whole run in SSE registers
// (after one type check per operand read from the frame) and box only the values that live on.
// Architecture-neutral: it works on lowered steps and register liveness (jit/regalloc.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "jit/lower.hpp"
#include "jit/regalloc.hpp"

namespace quasi::jit {

// Member steps: + - * (also with an immediate), constants that are flonums, loads of free
// variables (a loop's flonum parameters captured by its closure), and as the last step a
// comparison (a fused compare-and-branch or a boolean). Every group saves at least one boxed intermediate.
std::vector<FlonumGroup> find_flonum_groups(const Proto* p, const std::vector<Step>& steps,
                                            const std::vector<uint8_t>& label, const Liveness& live);

// Whether a member step's second operand is its immediate (add-imm, sub-imm, compare-imm).
bool has_immediate(Op op);

}  // namespace quasi::jit
