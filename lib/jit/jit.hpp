// jit.hpp — the native-code backend as the VM sees it: compiling a Proto, entering its machine
// code, the policy switches (off / on / force), logging and disassembly. No asmjit type leaks
// out of lib/jit/.
//
// Model (lib/jit/README.md has the reasons): compiled code runs on the VM's own state — the same
// register window on the VM stack, the same frame stack, the same poll countdown — so call/cc,
// dynamic-wind, errors, interrupts and backtraces see no difference between compiled and
// interpreted frames. A Scheme call made by compiled code pushes a VM frame and jumps to the
// callee's machine code; the machine stack never grows with Scheme calls. Whatever compiled code
// does not do itself (an error, a call to a primitive or to interpreted code, a poll) it hands
// back to the interpreter by returning the bytecode pc to continue at; the interpreter re-enters
// machine code at its next checkpoint (procedure entry, return point, loop head).
#pragma once

#include <cstdint>
#include <string>

#include "vm/jit_policy.hpp"
#include "vm/proto.hpp"

namespace quasi {

struct VmImpl;

// Compiles p (one case-lambda clause) to machine code; `why` is logged ("hot", "residual",
// "forced"). Returns false when the code could not be compiled (p->jit_state = kJitFailed).
bool jit_compile(VmImpl& vm, Proto* p, const char* why);

// Compiles every clause and every nested lambda of p (residual procedures).
void jit_compile_tree(VmImpl& vm, Proto* p, const char* why);

// The machine-code address for bytecode instruction `index` of compiled code, or null when the
// instruction is not an entry point (then the interpreter goes on).
void* jit_entry(const JitCode* code, int64_t index);

// Runs machine code from `target` (a jit_entry address of vm.cur_proto) with the VM's current
// fp/top/frames. Returns the bytecode pc the interpreter continues at, or null when a barrier
// frame was returned through (vm.barrier_value holds the value).
const Insn* jit_run(VmImpl& vm, void* target);

// asmjit's listing of p's machine code (recompiled with a logger), or a note why there is none.
std::string jit_disassemble(VmImpl& vm, Proto* p);

struct Environment;
void register_jit_primitives(Environment* env);  // jit/primitives.cpp: jit-mode, jit-disassemble, ...

}  // namespace quasi
