// procedure.hpp — procedures as heap objects: a closure and the code object (Proto) it runs, a
// continuation, and the questions every layer asks of any procedure (is it one, what is its name).
//
// Owner: ir (issue 9 moved these layouts down from vm/proto.hpp so the printer, errors and the
// partial evaluator need not depend on the VM). The instruction set a Proto's code is made of,
// and how the VM runs it, stay in vm/proto.hpp. Invariant: a Proto is built only by the compiler
// (vm/compiler.cpp); everything else reads it.
#pragma once

#include <cstdint>
#include <string>

#include "core/object.hpp"

namespace quasi {

struct Insn;
struct Capture;
struct LambdaNode;
struct Var;
struct JitCode;
struct Frame;

struct Proto : Object {
  Value name;          // symbol or #f
  int32_t nparams;     // required parameters
  bool has_rest;
  int32_t nregs;       // frame size including R[0]
  int32_t ncode;
  Insn* code;
  Value* consts;       // constants, GlobalCells, child Protos
  int32_t nconsts;
  uint64_t* locs;      // packed SrcLoc per instruction
  Capture* captures;   // for the closure that runs this code
  int32_t ncaptures;
  Proto* next_clause;  // case-lambda: the clause tried when the arity does not match
  uint64_t loc;        // packed SrcLoc of the lambda
  // The IR this code was compiled from, kept for the partial evaluator: the lambda, and the
  // variable behind each free slot of the closure (free_vars[i] is closure.free()[i]; a boxed
  // variable's slot holds its Box, an assigned one kept in place its value: free_assigned). Null for code that was not compiled from IR.
  LambdaNode* source;
  Var** free_vars;
  // Per free slot, the Proto of the closure it holds when the variable is bound by a letrec of
  // lambdas and never assigned (the slot holds that closure once the knot is tied), else null;
  // null when there is none. The JIT guards calls through such a slot as known callees.
  Proto** free_protos;
  // Per free slot, whether it holds the variable's Box rather than its value: an assigned
  // variable, or a variable of a letrec that is not all lambdas, captured before its init may
  // have run. The second kind is not `assigned` in the IR, so code transforming the source
  // (lib/ad) reads this to know the slot is a box. Null when the closure has no free slot.
  bool* free_boxed;
  // Per free slot, whether the closure's own code assigns it in place (kSetFree): an assigned
  // variable that only this closure references, made right where the variable is bound
  // (vm/compiler.cpp, Analysis::own). Such a slot changes after the closure is made, so code
  // that reads free values as constants (the partial evaluator, lib/ad's makers) refuses the
  // closure. Null when no slot is assigned.
  bool* free_assigned;
  // Native code (lib/jit): null until the JIT compiled this code. Counted up at the VM's
  // checkpoints (entry, return into it, backward jumps) until it reaches the hot threshold.
  JitCode* jit;
  uint32_t hotness;
  uint8_t jit_state;  // JitState (jit/jit.hpp)
  // A builtin this code inlines was redefined for it (a later `define` of the name in the
  // environment the code was compiled in, engine/redefinition.hpp): its inline instructions call
  // through their cells, and it is never compiled to machine code again.
  bool inline_off;
};

inline bool is_closure(Value v) { return has_type(v, Type::Closure); }

// The clause of a (case-)lambda's code that a call with argc arguments runs: the first whose
// arity accepts argc (exactly nparams, or at least nparams with a rest list); null when none
// does (an arity error). The interpreter's calls and the JIT's compiled calls both choose by it.
inline Proto* clause_accepting(Proto* p, int64_t argc) {
  while (p && !(argc == p->nparams || (p->has_rest && argc >= p->nparams))) p = p->next_clause;
  return p;
}

struct Closure : Object {  // payload: number of free values
  Proto* proto;
  Value* free() { return reinterpret_cast<Value*>(this + 1); }
};

// A captured continuation: the used part of the VM stack and of the frame stack, and where to
// resume. A capture copies only what changed since the continuation captured or reinstated last
// (vm/stack.cpp): stack[stack_base..nstack) and frames[frame_base..nframes) are copied into the
// object, right after it (stack(), frames()), and everything below them is `parent`'s (which may
// in turn hold only its own top part). So a capture deep in a recursion that captures at every
// level copies one level, and re-entry copies back only the segments that differ from what the
// stacks still hold. An escape-only continuation (%call/ec) copies nothing (depth -1, and
// stack_base == nstack, the stack top at the capture): it can only return to frames still on the
// stack (frames() is a copy of the top one of the first nframes, checked when it is invoked).
// Sizes are int32: the stacks are smaller (vm/stack.cpp). Eight words before the copies: the chain
// depth lives in the header word's top half, the stack top to resume with is implied
// (resume_top()), and the run and dynamic state are one shared vector (context). Every word
// counts: the collector's cost here goes by bytes allocated (a 16-byte granule more per
// continuation cost callcc 3 %, ctak 3.7 % of all instructions).
struct Continuation : Object {
  int32_t nstack, nframes;         // the used stacks at the capture
  int32_t stack_base, frame_base;  // below these, parent's (both 0 without a parent)
  int32_t resume_fp, resume_dst;
  Continuation* parent;
  const Insn* resume_pc;  // null: deliver the value by returning from the top frame
  Proto* resume_proto;
  // #(winders handlers run-id) when captured: the dynamic-wind list (%winders), the exception
  // handler stack (%handlers) and the C++ -> Scheme call (Vm::apply) whose frames these are. One
  // vector serves every capture made while the three stay the same (VmImpl::capture_context).
  Value context;
  Value winders() const { return context.as<Vector>()->items()[0]; }
  Value handlers() const { return context.as<Vector>()->items()[1]; }
  uint64_t run_id() const { return uint64_t(context.as<Vector>()->items()[2].bits >> 1); }
  // Links below this one in the chain; -1: escape-only.
  int32_t depth() const { return int32_t(header >> 32); }
  void set_header(int32_t depth) { header = make_header(Type::Continuation) | (uint64_t(uint32_t(depth)) << 32); }
  bool escape_only() const { return depth() < 0; }
  // The top the resumed code runs with: as after a return to resume_pc (Frame::resume_top), so
  // what the interpreter had raised it to for an `apply` at the capture is dropped as a return
  // drops it. Otherwise nstack: the top at a capture with a resume pc, and without one (the
  // value is returned from the top frame, which sets the top) the frame's base.
  int64_t resume_top() const { return resume_pc && resume_proto ? int64_t(resume_fp) + resume_proto->nregs : nstack; }
  Value* stack() { return reinterpret_cast<Value*>(this + 1); }  // stack[stack_base..nstack)
  Frame* frames() {                                              // frames[frame_base..nframes)
    return reinterpret_cast<Frame*>(stack() + (nstack - stack_base));
  }
};
static_assert(sizeof(Continuation) == 64, "the header of a continuation is eight words");
inline bool is_continuation(Value v) { return has_type(v, Type::Continuation); }

// For printing and backtraces: the name of a procedure, or "" when anonymous.
std::string procedure_name(Value proc);
bool is_procedure(Value v);

}  // namespace quasi
