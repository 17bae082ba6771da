#include "jit/lower.hpp"

#include "jit/flonum_groups.hpp"

namespace quasi::jit {

namespace {
// Instructions followed by a data word (vm/proto.hpp).
bool has_data_word(Op op) { return op >= Op::kAdd && op < Op::kCount; }
bool is_fused_branch(Op op) { return op >= Op::kBrLt && op <= Op::kBrNot; }
bool has_immediate_operand(Op op) { return op >= Op::kBrLtI && op <= Op::kBrNumEqI; }
}  // namespace

bool lower(const Proto* p, LoweredProc* out, std::string* why) {
  if (p->ncode > kMaxJitInstructions) {
    *why = "too many instructions";
    return false;
  }
  out->steps.clear();
  out->label.assign(size_t(p->ncode) + 1, 0);
  out->entry.assign(size_t(p->ncode) + 1, 0);
  out->entry[0] = out->label[0] = 1;
  for (int32_t i = 0; i < p->ncode;) {
    const Insn& in = p->code[i];
    if (in.op >= Op::kCount) {
      *why = "unknown instruction";
      return false;
    }
    Step s;
    s.index = i;
    s.op = in.op;
    s.a = in.a, s.b = in.b, s.c = in.c;
    s.width = has_data_word(in.op) ? 2 : 1;
    if (i + s.width > p->ncode) {
      *why = "truncated instruction";
      return false;
    }
    if (in.op == Op::kJump || in.op == Op::kJumpIfFalse) {
      s.target = i + 1 + jump_offset(in);
    } else if (is_fused_branch(in.op)) {
      s.target = i + 2 + jump_offset(p->code[i + 1]);
    } else if (in.op == Op::kCallCC) {
      // Its slow code is a successor (for liveness: what the resume point reads is live at the
      // capture), and a continuation re-entered resumes after it, in machine code.
      s.target = i + 2 + jump_offset(in);
      if (const Insn* resume = callcc_resume_pc(p->code + i)) {
        int32_t r = int32_t(resume - p->code);
        if (r < 0 || r > p->ncode) {
          *why = "resume point out of the code";
          return false;
        }
        out->entry[size_t(r)] = out->label[size_t(r)] = 1;
      }
    }
    if (s.target >= 0) {
      if (s.target > p->ncode || s.target < 0) {
        *why = "jump out of the code";
        return false;
      }
      s.backward = s.target <= i;
      out->label[size_t(s.target)] = 1;
      // The interpreter re-enters native code at loop heads (after polling at the back-edge).
      if (s.backward) out->entry[size_t(s.target)] = 1;
    }
    if (in.op == Op::kAddI || in.op == Op::kSubI) s.imm = int16_t(in.c);
    if (has_immediate_operand(in.op)) {
      s.imm = int16_t(in.b);
      s.swapped = in.c == 1;
    }
    if (in.op == Op::kTailCall && in.b > kMaxUnrolledTailArgs) {
      *why = "tail call with too many arguments";
      return false;
    }
    // A call returns to the next instruction: the interpreter resumes native code there after a
    // call it made itself (a primitive, an interpreted procedure).
    if (in.op == Op::kCall) out->entry[size_t(i + 1)] = out->label[size_t(i + 1)] = 1;
    out->steps.push_back(s);
    i += s.width;
  }
  out->live = Liveness(p, out->steps);
  out->flonum_groups = find_flonum_groups(p, out->steps, out->label, out->live);
  out->regs = plan_registers(p, out->steps, out->label, out->live);
  return true;
}

}  // namespace quasi::jit
