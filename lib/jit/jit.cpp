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
std::string name_of(const Proto* p) {
  return is_symbol(p->name) ? symbol_name(p->name) : std::string("#<procedure>");
}
}  // namespace

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
