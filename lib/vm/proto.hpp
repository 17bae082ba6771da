// proto.hpp — compiled code: the instruction set and closure construction. The heap layouts of
// code objects (Proto), closures and continuations are in core/procedure.hpp.
//
// The VM is a register machine. A call frame is a window R[0..nregs) of the VM's value stack:
//   R[0]            the procedure being run (its closure gives access to free variables)
//   R[1..nparams]   the arguments; R[nparams+1] the rest list when the procedure has one
//   above           locals and temporaries, numbered by the compiler
// A call `CALL a n` finds the callee in R[a] and its arguments in R[a+1..a+n]; the callee's frame
// starts at R[a], so arguments are never copied. The result lands in R[a].
#pragma once

#include <cstdint>

#include "core/object.hpp"
#include "core/procedure.hpp"

namespace quasi {

enum class Op : uint16_t {
  kMove,       // R[a] = R[b]
  kConst,      // R[a] = K[b]
  kGlobalRef,  // R[a] = cell(K[b]).value; raises if unbound
  kGlobalSet,  // cell(K[b]).value = R[a]; raises if unbound (set!)
  kGlobalDef,  // cell(K[b]).value = R[a] (define)
  kFree,       // R[a] = self.free[b]
  kFreeUnbox,  // R[a] = box(self.free[b]).value
  kBox,        // R[a] = new box holding R[a]
  kUnbox,      // R[a] = box(R[b]).value
  kSetBox,     // box(R[a]).value = R[b]
  kClosure,    // R[a] = closure of proto K[b], free values gathered per the proto's captures
  kFixClosure, // closure(R[a]).free[b] = R[c]   (letrec of lambdas: tie the knot)
  kSetFree,    // self.free[b] = R[a]   (set! of a variable kept in its one closure's own slot)
  kJump,       // pc += (int32)(b | c << 16)
  kJumpIfFalse,// if R[a] is #f: pc += (int32)(b | c << 16)
  kCall,       // R[a] = R[a](R[a+1..a+b])
  kTailCall,   // return R[a](R[a+1..a+b])
  kReturn,     // return R[a]
  kCheckBound, // raise "letrec: <K[b]> used before its initialization" if R[a] is the unbound marker
  // Inline primitives. The word after each holds, in its `a`, the index in K of the GlobalCell
  // the call went through: when a builtin has been redefined the VM calls the cell's value.
  // kAdd, kSub, kMul may form a chain for (op x y z ...) (vm/compiler.cpp, op_chain): the head's
  // data word has the operand count (> 2, at most kMaxOpChain) in b, each later link reads the
  // running value and one operand (in its c), and the last writes the result; a chain is only
  // entered at its head (machine code may leave at any link, with the builtins unchanged).
  kAdd,        // R[a] = R[b] + R[c]
  kSub,        // R[a] = R[b] - R[c]
  kMul,        // R[a] = R[b] * R[c]
  kLt, kLe, kGt, kGe, kNumEq,  // R[a] = (op R[b] R[c])
  kEq,         // R[a] = (eq? R[b] R[c])
  kCar, kCdr,  // R[a] = (car R[b])
  kCons,       // R[a] = (cons R[b] R[c])
  kNullP, kPairP, kNot, kZeroP,  // R[a] = (op R[b])
  kVectorRef,  // R[a] = (vector-ref R[b] R[c])
  kVectorSet,  // (vector-set! R[a] R[b] R[c])  (result: unspecified, written nowhere)
  kAddI,       // R[a] = R[b] + c, c a signed 16-bit immediate
  kSubI,       // R[a] = R[b] - c
  kStringRef,  // R[a] = (string-ref R[b] R[c])
  kStringLength, kVectorLength,  // R[a] = (op R[b])
  // (call/cc (lambda (k) body)) without the closure and the call (vm/compiler.cpp, callcc):
  //   kCallCC  a = k's register, b | c << 16 = offset of the slow code (from after the data word)
  //   data     a = the cell (or primitive), b = the call's result register or kCallCCTail, c = the
  //            slow code's length
  //   body     (in the frame; in tail position it returns, else it leaves its value in R[b] and
  //            jumps past the slow code)
  //   slow     the ordinary call of call/cc with a closure of the lambda, taken when the inline
  //            paths are off (a redefined call/cc is called with that closure)
  //   resume:  where k delivers its value to R[b] (after the slow code; none in tail position)
  // Captures a continuation that resumes there (or returns from this frame, in tail position),
  // R[a] = it, and goes on with the body.
  kCallCC,
  // Fused test-and-branch: when the test is false, jump. In the data word, b | c << 16 is the
  // jump offset, relative to the instruction after the data word.
  kBrLt, kBrLe, kBrGt, kBrGe, kBrNumEq, kBrEq,  // test (op R[a] R[b])
  kBrLtI, kBrLeI, kBrGtI, kBrGeI, kBrNumEqI,    // test (op R[a] b), b a signed 16-bit immediate;
                                                // c = 1: the program wrote (mirror-op b R[a])
  kBrNull, kBrPair, kBrZero,                    // test (op R[a])
  kBrNot,                                       // test (not R[a]): jumps when R[a] is true
  kCount
};

// The instruction a call of `p` compiles to (its PrimFacts::inline_op), or Op::kCount for none.
inline Op inline_op_of(const Primitive* p) {
  static constexpr Op kOps[] = {
      Op::kCount, Op::kAdd, Op::kSub, Op::kMul, Op::kLt, Op::kLe, Op::kGt, Op::kGe, Op::kNumEq,
      Op::kEq, Op::kCar, Op::kCdr, Op::kCons, Op::kNullP, Op::kPairP, Op::kNot, Op::kZeroP,
      Op::kVectorRef, Op::kVectorSet, Op::kStringRef, Op::kStringLength, Op::kVectorLength, Op::kCallCC,
  };
  static_assert(sizeof(kOps) / sizeof(kOps[0]) == size_t(InlineOp::kCallCC) + 1, "one Op per InlineOp");
  return kOps[size_t(p->facts.inline_op)];
}

constexpr int kMaxOpChain = 16;

// kCallCC's result register in tail position: its continuation is the frame's caller's.
constexpr uint16_t kCallCCTail = 0xFFFF;

struct Insn {
  Op op;
  uint16_t a, b, c;
};

inline int32_t jump_offset(const Insn& i) { return static_cast<int32_t>(uint32_t(i.b) | (uint32_t(i.c) << 16)); }

// Where the continuation of the kCallCC at pc resumes: after its slow code; null in tail position.
inline const Insn* callcc_resume_pc(const Insn* pc) {
  return pc[1].b == kCallCCTail ? nullptr : pc + 2 + jump_offset(pc[0]) + pc[1].c;
}

// How a closure's free variable is found when the closure is made: in a register of the frame
// that makes it, or in that frame's own closure.
struct Capture {
  uint32_t from_free : 1;
  uint32_t index : 31;
};

Value make_closure(Proto* proto, int64_t nfree);
// The closure of `proto` made by a frame R: its free values gathered per proto->captures from
// R's registers and R[0]'s own closure (the kClosure instruction, interpreted or compiled).
Value close_over(Proto* proto, const Value* R);

}  // namespace quasi
