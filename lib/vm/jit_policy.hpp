// jit_policy.hpp — when machine code is made and run: the modes (off / on / force), the hot
// threshold, the process-wide defaults. The one policy the VM's checkpoints and `specialize`
// (residual procedures are compiled at once) both ask.
//
// Owner: ir (moved from jit/jit.hpp so the VM depends on the policy, not on the backend).
// The backend itself (lowering, x86-64 emission) is lib/jit, which sits above the VM; the VM
// reaches it only through the three entry points declared in jit/jit.hpp, from its checkpoint.
#pragma once

#include <cstdint>
#include <string>

namespace quasi {

enum class JitMode : uint8_t {
  kOff,    // never compile, never run machine code
  kOn,     // compile residual procedures at once and other procedures once they are hot
  kForce,  // compile every procedure the first time it runs
};

enum JitState : uint8_t {
  kJitNone = 0,  // not compiled (yet)
  kJitDone,      // proto->jit holds machine code
  kJitFailed,    // compilation was refused; never tried again
};

// Checkpoints a procedure passes (entries, returns into it, backward jumps) before the default
// policy compiles it.
constexpr uint32_t kJitHotThreshold = 200;

// The one JIT policy of an engine (VmImpl::jit): the VM's checkpoints ask it whether to compile a
// procedure that got hot and whether machine code may run; `specialize` asks it whether residual
// procedures get machine code as soon as they are made.
struct JitPolicy {
  JitMode mode = JitMode::kOn;
  // Machine code may run: the mode is not off and no builtin that compiled code inlines was
  // redefined. Compiled code reads it (by offset) as well as the checkpoints.
  bool active = false;
  // Checkpoints a procedure passes before it is compiled (1 when forced).
  uint32_t threshold = kJitHotThreshold;

  void set_mode(JitMode m, bool builtins_redefined) {
    mode = m;
    threshold = m == JitMode::kForce ? 1 : kJitHotThreshold;
    refresh(builtins_redefined);
  }
  void refresh(bool builtins_redefined) { active = mode != JitMode::kOff && !builtins_redefined; }
  // A procedure passed a checkpoint (its hotness counts it): true when it is to be compiled now.
  bool compile_now(uint32_t& hotness) const { return ++hotness >= threshold; }
  // Why a procedure is compiled at a checkpoint, for the JIT log.
  const char* reason() const { return mode == JitMode::kForce ? "forced" : "hot"; }
  // Residual procedures of `specialize` are compiled as soon as they are made, unless the JIT is off.
  bool compile_residual_at_once() const { return mode != JitMode::kOff; }
};

// Process-wide defaults for new engines: from QUASI_JIT (off|on|force) and QUASI_JIT_LOG (1),
// overridden by the command line (--no-jit, --jit=force, --jit-log).
JitMode jit_default_mode();
void set_jit_default_mode(JitMode mode);
bool jit_log_enabled();
void set_jit_log(bool on);

const char* jit_mode_name(JitMode mode);
bool parse_jit_mode(const std::string& name, JitMode* out);

}  // namespace quasi
