// disasm.cpp — bytecode listings, for `(disassemble proc)` and for debugging the compiler.
#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "eval/environment.hpp"
#include "read/printer.hpp"
#include "vm/proto.hpp"
#include "vm/vm.hpp"

namespace quasi {
namespace {

const char* op_name(Op op) {
  static const char* const kNames[] = {
      "move", "const", "gref", "gset", "gdef", "free", "free-unbox", "box", "unbox", "set-box",
      "closure", "fix-closure", "set-free", "jump", "jump-if-false", "call", "tail-call", "return", "check-bound",
      "add", "sub", "mul", "lt", "le", "gt", "ge", "num-eq", "eq", "car", "cdr", "cons",
      "null?", "pair?", "not", "zero?", "vector-ref", "vector-set!", "add-imm", "sub-imm",
      "string-ref", "string-length", "vector-length", "call/cc",
      "br-lt", "br-le", "br-gt", "br-ge", "br-num-eq", "br-eq", "br-lt-imm", "br-le-imm",
      "br-gt-imm", "br-ge-imm", "br-num-eq-imm", "br-null", "br-pair", "br-zero", "br-not",
  };
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == size_t(Op::kCount), "one name per op");
  return op < Op::kCount ? kNames[size_t(op)] : "?";
}

bool has_data_word(Op op) { return op >= Op::kAdd && op < Op::kCount; }

void disassemble_proto(std::string& out, Proto* p, int depth) {
  std::string indent(depth * 2, ' ');
  out += indent + "proto " + (is_symbol(p->name) ? symbol_name(p->name) : "#<anonymous>") +
         " params=" + std::to_string(p->nparams) + (p->has_rest ? "+rest" : "") +
         " regs=" + std::to_string(p->nregs) + " free=" + std::to_string(p->ncaptures) + "\n";
  for (int32_t i = 0; i < p->ncode; i++) {
    const Insn& in = p->code[i];
    char line[128];
    std::snprintf(line, sizeof line, "%s%4d  %-14s %u %u %u", indent.c_str(), i, op_name(in.op), in.a, in.b, in.c);
    out += line;
    if (in.op == Op::kConst || in.op == Op::kGlobalRef || in.op == Op::kGlobalSet || in.op == Op::kGlobalDef)
      out += "    ; " + write_to_string(in.op == Op::kConst ? p->consts[in.b] : p->consts[in.b].as<GlobalCell>()->name, 60);
    if (in.op == Op::kJump || in.op == Op::kJumpIfFalse) out += "    ; -> " + std::to_string(i + 1 + jump_offset(in));
    if (in.op >= Op::kBrLt && in.op < Op::kCount) out += "    ; else -> " + std::to_string(i + 2 + jump_offset(p->code[i + 1]));
    if (in.op == Op::kCallCC) {
      const Insn* resume = callcc_resume_pc(&in);
      out += "    ; k in " + std::to_string(in.a) + ", slow -> " + std::to_string(i + 2 + jump_offset(in)) +
             (resume ? ", resume -> " + std::to_string(resume - p->code) + " into " + std::to_string(p->code[i + 1].b)
                     : std::string(", tail"));
    }
    out += "\n";
    if (has_data_word(in.op)) i++;
  }
  for (int32_t k = 0; k < p->nconsts; k++)
    if (has_type(p->consts[k], Type::Proto)) disassemble_proto(out, p->consts[k].as<Proto>(), depth + 1);
  if (p->next_clause) disassemble_proto(out, p->next_clause, depth);
}

QUASI_PRIM(p_disassemble) {
  if (!is_closure(argv[0])) type_error("disassemble", "a compiled procedure", argv[0]);
  std::string out;
  disassemble_proto(out, argv[0].as<Closure>()->proto, 0);
  return make_string_utf8(out);
}

const PrimDef kDisasmPrims[] = {
    {"disassemble", p_disassemble, 1, 1, kAlloc | kMayRaise},
};

}  // namespace

void register_disasm_primitives(Environment* env) { install_primitives(env, kDisasmPrims); }

}  // namespace quasi
