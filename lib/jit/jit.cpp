// jit.cpp — the JIT's policy side: modes, compiling a Proto (lowering, then x86-64 emission),
// logging what got compiled and why, and disassembly.
#include "jit/jit.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/object.hpp"
#include "jit/jit_code.hpp"
#include "jit/lower.hpp"
#include "jit/x64_emit.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {

namespace {
JitMode mode_from_environment() {
  const char* env = std::getenv("QUASI_JIT");
  JitMode m = JitMode::kOn;
  if (env && *env) parse_jit_mode(env, &m);
  return m;
}
std::atomic<JitMode>& default_mode() {
  static std::atomic<JitMode> m{mode_from_environment()};
  return m;
}
std::atomic<bool>& log_flag() {
  static std::atomic<bool> on{[] {
    const char* env = std::getenv("QUASI_JIT_LOG");
    return env && *env && std::strcmp(env, "0") != 0;
  }()};
  return on;
}

std::string name_of(const Proto* p) {
  return is_symbol(p->name) ? symbol_name(p->name) : std::string("#<procedure>");
}
}  // namespace

JitMode jit_default_mode() { return default_mode().load(); }
void set_jit_default_mode(JitMode mode) { default_mode().store(mode); }
bool jit_log_enabled() { return log_flag().load(); }
void set_jit_log(bool on) { log_flag().store(on); }

const char* jit_mode_name(JitMode mode) {
  switch (mode) {
    case JitMode::kOff: return "off";
    case JitMode::kForce: return "force";
    default: return "on";
  }
}

bool parse_jit_mode(const std::string& name, JitMode* out) {
  if (name == "off" || name == "0") *out = JitMode::kOff;
  else if (name == "on" || name == "1") *out = JitMode::kOn;
  else if (name == "force") *out = JitMode::kForce;
  else return false;
  return true;
}

bool jit_compile(VmImpl& vm, Proto* p, const char* why) {
  if (p->jit_state == kJitDone) return true;
  if (p->jit_state == kJitFailed) return false;
  auto start = std::chrono::steady_clock::now();
  std::string reason;
  jit::LoweredProc lowered;
  JitCode* code = nullptr;
  if (!jit::x64_available()) reason = "no executable memory";
  else if (jit::lower(p, &lowered, &reason)) code = jit::emit_x64(p, lowered, nullptr, &reason);
  if (!code) {
    p->jit_state = kJitFailed;
    if (jit_log_enabled())
      std::fprintf(stderr, "jit: not compiling %s (%s)\n", name_of(p).c_str(), reason.c_str());
    return false;
  }
  p->jit = code;
  p->jit_state = kJitDone;
  if (jit_log_enabled()) {
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "jit: compiled %s (%d instructions -> %zu bytes, %.0f us): %s\n",
                 name_of(p).c_str(), p->ncode, code->code_size, us, why);
  }
  return true;
}

void jit_compile_tree(VmImpl& vm, Proto* p, const char* why) {
  for (Proto* clause = p; clause; clause = clause->next_clause) {
    jit_compile(vm, clause, why);
    for (int32_t i = 0; i < clause->nconsts; i++)
      if (has_type(clause->consts[i], Type::Proto)) jit_compile_tree(vm, clause->consts[i].as<Proto>(), why);
  }
}

void* jit_entry(const JitCode* code, int64_t index) { return code->entries[index]; }

const Insn* jit_run(VmImpl& vm, void* target) { return jit::run_x64(vm, target); }

std::string jit_disassemble(VmImpl& vm, Proto* p) {
  std::string out;
  for (Proto* clause = p; clause; clause = clause->next_clause) {
    out += "; " + name_of(clause) + ": " + std::to_string(clause->ncode) + " bytecode instructions, ";
    if (clause->jit_state == kJitDone)
      out += "compiled (" + std::to_string(clause->jit->code_size) + " bytes of machine code)\n";
    else if (clause->jit_state == kJitFailed)
      out += "not compilable\n";
    else
      out += "not compiled yet (listing of the code it would get)\n";
    std::string why, listing;
    jit::LoweredProc lowered;
    if (!jit::lower(clause, &lowered, &why)) {
      out += "; " + why + "\n";
      continue;
    }
    jit::emit_x64(clause, lowered, &listing, &why);
    out += listing;
  }
  return out;
}

}  // namespace quasi
