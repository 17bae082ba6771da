// x64_emit.hpp — the x86-64 half of the JIT (x64_emit.cpp): machine code for lowered steps, and
// the stub that enters it. The only file that includes asmjit.
#pragma once

#include <string>

#include "jit/jit_code.hpp"
#include "jit/lower.hpp"

namespace quasi {
struct VmImpl;
}

namespace quasi::jit {

// Emits and installs p's machine code; null (with *why) on failure. With a listing, the code is
// only assembled: *listing receives asmjit's text (instructions and bytes) and null is returned.
JitCode* emit_x64(const Proto* p, const LoweredProc& lp, std::string* listing, std::string* why);

// Runs compiled code from `target` on vm's state (see jit.hpp, jit_run).
const Insn* run_x64(VmImpl& vm, void* target);

// False when executable memory cannot be had (then nothing is compiled).
bool x64_available();

}  // namespace quasi::jit
