// jit.cpp — the JIT's policy side: modes, compiling a Proto (lowering, then x86-64 emission),
// logging what got compiled and why, and disassembly.
#include "jit/jit.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <cerrno>
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

// A listing must not tell a script where objects live (a sandboxed script could pair an address
// with a forged object): 64-bit immediates, which are heap and code addresses or tagged object
// pointers, print as <imm64>, and their eight bytes in the machine-code comment as dots.
std::string redact_line(const std::string& line) {
  size_t comment = line.find("; ");
  std::string insn = line.substr(0, comment), out;
  bool redacted = false;
  for (size_t i = 0; i < insn.size();) {
    bool starts = std::isdigit(static_cast<unsigned char>(insn[i])) &&
                  (i == 0 || !(std::isalnum(static_cast<unsigned char>(insn[i - 1])) || insn[i - 1] == '_'));
    if (!starts) {
      out += insn[i++];
      continue;
    }
    size_t j = i;
    while (j < insn.size() && (std::isxdigit(static_cast<unsigned char>(insn[j])) || insn[j] == 'x' || insn[j] == 'X'))
      j++;
    std::string num = insn.substr(i, j - i);
    errno = 0;
    unsigned long long v = std::strtoull(num.c_str(), nullptr, 0);
    if (errno == ERANGE || v > 0xffffffffull) {
      out += "<imm64>";
      redacted = true;
    } else {
      out += num;
    }
    i = j;
  }
  if (comment == std::string::npos) return out;
  std::string bytes = line.substr(comment);
  if (redacted) {
    size_t end = bytes.find_last_not_of(" \n");
    size_t hex = end + 1;
    while (hex > 2 && std::isxdigit(static_cast<unsigned char>(bytes[hex - 1]))) hex--;
    if (end + 1 - hex >= 16) bytes.replace(end + 1 - 16, 16, std::string(16, '.'));
  }
  return out + bytes;
}

std::string redact_addresses(const std::string& listing) {
  std::string out;
  size_t start = 0;
  while (start < listing.size()) {
    size_t nl = listing.find('\n', start);
    size_t end = nl == std::string::npos ? listing.size() : nl;
    out += redact_line(listing.substr(start, end - start));
    if (nl != std::string::npos) out += '\n';
    start = end + 1;
  }
  return out;
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
  if (p->jit) p->jit->superseded = true;
  p->jit = code;
  p->jit_state = kJitDone;
  if (jit_log_enabled()) {
    double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    std::string regs;
    for (uint16_t r : lowered.regs.pinned) regs += " R" + std::to_string(r);
    std::fprintf(stderr, "jit: compiled %s (%d instructions -> %zu bytes, %.0f us): %s%s%s\n",
                 name_of(p).c_str(), p->ncode, code->code_size, us, why,
                 regs.empty() ? "" : "; in machine registers:", regs.c_str());
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
    out += redact_addresses(listing);
  }
  return out;
}

}  // namespace quasi
