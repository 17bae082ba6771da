// lower.hpp — the architecture-neutral half of the JIT: decodes a Proto's register bytecode
// (the optimized core IR after register allocation, vm/compiler.cpp) into steps with their
// operands, jump targets and entry points, and decides what the native code must handle. The
// x86-64 emitter (x64_emit.cpp) only turns steps into instructions.
#pragma once

#include <string>
#include <vector>

#include "jit/regalloc.hpp"
#include "vm/proto.hpp"

namespace quasi::jit {

struct Step {
  int32_t index = 0;   // bytecode index of the instruction
  int32_t width = 1;   // 1, or 2 for instructions followed by a data word
  Op op = Op::kMove;
  uint16_t a = 0, b = 0, c = 0;
  int32_t target = -1;    // jump or branch target (bytecode index), or -1
  int64_t imm = 0;        // signed immediate of kAddI/kSubI/kBr*I
  bool swapped = false;   // kBr*I: the program wrote (mirror-op imm x)
  bool backward = false;  // the jump goes back (a loop): it is a poll point
};

// A run of flonum arithmetic computed in SSE registers (jit/flonum_groups.hpp finds them).
constexpr int kMaxFlonumGroupValues = 14;  // SSE registers for its operands and results
struct FlonumGroup {
  size_t first = 0, last = 0;      // positions in LoweredProc::steps, inclusive
  std::vector<uint16_t> live_out;  // registers written in the group and read after it
};

struct LoweredProc {
  std::vector<Step> steps;
  std::vector<FlonumGroup> flonum_groups;  // in step order, disjoint
  std::vector<uint8_t> label;  // per bytecode index: something jumps here
  std::vector<uint8_t> entry;  // per bytecode index: the interpreter may enter native code here
  Liveness live;                // of the VM registers, per step
  RegisterPlan regs;            // the VM registers kept in machine registers
};

// Limits beyond which a procedure stays interpreted (machine code size grows with them).
constexpr int32_t kMaxJitInstructions = 20000;
constexpr int32_t kMaxUnrolledTailArgs = 64;

// Decodes p. Returns false, with the reason in *why, when p is not compiled.
bool lower(const Proto* p, LoweredProc* out, std::string* why);

}  // namespace quasi::jit
