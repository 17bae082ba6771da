// flonum_groups.hpp — finds runs of flonum arithmetic inside one basic block whose intermediate
// results die inside the run, so that the emitter can compute the whole run in SSE registers
// (after one type check per operand read from the frame) and box only the values that live on.
// Architecture-neutral: it works on lowered steps and register liveness.
#pragma once

#include <cstdint>
#include <vector>

#include "jit/lower.hpp"

namespace quasi::jit {

// Member steps: + - * (also with an immediate), constants that are flonums, and as the last
// step a fused compare-and-branch. Every group saves at least one boxed intermediate.
std::vector<FlonumGroup> find_flonum_groups(const Proto* p, const std::vector<Step>& steps,
                                            const std::vector<uint8_t>& label);

// Whether a member step's second operand is its immediate (add-imm, sub-imm, compare-imm).
bool has_immediate(Op op);

// Registers an instruction reads and writes (for liveness); `reads_all` when unknown.
struct RegisterUse {
  std::vector<uint16_t> reads;
  int32_t write = -1;
  bool reads_all = false;
};
RegisterUse register_use(const Proto* p, const Step& s);

}  // namespace quasi::jit
