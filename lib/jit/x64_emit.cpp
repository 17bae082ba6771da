// x64_emit.cpp — x86-64 emission with asmjit: turns the steps of jit/lower.hpp into machine code
// that runs on the VM's state (jit/jit.hpp explains the model), and owns the executable memory.
//
// Register use inside compiled code (the same in every compiled procedure, so code of one
// procedure can jump into another's):
//   rbx  VmImpl*            r12  R, the running frame (stack + fp)
//   r13  &frames[nframes]     r14  this run's session number (Frame::session)
//   rbp  this thread's small-object free lists (core/gc.hpp), for inline allocation
//   r8-r11, r15  the homes of pinned VM registers (jit/regalloc.hpp), else scratch
//   rax, rcx, rdx, rsi, rdi, xmm0-xmm1: scratch
// The machine stack pointer at the start of the run (every exit resets rsp to it) and the floor
// of the machine calls are VmImpl fields (jit_entry_rsp, jit_stack_floor), saved by a nested
// run's entry stub and restored by its epilogue.
// A call between compiled procedures is a machine `call` (so the return is a well-predicted
// `ret`) as long as the run's machine stack stays small; the VM frame records the run's session
// so that only a return in the same run, to a frame pushed that way, uses `ret`. Any exit resets
// rsp to jit_entry_rsp, dropping the machine return addresses; the VM frames stay valid. So does
// the re-entry of a continuation from machine code, which also takes a new session number.
// VmImpl::fp, top and cur_proto are implicit while machine code runs (r12, the Proto's nregs, the
// Proto) and written at every hand-over and before primitive calls (sync_vm_state); nframes lives
// in r13 as the address of the next free frame, written back (as the index) at every hand-over
// and before every call into the runtime.
// Values live in the frame's slots, except the pinned VM registers (jit/regalloc.hpp), which
// live in their homes and are stored to their slots wherever anything else may look: calls,
// closure captures, every hand-over to the interpreter (so any instruction can still hand over);
// runtime routines that may collect are called with the homes pushed on the machine stack,
// which the collector scans conservatively (as it does the flonum groups' boxes).
#include <sys/mman.h>
#include <unistd.h>

#include <asmjit/x86.h>
#include <gc/gc.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <mutex>
#include <vector>

#include "core/numbers.hpp"
#include "core/object.hpp"
#include "jit/jit_code.hpp"
#include "jit/flonum_groups.hpp"
#include "jit/lower.hpp"
#include "jit/x64_emit.hpp"
#include "vm/vm_impl.hpp"

namespace quasi::jit {

using namespace asmjit;
using namespace asmjit::x86;

// ---- executable memory ----------------------------------------------------------------------

namespace {
std::mutex& runtime_mutex() {
  static std::mutex m;
  return m;
}
JitRuntime& runtime() {
  static JitRuntime* rt = new JitRuntime();  // never destroyed: finalizers may run at exit
  return *rt;
}

// The collector calls this when a JitCode is unreachable: its Proto is gone, so no frame and no
// closure can reach the machine code any more.
void release_code(void* obj, void*) {
  JitCode* jc = static_cast<JitCode*>(obj);
  if (!jc->code) return;
  std::lock_guard<std::mutex> lock(runtime_mutex());
  runtime().release(jc->code);
  jc->code = nullptr;
}

using EntryFn = const Insn* (*)(VmImpl* vm, void* target, SmallFreeLists* free_lists);

// Offsets of the VM fields compiled code reads and writes. VmImpl is not standard-layout (it
// holds containers), but its fields are at fixed offsets; GCC computes them correctly.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
constexpr int32_t kVmStack = int32_t(offsetof(VmImpl, stack));
constexpr int32_t kVmFrames = int32_t(offsetof(VmImpl, frames));
constexpr int32_t kVmFramesSoftEnd = int32_t(offsetof(VmImpl, frames_soft_end));
constexpr int32_t kVmFramesSoftLimit = int32_t(offsetof(VmImpl, frames_soft_limit));
constexpr int32_t kVmJitCallsEnd = int32_t(offsetof(VmImpl, jit_calls_end));
constexpr int32_t kVmStackSoftLimit = int32_t(offsetof(VmImpl, stack_soft_limit));
constexpr int32_t kVmNframes = int32_t(offsetof(VmImpl, nframes));
constexpr int32_t kVmLowFrame = int32_t(offsetof(VmImpl, low_frame));
constexpr int32_t kVmFp = int32_t(offsetof(VmImpl, fp));
constexpr int32_t kVmTop = int32_t(offsetof(VmImpl, top));
constexpr int32_t kVmHighWater = int32_t(offsetof(VmImpl, high_water));
constexpr int32_t kVmStackBound = int32_t(offsetof(VmImpl, stack_bound));
constexpr int32_t kVmStackBoundEnd = int32_t(offsetof(VmImpl, stack_bound_end));
constexpr int32_t kVmCurProto = int32_t(offsetof(VmImpl, cur_proto));
constexpr int32_t kVmPoll = int32_t(offsetof(VmImpl, poll_countdown));
constexpr int32_t kVmBarrierValue = int32_t(offsetof(VmImpl, barrier_value));
constexpr int32_t kVmErrorPc = int32_t(offsetof(VmImpl, error_pc));
constexpr int32_t kVmJitActive = int32_t(offsetof(VmImpl, jit) + offsetof(JitPolicy, active));
constexpr int32_t kVmJitSession = int32_t(offsetof(VmImpl, jit_session));
constexpr int32_t kVmJitEntryRsp = int32_t(offsetof(VmImpl, jit_entry_rsp));
constexpr int32_t kVmJitStackFloor = int32_t(offsetof(VmImpl, jit_stack_floor));
static_assert(sizeof(std::atomic<int64_t>) == 8, "poll countdown is a plain quadword");
constexpr int32_t kProtoNparams = int32_t(offsetof(Proto, nparams));
constexpr int32_t kProtoHasRest = int32_t(offsetof(Proto, has_rest));
constexpr int32_t kProtoNregs = int32_t(offsetof(Proto, nregs));
constexpr int32_t kProtoCode = int32_t(offsetof(Proto, code));
constexpr int32_t kProtoJit = int32_t(offsetof(Proto, jit));
constexpr int32_t kJitEntry0 = int32_t(offsetof(JitCode, entry0));
constexpr int32_t kJitEntries = int32_t(offsetof(JitCode, entries));
constexpr int32_t kJitSuperseded = int32_t(offsetof(JitCode, superseded));
constexpr int32_t kFramePc = int32_t(offsetof(Frame, pc));
constexpr int32_t kFrameFp = int32_t(offsetof(Frame, fp));
constexpr int32_t kFrameTop = int32_t(offsetof(Frame, top));
constexpr int32_t kFrameDst = int32_t(offsetof(Frame, dst));
constexpr int32_t kFrameProto = int32_t(offsetof(Frame, proto));
constexpr int32_t kFrameSession = int32_t(offsetof(Frame, session));
constexpr int32_t kInsnOp = int32_t(offsetof(Insn, op));
constexpr int32_t kInsnA = int32_t(offsetof(Insn, a));
constexpr int32_t kInsnSize = int32_t(sizeof(Insn));
// Machine stack that nested machine-code calls may use in one run (16 bytes per call); deeper
// calls jump instead of calling, and their returns go through the entries table.
constexpr int32_t kMaxNativeStackBytes = 256 << 10;
constexpr int32_t kFrameSize = int32_t(sizeof(Frame));
// A run's machine calls still outstanding each have their VM frame (pushed since the run, or
// its latest re-entry of a continuation, reset rsp; frames are popped last-in first-out), so
// while r13 is below that point's r13 plus this many bytes of frames, fewer than
// kMaxNativeStackBytes / 16 calls are outstanding and rsp is above jit_stack_floor.
constexpr int32_t kCallsFramesBytes = kMaxNativeStackBytes / 16 * kFrameSize;
constexpr int32_t kPrimFlags = int32_t(offsetof(Primitive, flags));
constexpr int32_t kPrimMinArgs = int32_t(offsetof(Primitive, min_args));
constexpr int32_t kPrimMaxArgs = int32_t(offsetof(Primitive, max_args));
constexpr int32_t kPrimVmOp = int32_t(offsetof(Primitive, vm_op));
constexpr int32_t kClosureProto = int32_t(offsetof(Closure, proto));
constexpr int32_t kClosureFree = int32_t(sizeof(Closure));
// Displacements from a tagged pair (core/value.hpp: the cell's address + 4).
constexpr int32_t kPairCar = int32_t(offsetof(Pair, car)) - int32_t(Value::kPairTag);
constexpr int32_t kPairCdr = int32_t(offsetof(Pair, cdr)) - int32_t(Value::kPairTag);
constexpr int32_t kBoxValue = int32_t(offsetof(Box, value));
constexpr int32_t kCellValue = int32_t(offsetof(GlobalCell, value));
constexpr int32_t kFlonumValue = int32_t(offsetof(Flonum, d));
#pragma GCC diagnostic pop
constexpr int32_t kVectorItems = int32_t(sizeof(Vector));
constexpr int32_t kStringChars = int32_t(sizeof(String));
static_assert(sizeof(Insn) == 8, "entries[] is indexed by the byte offset of an instruction");

// r13 = &frames[nframes] (the next free frame).
void load_frames_pointer(Assembler& a) {
  a.imul(r13, qword_ptr(rbx, kVmNframes), kFrameSize);
  a.add(r13, qword_ptr(rbx, kVmFrames));
}
// t = the index of the frame r13 points to: (r13 - frames) / 48, as (x / 16) * M >> 27 with
// M = ceil(2^27 / 3), exact for every multiple of 3 below 2^27 (there are at most 2^24 frames).
void frames_index(Assembler& a, const Gp& t) {
  static_assert(sizeof(Frame) == 48, "frames_index divides by 48");
  a.mov(t, r13);
  a.sub(t, qword_ptr(rbx, kVmFrames));
  a.shr(t, 4);
  a.imul(t, t, 0x2AAAAAB);
  a.shr(t, 27);
}
void store_nframes(Assembler& a, const Gp& t) {
  frames_index(a, t);
  a.mov(qword_ptr(rbx, kVmNframes), t);
}
// VmImpl::jit_calls_end = rcx and frames_soft_end = min(frames + frames_soft_limit, rcx), as
// VmImpl::set_frames_soft_end. Clobbers rdx.
void set_calls_end(Assembler& a) {
  a.mov(qword_ptr(rbx, kVmJitCallsEnd), rcx);
  a.imul(rdx, qword_ptr(rbx, kVmFramesSoftLimit), kFrameSize);
  a.add(rdx, qword_ptr(rbx, kVmFrames));
  a.cmp(rdx, rcx);
  a.cmova(rdx, rcx);
  a.mov(qword_ptr(rbx, kVmFramesSoftEnd), rdx);
}
// The bound on this run's machine calls from r13 now, when rsp is the run's entry rsp.
void start_calls(Assembler& a) {
  a.lea(rcx, ptr(r13, kCallsFramesBytes));
  set_calls_end(a);
}

// The stub every native run starts in: saves the callee-saved registers, loads the VM registers
// and jumps to the target. Each compiled procedure ends the run with the mirror-image epilogue.
void emit_prologue(Assembler& a) {
  a.push(rbp);
  a.push(rbx);
  a.push(r12);
  a.push(r13);
  a.push(r14);
  a.push(r15);
  a.mov(rbx, rdi);
  // The enclosing run's fields (three: rsp stays 16-byte aligned for calls into the runtime).
  a.push(qword_ptr(rbx, kVmJitStackFloor));
  a.push(qword_ptr(rbx, kVmJitEntryRsp));
  a.push(qword_ptr(rbx, kVmJitCallsEnd));
  a.mov(qword_ptr(rbx, kVmJitEntryRsp), rsp);
  a.lea(rax, ptr(rsp, -kMaxNativeStackBytes));
  a.mov(qword_ptr(rbx, kVmJitStackFloor), rax);
  a.mov(rbp, rdx);
  a.mov(r14, qword_ptr(rbx, kVmJitSession));
  a.add(r14, 1);
  a.mov(qword_ptr(rbx, kVmJitSession), r14);
  load_frames_pointer(a);
  start_calls(a);
  a.mov(rcx, qword_ptr(rbx, kVmStack));
  a.mov(rax, qword_ptr(rbx, kVmFp));
  a.lea(r12, ptr(rcx, rax, 3));
  a.jmp(rsi);
}
// rax is the run's result. The enclosing run's bound comes back with the frames' soft limit of
// now (this run may have moved it: a stack overflow, restore_limits).
void emit_epilogue(Assembler& a) {
  a.mov(rsp, qword_ptr(rbx, kVmJitEntryRsp));
  a.pop(rcx);
  set_calls_end(a);
  a.pop(qword_ptr(rbx, kVmJitEntryRsp));
  a.pop(qword_ptr(rbx, kVmJitStackFloor));
  a.pop(r15);
  a.pop(r14);
  a.pop(r13);
  a.pop(r12);
  a.pop(rbx);
  a.pop(rbp);
  a.ret();
}

EntryFn entry_stub() {
  static EntryFn fn = [] {
    CodeHolder code;
    code.init(runtime().environment());
    Assembler a(&code);
    emit_prologue(a);
    EntryFn f = nullptr;
    std::lock_guard<std::mutex> lock(runtime_mutex());
    if (runtime().add(&f, &code) != kErrorOk) return EntryFn(nullptr);
    return f;
  }();
  return fn;
}

// ---- runtime routines called by compiled code -----------------------------------------------
// None of them lets a C++ exception out (it could not unwind through machine code): a failure
// returns 0, which is never a Value, and the compiled code hands the instruction over to the
// interpreter, which repeats it and reports the error exactly as it always does.

template <class F>
uint64_t or_zero(F&& f) noexcept {
  try {
    return f().bits;
  } catch (...) {
    return 0;
  }
}

enum ArithOp : uint64_t { kOpAdd, kOpSub, kOpMul, kOpLt, kOpLe, kOpGt, kOpGe, kOpNumEq, kOpZero };

uint64_t rt_arith(uint64_t op, uint64_t xb, uint64_t yb) noexcept {
  Value x{xb}, y{yb};
  return or_zero([&] {
    switch (ArithOp(op)) {
      case kOpAdd: return num_add(x, y);
      case kOpSub: return num_sub(x, y);
      case kOpMul: return num_mul(x, y);
      case kOpLt: return make_bool(num_lt(x, y));
      case kOpLe: return make_bool(num_le(x, y));
      case kOpGt: return make_bool(num_gt(x, y));
      case kOpGe: return make_bool(num_ge(x, y));
      case kOpNumEq: return make_bool(num_eq(x, y));
      case kOpZero: return make_bool(zero_p(x));
    }
    return Value{0};
  });
}
uint64_t rt_cons(uint64_t a, uint64_t d) noexcept { return or_zero([&] { return cons(Value{a}, Value{d}); }); }
uint64_t rt_box(uint64_t v) noexcept { return or_zero([&] { return make_box(Value{v}); }); }
uint64_t rt_flonum(double d) noexcept { return or_zero([&] { return make_flonum(d); }); }
uint64_t rt_closure(Proto* p, Value* R) noexcept { return or_zero([&] { return close_over(p, R); }); }

// The clause of a closure's code (`first`, its Proto) that a call with argc arguments runs, when
// that clause is of fixed arity and has machine code; else null (no clause accepts argc, which
// the interpreter reports; a rest clause; a clause not compiled yet).
Proto* rt_compiled_clause(Proto* first, int64_t argc) noexcept {
  Proto* p = clause_accepting(first, argc);
  return p && p->jit && !p->has_rest ? p : nullptr;
}
// A rest-argument clause's list: args[0..n) in a new list (0: out of memory).
uint64_t rt_rest_list(const Value* args, int64_t n) noexcept {
  return or_zero([&] {
    Value list = kNil;
    for (int64_t k = n; k-- > 0;) list = cons(args[k], list);
    return list;
  });
}

// Inline allocation pops this thread's free list of the object's size (core/gc.hpp) and writes
// every word of the object; the routines above run only when the list is empty (they refill it).
constexpr int32_t free_list_offset(size_t bytes) {
  return int32_t(offsetof(SmallFreeLists, lists) + (bytes + 7) / 8 * sizeof(void*));
}
constexpr int32_t kPairList = free_list_offset(sizeof(Pair));
constexpr int32_t kBoxList = free_list_offset(sizeof(Box));
constexpr int32_t kFlonumList = free_list_offset(sizeof(Flonum));
static_assert(sizeof(Pair) == 16 && sizeof(Box) == 16 && sizeof(Flonum) == 16 && sizeof(Closure) == 16,
              "inline allocation writes every word of these objects");

// A call to a primitive that is not a VM control operation, with a valid argument count.
uint64_t rt_call_primitive(VmImpl* vm, Primitive* pr, int64_t argc, Value* args) noexcept {
  try {
    return pr->fn(*vm->vm, pr, int(argc), args).bits;
  } catch (...) {
    vm->jit_pending = std::current_exception();
    return 0;
  }
}

// (call/cc f) or (%call/ec f) called from machine code at `call_pc` (flags: kCaptureTail,
// kCaptureEscape): the continuation, made as VmImpl::enter makes it; the code then calls f with
// it. `session` is the run's (r14): the frames its machine calls pushed are marked
// (VmImpl::capture). 0: hand the call to the interpreter, which repeats it and reports the error.
constexpr int64_t kCaptureTail = 1, kCaptureEscape = 2;
uint64_t rt_capture(VmImpl* vm, const Insn* call_pc, int64_t flags, uint64_t session) noexcept {
  bool tail = flags & kCaptureTail;
  const Insn* ret_pc = tail ? nullptr : call_pc + 1;
  int64_t dst = tail ? 0 : call_pc->a;
  // f no procedure: the interpreter's call names call/cc in the error (VmImpl::enter)
  if (!is_procedure(vm->stack[vm->fp + call_pc->a + 1])) return 0;
  return or_zero([&] {
    if (flags & kCaptureEscape) return vm->capture_escape(ret_pc, dst, tail);
    return vm->capture(vm->fp + call_pc->a, ret_pc, dst, tail, session);
  });
}

// ---- the emitter ----------------------------------------------------------------------------

class Emitter {
 public:
  Emitter(Assembler& a, const Proto* p, const LoweredProc& lp, std::vector<Value>* constants, const JitCode* self)
      : a_(a), p_(p), lp_(lp), constants_(constants), self_(self) {}

  void emit() {
    for (size_t k = 0; k < lp_.steps.size(); k++) position_[lp_.steps[k].index] = k;
    labels_.resize(size_t(p_->ncode) + 1);
    for (size_t i = 0; i < labels_.size(); i++)
      if (lp_.label[i]) labels_[i] = a_.newLabel();
    epilogue_ = a_.newLabel();
    exit_sync_ = a_.newLabel();
    return_slow_ = a_.newLabel();
    resume_ = a_.newLabel();
    // Entering from outside (a caller, the interpreter) loads the pinned registers live there
    // from their slots: at the start in line, elsewhere in a stub after the code.
    entry0_ = a_.newLabel();
    entry_labels_ = labels_;
    std::vector<int32_t> stubs;
    for (int32_t i = 1; i <= p_->ncode; i++)
      if (lp_.entry[size_t(i)] && lp_.label[size_t(i)] && !pinned_live_in(position_of(i)).empty()) {
        entry_labels_[size_t(i)] = a_.newLabel();
        stubs.push_back(i);
      }
    entry_labels_[0] = entry0_;
    a_.bind(entry0_);
    reload(pinned_live_in(0));
    size_t group = 0;
    for (size_t k = 0; k < lp_.steps.size(); k++) {
      const Step& s = lp_.steps[k];
      if (lp_.label[size_t(s.index)]) a_.bind(labels_[size_t(s.index)]);
      marks_.push_back({s.index, a_.offset()});
      if (s.op == Op::kGlobalRef && defer_global_ref(k)) continue;
      if (group < lp_.flonum_groups.size() && lp_.flonum_groups[group].first == k) {
        flonum_group(lp_.flonum_groups[group]);
        k = lp_.flonum_groups[group++].last;
        continue;
      }
      step(s);
      if (auto it = after_step_.find(s.index); it != after_step_.end()) a_.bind(it->second);
    }
    marks_.push_back({-1, a_.offset()});
    if (lp_.label[size_t(p_->ncode)]) {
      a_.bind(labels_[size_t(p_->ncode)]);
      exit_to(p_->ncode);
    }
    // Out-of-line slow paths, then the exits to the interpreter (one per instruction that has
    // one), then the epilogue.
    // By index: a slow path may add another (allocate_into inside an inline primitive's path).
    for (size_t i = 0; i < slow_paths_.size(); i++) {
      SlowPath sp = slow_paths_[i];
      a_.bind(sp.label);
      sp.emit();
    }
    if (return_used_) emit_return_slow();
    if (resume_used_) emit_resume();
    for (int32_t i : stubs) {
      a_.bind(entry_labels_[size_t(i)]);
      reload(pinned_live_in(position_of(i)));
      a_.jmp(labels_[size_t(i)]);
    }
    for (const Exit& e : exits_) {
      a_.bind(e.label);
      if (e.flush) flush(pinned_live_in(position_of(e.index)));
      a_.mov(rax, imm(reinterpret_cast<uint64_t>(p_->code + e.index)));
      a_.jmp(exit_sync_);
    }
    // Every hand-over from this procedure's own frame writes the VM state machine code keeps
    // implicit (fp, top, cur_proto) before the interpreter sees it.
    a_.bind(exit_sync_);
    sync_vm_state(rcx);
    store_nframes(a_, rcx);
    a_.bind(epilogue_);
    emit_epilogue(a_);
  }

  // Where the interpreter (or a return through the entries table) enters at bytecode index i.
  const std::vector<Label>& entry_labels() const { return entry_labels_; }
  // (bytecode index, code offset) where each step's in-line code starts; index -1 starts the
  // out-of-line part (slow paths, exits). For the perf map (QUASI_PERF_MAP).
  struct Mark {
    int32_t index;
    size_t offset;
  };
  const std::vector<Mark>& marks() const { return marks_; }

 private:
  struct SlowPath {
    Label label;
    std::function<void()> emit;
  };

  Assembler& a_;
  const Proto* p_;
  const LoweredProc& lp_;
  std::vector<Value>* constants_;
  const JitCode* self_;  // the JitCode this code will belong to (its address is known before)
  std::vector<Label> labels_;
  Label epilogue_;
  Label exit_sync_;     // writes fp, top and cur_proto, then the epilogue (rax: the pc)
  Label return_slow_;   // the general half of a return (emit_return_slow)
  bool return_used_ = false;
  Label resume_;        // goes on where a reinstated continuation resumes (emit_resume)
  bool resume_used_ = false;
  struct Exit {
    int32_t index;
    bool flush;
    Label label;
  };
  std::vector<Exit> exits_;
  Label entry0_;                     // the start for callers: loads the pinned parameters
  std::vector<Label> entry_labels_;  // per bytecode index: where the interpreter enters
  std::vector<SlowPath> slow_paths_;
  std::map<int32_t, size_t> position_;  // bytecode index -> position in lp_.steps
  std::vector<Mark> marks_;
  // Calls of an inline primitive whose callee's global is read by the call itself (bytecode
  // index of the call -> position of the kGlobalRef, which emits nothing): defer_global_ref.
  std::map<int32_t, size_t> deferred_ref_;
  // Labels bound right after a step's code (bytecode index): where a predicate done inline goes
  // when true, past the jump-if-false that would test its boolean (inline_primitive).
  std::map<int32_t, Label> after_step_;

  static Mem slot(int reg) { return qword_ptr(r12, int32_t(reg) * 8); }

  // ---- VM registers: a frame slot, or a pinned register's machine register (jit/regalloc.hpp) ----

  // The machine registers pinned VM registers live in, by home: not argument registers of the
  // runtime routines; a call sequence (which stores them first) and the exit paths may clobber
  // them; call_runtime saves the caller-saved ones (the first kCallerSavedHomes) around a routine.
  static constexpr int kCallerSavedHomes = 4;
  static Gp home_register(int home) {
    static const Gp regs[kMaxPinned] = {r8, r9, r10, r11, r15};
    return regs[home];
  }
  bool pinned(int r) const { return size_t(r) < lp_.regs.home.size() && lp_.regs.home[size_t(r)] >= 0; }
  Gp home(int r) const { return home_register(lp_.regs.home[size_t(r)]); }
  // dst = R[r].
  void ld(const Gp& dst, int r) {
    if (!pinned(r)) a_.mov(dst, slot(r));
    else if (home(r).id() != dst.id()) a_.mov(dst, home(r));
  }
  // R[r] as a register: its machine register when pinned, else loaded into `scratch`.
  Gp use(int r, const Gp& scratch) {
    if (pinned(r)) return home(r);
    a_.mov(scratch, slot(r));
    return scratch;
  }
  // R[r] = src.
  void st(int r, const Gp& src) {
    if (!pinned(r)) a_.mov(slot(r), src);
    else if (home(r).id() != src.id()) a_.mov(home(r), src);
  }
  // R[r] = the quadword at m (through rax when R[r] is in its slot).
  void st_from(int r, const Mem& m) {
    if (pinned(r)) {
      a_.mov(home(r), m);
    } else {
      a_.mov(rax, m);
      a_.mov(slot(r), rax);
    }
  }
  // R[dst] = R[src].
  void move(int dst, int src) {
    if (pinned(src)) st(dst, home(src));
    else st_from(dst, slot(src));
  }
  void cmp_imm(int r, int32_t v) {
    if (pinned(r)) a_.cmp(home(r), v);
    else a_.cmp(slot(r), v);
  }
  void cmp_reg(const Gp& x, int r) {
    if (pinned(r)) a_.cmp(x, home(r));
    else a_.cmp(x, slot(r));
  }
  // Position of bytecode index `index` in the steps (the end: steps.size()).
  size_t position_of(int32_t index) const {
    auto it = position_.find(index);
    return it == position_.end() ? lp_.steps.size() : it->second;
  }
  // The pinned registers live before (after) the step at position k; an argument register
  // always is (backtraces read the arguments from the frame).
  std::vector<uint16_t> pinned_live_in(size_t k) const {
    std::vector<uint16_t> v;
    for (uint16_t r : lp_.regs.pinned)
      if (holds_argument(p_, r) || (k < lp_.steps.size() && lp_.live.live_in(k, r))) v.push_back(r);
    return v;
  }
  std::vector<uint16_t> pinned_live_out(size_t k) const {
    std::vector<uint16_t> v;
    for (uint16_t r : lp_.regs.pinned)
      if (holds_argument(p_, r) || (k < lp_.steps.size() && lp_.live.live_out(k, r))) v.push_back(r);
    return v;
  }
  // Brings the frame slots of these pinned registers up to date (someone else will read them).
  void flush(const std::vector<uint16_t>& regs) {
    for (uint16_t r : regs) a_.mov(slot(r), home(r));
  }
  // Loads these pinned registers from their slots (someone else may have written them).
  void reload(const std::vector<uint16_t>& regs, int except = -1) {
    for (uint16_t r : regs)
      if (r != except) a_.mov(home(r), slot(r));
  }
  // The pinned registers this step reads, brought to their slots (for a routine that reads the frame).
  void flush_reads(const Step& s) {
    std::vector<uint16_t> regs;
    for (uint16_t r : register_use(p_, s).reads)
      if (pinned(r) && std::find(regs.begin(), regs.end(), r) == regs.end()) regs.push_back(r);
    flush(regs);
  }

  // The label that hands bytecode instruction `index` to the interpreter. With `flush`, the
  // exit first stores the pinned registers live there (the machine registers must still hold
  // them at the jump); without, the code jumping there has stored them already (a call).
  Label exit_label(int32_t index, bool flush = true) {
    for (auto& e : exits_)
      if (e.index == index && e.flush == flush) return e.label;
    Label l = a_.newLabel();
    exits_.push_back(Exit{index, flush, l});
    return l;
  }
  void exit_to(int32_t index) { a_.jmp(exit_label(index)); }

  Label slow_path(std::function<void()> body) {
    Label l = a_.newLabel();
    slow_paths_.push_back(SlowPath{l, std::move(body)});
    return l;
  }

  void load_constant(const Gp& dst, Value v) {
    if (is_object(v)) constants_->push_back(v);
    a_.mov(dst, imm(v.bits));
  }

  // nframes (r13) is written back first: the collector scans the frames up to it, and a
  // primitive may look at the frames or call back into Scheme. The pinned registers' machine
  // registers are saved around the call on the machine stack, which the collector scans too
  // (`save` false: the caller has stored them in their slots and reloads them after).
  void call_runtime(const void* fn, bool save = true) {
    store_nframes(a_, rax);  // rax is no argument, and the routine's result comes back in it
    size_t n = save ? std::min(lp_.regs.pinned.size(), size_t(kCallerSavedHomes)) : 0;
    for (size_t h = 0; h < n; h++) a_.push(home_register(int(h)));
    if (n % 2) a_.sub(rsp, 8);
    a_.mov(rax, imm(reinterpret_cast<uint64_t>(fn)));
    a_.call(rax);
    if (n % 2) a_.add(rsp, 8);
    for (size_t h = n; h-- > 0;) a_.pop(home_register(int(h)));
  }

  // R[dst] = the routine's result; its failure (0) hands the instruction to the interpreter.
  void call_runtime_into(const void* fn, int32_t dst, const Label& exit) {
    call_runtime(fn);
    a_.test(rax, rax);
    a_.jz(exit);
    st(dst, rax);
  }

  // rax = an object popped from the free list at `list_offset` (rbp), its header written; an empty
  // list jumps to `empty`. Clobbers rcx. The object is only in rax until the caller stores it:
  // no collection can happen in between (nothing here calls out).
  // header 0: a pair's cell (no header; the caller writes car and cdr over the link).
  void pop_free_list(int32_t list_offset, uint64_t header, const Label& empty) {
    a_.mov(rax, qword_ptr(rbp, list_offset));
    a_.test(rax, rax);
    a_.jz(empty);
    a_.mov(rcx, qword_ptr(rax));
    a_.mov(qword_ptr(rbp, list_offset), rcx);
    if (header) a_.mov(qword_ptr(rax), int32_t(header));
  }

  // R[dst] = a new object: the inline pop, then `fill` (rax = the object; may use rcx, rdx) writes
  // its fields; an empty list runs `setup` and calls `routine` out of line (failure: the
  // interpreter repeats the instruction).
  void allocate_into(int32_t dst, int32_t list_offset, uint64_t header, int32_t index,
                     const std::function<void()>& fill, std::function<void()> setup, const void* routine) {
    Label done = a_.newLabel();
    Label empty = slow_path([=, this] {
      setup();
      call_runtime(routine);
      a_.test(rax, rax);
      a_.jz(exit_label(index));
      a_.jmp(done);
    });
    pop_free_list(list_offset, header, empty);
    fill();
    a_.bind(done);
    st(dst, rax);
  }

  // rax = a new flonum holding xmm0 (popped inline; an empty list calls rt_flonum in line, so this
  // is usable inside slow paths); failure jumps to `exit`. Clobbers rcx and the caller-saved
  // registers; xmm0 is read before any call.
  void box_xmm0(const Label& exit) {
    Label empty = a_.newLabel(), done = a_.newLabel();
    pop_free_list(kFlonumList, make_header(Type::Flonum), empty);
    a_.movsd(qword_ptr(rax, kFlonumValue), xmm0);
    a_.jmp(done);
    a_.bind(empty);
    call_runtime(reinterpret_cast<const void*>(&rt_flonum));
    a_.test(rax, rax);
    a_.jz(exit);
    a_.bind(done);
  }

  // r9 = the new top + 1: to the interpreter unless it is under the stack's soft limit; raises
  // the high-water mark the collector scans to. In line only one compare with VmImpl::stack_bound
  // (at or below both); above it, out of line: the soft limit, the mark, and the bound made the
  // smaller of the two again. Clobbers r11 there.
  void check_stack_room(const Label& exit) {
    Label back = a_.newLabel();
    Label slow = slow_path([this, exit, back] {
      a_.cmp(r9, qword_ptr(rbx, kVmStackSoftLimit));
      a_.jg(exit);
      Label below = a_.newLabel(), bound = a_.newLabel();
      a_.cmp(r9, qword_ptr(rbx, kVmHighWater));
      a_.jle(below);
      a_.mov(qword_ptr(rbx, kVmHighWater), r9);
      a_.bind(below);
      a_.mov(r11, qword_ptr(rbx, kVmHighWater));
      a_.cmp(r11, qword_ptr(rbx, kVmStackSoftLimit));
      a_.jle(bound);
      a_.mov(r11, qword_ptr(rbx, kVmStackSoftLimit));
      a_.bind(bound);
      a_.mov(qword_ptr(rbx, kVmStackBound), r11);
      a_.shl(r11, 3);
      a_.add(r11, qword_ptr(rbx, kVmStack));
      a_.mov(qword_ptr(rbx, kVmStackBoundEnd), r11);
      a_.jmp(back);
    });
    a_.cmp(r9, qword_ptr(rbx, kVmStackBound));
    a_.jg(slow);
    a_.bind(back);
  }

  // The same for the tail call at `index`, with rdi = the address of the callee's top + 1
  // (r12-relative: the frame's index need not be computed): one compare with
  // VmImpl::stack_bound_end; above it, the index form out of line, which stores the pinned
  // registers live there first (a tail call has not) and reloads them after.
  void check_tail_room(int32_t index) {
    Label back = a_.newLabel();
    Label slow = slow_path([this, index, back] {
      std::vector<uint16_t> live = pinned_live_in(position_of(index));
      flush(live);
      a_.mov(r9, rdi);
      a_.sub(r9, qword_ptr(rbx, kVmStack));
      a_.sar(r9, 3);
      check_stack_room(exit_label(index, false));
      reload(live);
      a_.jmp(back);
    });
    a_.cmp(rdi, qword_ptr(rbx, kVmStackBoundEnd));
    a_.ja(slow);
    a_.bind(back);
  }

  // eax = kTrue when the condition holds, else kFalse (kFalse = 6, kTrue = 14).
  void bool_from_flags(CondCode cc, const Gp& dst32) {
    a_.set(cc, dl);
    a_.movzx(dst32, dl);
    a_.shl(dst32, 3);
    a_.add(dst32, 6);
  }

  // Jumps to `target` when the value in `reg` is not a heap object of `type`. A pair is its tag
  // (0b100): the low two bits clear and bit 2 set.
  void check_type(const Gp& reg, Type type, const Label& otherwise) {
    if (type == Type::Pair) {
      a_.test(reg.r8(), 3);
      a_.jnz(otherwise);
      a_.test(reg.r8(), 4);
      a_.jz(otherwise);
      return;
    }
    a_.test(reg.r8(), 7);
    a_.jnz(otherwise);
    a_.cmp(byte_ptr(reg), uint8_t(type));
    a_.jne(otherwise);
  }

  // Flags for the heap object in `obj` being a number (flonum, bignum, ratnum, compnum, which are
  // consecutive types): `jbe` is taken for one, `ja` for any other type. Clobbers `scratch`.
  void compare_number_type(const Gp& obj, const Gp& scratch) {
    a_.movzx(scratch, byte_ptr(obj));
    a_.sub(scratch, int32_t(Type::Flonum));
    a_.cmp(scratch, int32_t(Type::Compnum) - int32_t(Type::Flonum));
  }

  // Jumps to `otherwise` unless the value in `reg` is a closure of `proto`; leaves rcx = proto.
  void check_closure_of(const Gp& reg, const Proto* proto, const Label& otherwise) {
    check_type(reg, Type::Closure, otherwise);
    a_.mov(rcx, imm(reinterpret_cast<uint64_t>(proto)));
    a_.cmp(qword_ptr(reg, kClosureProto), rcx);
    a_.jne(otherwise);
  }

  // Jumps to `otherwise` when the value in `reg` is not a character (edx is clobbered).
  void check_char(const Gp& reg, const Label& otherwise) {
    a_.mov(edx, reg.r32());
    a_.and_(edx, 7);
    a_.cmp(edx, 2);
    a_.jne(otherwise);
  }

  // The VM state machine code does not keep up to date while it runs (the lean call protocol):
  // in this procedure's code fp is (r12 - vm.stack) / 8, top is fp + nregs and cur_proto is this
  // Proto, all implied. Written before anything outside machine code may look: every hand-over
  // to the interpreter (exit_sync_) and every call of a primitive (which may call back into
  // Scheme, raise, or take a backtrace). Clobbers `t`.
  void sync_vm_state(const Gp& t) {
    caller_fp(t);
    a_.mov(qword_ptr(rbx, kVmFp), t);
    a_.add(t, int32_t(p_->nregs));
    a_.mov(qword_ptr(rbx, kVmTop), t);
    a_.mov(t, imm(reinterpret_cast<uint64_t>(p_)));
    a_.mov(qword_ptr(rbx, kVmCurProto), t);
  }
  // t = this frame's fp (an index into the VM stack), from r12.
  void caller_fp(const Gp& t) {
    a_.mov(t, r12);
    a_.sub(t, qword_ptr(rbx, kVmStack));
    a_.sar(t, 3);
  }

  // A poll point: one decrement; at zero the interpreter polls (and counts again).
  void poll(int32_t index) {
    a_.sub(qword_ptr(rbx, kVmPoll), 1);
    a_.jle(exit_label(index));
  }

  // A step that cannot fail and only writes a register nobody reads afterwards (not an argument
  // register: backtraces show those) emits nothing.
  bool dead_pure_step(const Step& s) {
    switch (s.op) {
      case Op::kConst: case Op::kMove: case Op::kFree: case Op::kFreeUnbox: case Op::kUnbox:
      case Op::kNullP: case Op::kNot: case Op::kEq: case Op::kPairP:
        break;
      default:
        return false;
    }
    return lp_.live.valid() && !holds_argument(p_, s.a) && !lp_.live.live_out(position_of(s.index), s.a);
  }

  void step(const Step& s) {
    if (dead_pure_step(s)) return;
    switch (s.op) {
      case Op::kMove:
        move(s.a, s.b);
        return;
      case Op::kConst:
        if (pinned(s.a)) {
          load_constant(home(s.a), p_->consts[s.b]);
        } else {
          load_constant(rax, p_->consts[s.b]);
          a_.mov(slot(s.a), rax);
        }
        return;
      case Op::kGlobalRef:
        load_constant(rcx, p_->consts[s.b]);
        a_.mov(rax, qword_ptr(rcx, kCellValue));
        a_.cmp(rax, int32_t(kUnbound.bits));
        a_.je(exit_label(s.index));
        st(s.a, rax);
        return;
      case Op::kGlobalSet:
      case Op::kGlobalDef: {
        load_constant(rcx, p_->consts[s.b]);
        a_.test(qword_ptr(rcx), int32_t(kInlinedCell | kWatchedCell));
        a_.jnz(exit_label(s.index));
        if (s.op == Op::kGlobalSet) {
          a_.cmp(qword_ptr(rcx, kCellValue), int32_t(kUnbound.bits));
          a_.je(exit_label(s.index));
        }
        Gp v = use(s.a, rax);
        a_.mov(qword_ptr(rcx, kCellValue), v);
        return;
      }
      case Op::kFree: {
        Gp c = use(0, rax);
        st_from(s.a, qword_ptr(c, kClosureFree + int32_t(s.b) * 8));
        return;
      }
      case Op::kFreeUnbox: {
        Gp c = use(0, rax);
        a_.mov(rax, qword_ptr(c, kClosureFree + int32_t(s.b) * 8));
        st_from(s.a, qword_ptr(rax, kBoxValue));
        return;
      }
      case Op::kBox: {
        int32_t r = s.a;
        allocate_into(
            r, kBoxList, make_header(Type::Box), s.index,
            [=, this] {
              Gp v = use(r, rcx);
              a_.mov(qword_ptr(rax, kBoxValue), v);
            },
            [=, this] { ld(rdi, r); }, reinterpret_cast<const void*>(&rt_box));
        return;
      }
      case Op::kUnbox: {
        Gp x = use(s.b, rax);
        st_from(s.a, qword_ptr(x, kBoxValue));
        return;
      }
      case Op::kSetBox: {
        Gp x = use(s.a, rax);
        Gp y = use(s.b, rcx);
        a_.mov(qword_ptr(x, kBoxValue), y);
        return;
      }
      case Op::kClosure: {
        Value proto = p_->consts[s.b];
        constants_->push_back(proto);
        Proto* child = proto.as<Proto>();
        int32_t n = child->ncaptures;
        // rt_closure gathers the captures from the frame: their slots must be current.
        auto setup = [=, this] {
          flush_reads(s);
          a_.mov(rdi, imm(proto.bits));
          a_.mov(rsi, r12);
        };
        const void* routine = reinterpret_cast<const void*>(&rt_closure);
        if (sizeof(Closure) + size_t(n) * 8 > kSmallObjectWords * 8) {
          setup();
          call_runtime_into(routine, s.a, exit_label(s.index));
          return;
        }
        // The captures are known from the child Proto: the same copies close_over makes.
        auto fill = [=, this] {
          a_.mov(rcx, imm(proto.bits));
          a_.mov(qword_ptr(rax, kClosureProto), rcx);
          bool any_free = false;
          for (int32_t k = 0; k < n; k++) any_free |= child->captures[k].from_free != 0;
          if (any_free) ld(rdx, 0);
          for (int32_t k = 0; k < n; k++) {
            Capture cap = child->captures[k];
            Gp v = rcx;
            if (cap.from_free) a_.mov(rcx, qword_ptr(rdx, kClosureFree + int32_t(cap.index) * 8));
            else v = use(int32_t(cap.index), rcx);
            a_.mov(qword_ptr(rax, kClosureFree + k * 8), v);
          }
        };
        allocate_into(s.a, free_list_offset(sizeof(Closure) + size_t(n) * 8), make_header(Type::Closure, uint64_t(n)),
                      s.index, fill, setup, routine);
        return;
      }
      case Op::kFixClosure: {
        Gp c = use(s.a, rax);
        Gp v = use(s.c, rcx);
        a_.mov(qword_ptr(c, kClosureFree + int32_t(s.b) * 8), v);
        return;
      }
      case Op::kSetFree: {
        Gp c = use(0, rax);
        Gp v = use(s.a, rcx);
        a_.mov(qword_ptr(c, kClosureFree + int32_t(s.b) * 8), v);
        return;
      }
      case Op::kJump:
        if (s.backward) poll(s.index);
        jump_to(s.target);
        return;
      case Op::kJumpIfFalse:
        cmp_imm(s.a, int32_t(kFalse.bits));
        a_.je(labels_[size_t(s.target)]);
        return;
      case Op::kCall:
        call(s);
        return;
      case Op::kCallCC:
        inline_capture(s);
        return;
      case Op::kTailCall:
        tail_call(s);
        return;
      case Op::kReturn:
        ld(rax, s.a);
        emit_return();
        return;
      case Op::kCheckBound:
        cmp_imm(s.a, int32_t(kUnbound.bits));
        a_.je(exit_label(s.index));
        return;
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
        arith(s, false);
        return;
      case Op::kAddI:
      case Op::kSubI:
        arith(s, true);
        return;
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe:
      case Op::kNumEq:
        compare_value(s);
        return;
      case Op::kEq: {
        Gp x = use(s.b, rax);
        cmp_reg(x, s.c);
        bool_from_flags(CondCode::kE, eax);
        st(s.a, rax);
        return;
      }
      case Op::kCar:
      case Op::kCdr: {
        Gp x = use(s.b, rax);
        check_type(x, Type::Pair, exit_label(s.index));
        st_from(s.a, qword_ptr(x, s.op == Op::kCar ? kPairCar : kPairCdr));
        return;
      }
      case Op::kCons: {
        int32_t x = s.b, y = s.c;
        allocate_into(
            s.a, kPairList, 0, s.index,
            [=, this] {
              Gp vx = use(x, rcx);
              a_.mov(qword_ptr(rax, int32_t(offsetof(Pair, car))), vx);
              Gp vy = use(y, rcx);
              a_.mov(qword_ptr(rax, int32_t(offsetof(Pair, cdr))), vy);
              a_.or_(rax, int32_t(Value::kPairTag));
            },
            [=, this] {
              ld(rdi, x);
              ld(rsi, y);
            },
            reinterpret_cast<const void*>(&rt_cons));
        return;
      }
      case Op::kNullP:
        cmp_imm(s.b, int32_t(kNil.bits));
        bool_from_flags(CondCode::kE, eax);
        st(s.a, rax);
        return;
      case Op::kNot:
        cmp_imm(s.b, int32_t(kFalse.bits));
        bool_from_flags(CondCode::kE, eax);
        st(s.a, rax);
        return;
      case Op::kPairP: {
        Label no = a_.newLabel();
        Gp x = use(s.b, rcx);
        a_.mov(eax, int32_t(kFalse.bits));
        check_type(x, Type::Pair, no);
        a_.mov(eax, int32_t(kTrue.bits));
        a_.bind(no);
        st(s.a, rax);
        return;
      }
      case Op::kZeroP: {
        Label slow = a_.newLabel(), done = a_.newLabel();
        Gp x = use(s.b, rax);
        a_.test(x.r8(), 1);
        a_.jz(slow);
        a_.cmp(x, int32_t(make_fixnum(0).bits));
        bool_from_flags(CondCode::kE, eax);
        st(s.a, rax);
        a_.bind(done);
        int32_t index = s.index, dst = s.a, src = s.b;
        Label exit = exit_label(index);
        slow_paths_.push_back(SlowPath{slow, [this, exit, dst, src, done] {
          a_.mov(edi, int32_t(kOpZero));
          ld(rsi, src);
          a_.xor_(edx, edx);
          call_runtime_into(reinterpret_cast<const void*>(&rt_arith), dst, exit);
          a_.jmp(done);
        }});
        return;
      }
      case Op::kStringRef: {
        Label exit = exit_label(s.index);
        Gp str = use(s.b, rax);
        ld(rcx, s.c);
        check_type(str, Type::String, exit);
        a_.test(cl, 1);
        a_.jz(exit);
        a_.sar(rcx, 1);
        a_.mov(rdx, qword_ptr(str));
        a_.shr(rdx, 16);
        a_.cmp(rcx, rdx);
        a_.jae(exit);
        a_.mov(eax, dword_ptr(str, rcx, 2, kStringChars));
        a_.shl(rax, 3);
        a_.or_(rax, 2);  // a character: code point << 3 | 2
        st(s.a, rax);
        return;
      }
      case Op::kStringLength:
      case Op::kVectorLength: {
        Gp x = use(s.b, rax);
        check_type(x, s.op == Op::kStringLength ? Type::String : Type::Vector, exit_label(s.index));
        a_.mov(rax, qword_ptr(x));
        a_.shr(rax, 16);
        a_.lea(rax, ptr(rax, rax, 0, 1));  // fixnum: 2n + 1
        st(s.a, rax);
        return;
      }
      case Op::kVectorRef:
      case Op::kVectorSet: {
        Label exit = exit_label(s.index);
        bool set = s.op == Op::kVectorSet;
        Gp v = use(set ? s.a : s.b, rax);
        ld(rcx, set ? s.b : s.c);
        check_type(v, Type::Vector, exit);
        if (set) {
          a_.test(qword_ptr(v), int32_t(kImmutable));
          a_.jnz(exit);
        }
        a_.test(cl, 1);
        a_.jz(exit);
        a_.sar(rcx, 1);
        a_.mov(rdx, qword_ptr(v));
        a_.shr(rdx, 16);
        a_.cmp(rcx, rdx);
        a_.jae(exit);  // unsigned: negative indexes too
        if (set) {
          Gp x = use(s.c, rdx);
          a_.mov(ptr(v, rcx, 3, kVectorItems), x);
        } else {
          st_from(s.a, ptr(v, rcx, 3, kVectorItems));
        }
        return;
      }
      case Op::kBrLt:
      case Op::kBrLe:
      case Op::kBrGt:
      case Op::kBrGe:
      case Op::kBrNumEq:
      case Op::kBrLtI:
      case Op::kBrLeI:
      case Op::kBrGtI:
      case Op::kBrGeI:
      case Op::kBrNumEqI:
        compare_branch(s);
        return;
      case Op::kBrEq: {
        Gp x = use(s.a, rax);
        cmp_reg(x, s.b);
        a_.jne(labels_[size_t(s.target)]);
        return;
      }
      case Op::kBrNull:
        cmp_imm(s.a, int32_t(kNil.bits));
        a_.jne(labels_[size_t(s.target)]);
        return;
      case Op::kBrNot:
        cmp_imm(s.a, int32_t(kFalse.bits));
        a_.jne(labels_[size_t(s.target)]);
        return;
      case Op::kBrPair: {
        Gp x = use(s.a, rax);
        check_type(x, Type::Pair, labels_[size_t(s.target)]);
        return;
      }
      case Op::kBrZero: {
        Label slow = a_.newLabel(), done = a_.newLabel();
        Label target = labels_[size_t(s.target)];
        Gp x = use(s.a, rax);
        a_.test(x.r8(), 1);
        a_.jz(slow);
        a_.cmp(x, int32_t(make_fixnum(0).bits));
        a_.jne(target);
        a_.bind(done);
        Label exit = exit_label(s.index);
        int32_t src = s.a;
        slow_paths_.push_back(SlowPath{slow, [this, exit, target, done, src] {
          a_.mov(edi, int32_t(kOpZero));
          ld(rsi, src);
          a_.xor_(edx, edx);
          call_runtime(reinterpret_cast<const void*>(&rt_arith));
          a_.test(rax, rax);
          a_.jz(exit);
          a_.cmp(rax, int32_t(kFalse.bits));
          a_.je(target);
          a_.jmp(done);
        }});
        return;
      }
      case Op::kCount:
        exit_to(s.index);
        return;
    }
    exit_to(s.index);
  }

  void jump_to(int32_t target) { a_.jmp(labels_[size_t(target)]); }

  // ---- arithmetic and comparisons ----

  static ArithOp arith_op(Op op) {
    switch (op) {
      case Op::kAdd: case Op::kAddI: return kOpAdd;
      case Op::kSub: case Op::kSubI: return kOpSub;
      case Op::kMul: return kOpMul;
      case Op::kLt: case Op::kBrLt: case Op::kBrLtI: return kOpLt;
      case Op::kLe: case Op::kBrLe: case Op::kBrLeI: return kOpLe;
      case Op::kGt: case Op::kBrGt: case Op::kBrGtI: return kOpGt;
      case Op::kGe: case Op::kBrGe: case Op::kBrGeI: return kOpGe;
      default: return kOpNumEq;
    }
  }
  static ArithOp mirror(ArithOp op) {
    switch (op) {
      case kOpLt: return kOpGt;
      case kOpLe: return kOpGe;
      case kOpGt: return kOpLt;
      case kOpGe: return kOpLe;
      default: return op;
    }
  }
  static CondCode fixnum_cond(ArithOp op) {
    switch (op) {
      case kOpLt: return CondCode::kL;
      case kOpLe: return CondCode::kLE;
      case kOpGt: return CondCode::kG;
      case kOpGe: return CondCode::kGE;
      default: return CondCode::kE;
    }
  }

  // Both operands flonums (rax, rcx hold them): xmm0 = x, xmm1 = y; jumps to `otherwise` if not.
  void load_flonums(const Label& otherwise) {
    check_type(rax, Type::Flonum, otherwise);
    check_type(rcx, Type::Flonum, otherwise);
    a_.movsd(xmm0, qword_ptr(rax, kFlonumValue));
    a_.movsd(xmm1, qword_ptr(rcx, kFlonumValue));
  }

  // R[a] = x op y for + - * (immediate: y is the step's imm). Fixnums inline with an overflow
  // check; two flonums in SSE registers; anything else through the generic routine.
  void arith(const Step& s, bool immediate) {
    ArithOp op = arith_op(s.op);
    Label slow = a_.newLabel(), done = a_.newLabel();
    // A pinned destination that is not an operand is computed in place: the slow path reads
    // the operands again and writes it anyway.
    bool in_place = pinned(s.a) && s.a != s.b && (immediate || s.a != s.c);
    Gp d = in_place ? home(s.a) : Gp(rdx);
    Gp x = use(s.b, rax);
    if (immediate) {
      a_.test(x.r8(), 1);
      a_.jz(slow);
      a_.mov(d, x);
      if (op == kOpAdd) a_.add(d, int32_t(s.imm * 2));
      else a_.sub(d, int32_t(s.imm * 2));
      a_.jo(slow);
    } else {
      Gp y = use(s.c, rcx);
      a_.mov(esi, x.r32());
      a_.and_(esi, y.r32());
      a_.test(sil, 1);
      a_.jz(slow);
      a_.lea(rsi, ptr(y, -1));  // y's bits without the tag: 2y
      a_.mov(d, x);
      if (op == kOpAdd) {
        a_.add(d, rsi);
      } else if (op == kOpSub) {
        a_.sub(d, rsi);
      } else {
        a_.sar(d, 1);
        a_.imul(d, rsi);
      }
      a_.jo(slow);
      if (op == kOpMul) a_.or_(d, 1);
    }
    st(s.a, d);
    a_.bind(done);

    Label exit = exit_label(s.index);
    int32_t dst = s.a, xreg = s.b, yreg = s.c;
    int64_t imm_value = s.imm;
    slow_paths_.push_back(SlowPath{slow, [=, this] {
      ld(rax, xreg);
      if (immediate) a_.mov(rcx, imm(make_fixnum(imm_value).bits));
      else ld(rcx, yreg);
      Label generic = a_.newLabel();
      load_flonums(generic);
      if (op == kOpAdd) a_.addsd(xmm0, xmm1);
      else if (op == kOpSub) a_.subsd(xmm0, xmm1);
      else a_.mulsd(xmm0, xmm1);
      box_xmm0(exit);
      st(dst, rax);
      a_.jmp(done);
      a_.bind(generic);
      a_.mov(edi, int32_t(op));
      a_.mov(rsi, rax);
      a_.mov(rdx, rcx);
      call_runtime_into(reinterpret_cast<const void*>(&rt_arith), dst, exit);
      a_.jmp(done);
    }});
  }

  // Flags for a flonum comparison x op y (xmm0, xmm1) such that `cc` holds exactly when the
  // comparison is true; NaN makes every comparison false.
  CondCode flonum_compare(ArithOp op) {
    switch (op) {
      case kOpLt: a_.ucomisd(xmm1, xmm0); return CondCode::kA;   // y > x
      case kOpLe: a_.ucomisd(xmm1, xmm0); return CondCode::kAE;  // y >= x
      case kOpGt: a_.ucomisd(xmm0, xmm1); return CondCode::kA;
      case kOpGe: a_.ucomisd(xmm0, xmm1); return CondCode::kAE;
      default: return CondCode::kE;  // handled by the caller (needs the parity flag)
    }
  }

  // R[a] = (op R[b] R[c]) as a boolean.
  void compare_value(const Step& s) {
    ArithOp op = arith_op(s.op);
    Label slow = a_.newLabel(), done = a_.newLabel();
    Gp x = use(s.b, rax);
    Gp y = use(s.c, rcx);
    a_.mov(edx, x.r32());
    a_.and_(edx, y.r32());
    a_.test(dl, 1);
    a_.jz(slow);
    a_.cmp(x, y);
    bool_from_flags(fixnum_cond(op), eax);
    st(s.a, rax);
    a_.bind(done);
    Label exit = exit_label(s.index);
    int32_t dst = s.a, xreg = s.b, yreg = s.c;
    slow_paths_.push_back(SlowPath{slow, [=, this] {
      a_.mov(edi, int32_t(op));
      ld(rsi, xreg);
      ld(rdx, yreg);
      call_runtime_into(reinterpret_cast<const void*>(&rt_arith), dst, exit);
      a_.jmp(done);
    }});
  }

  // Fused compare-and-branch: falls through when (op x y) holds, else jumps to the target.
  void compare_branch(const Step& s) {
    ArithOp op = arith_op(s.op);
    bool immediate = s.op >= Op::kBrLtI;
    Label target = labels_[size_t(s.target)];
    Label slow = a_.newLabel(), done = a_.newLabel();
    Gp x = use(s.a, rax);
    if (immediate) {
      a_.test(x.r8(), 1);
      a_.jz(slow);
      a_.cmp(x, int32_t(make_fixnum(s.imm).bits));
    } else {
      Gp y = use(s.b, rcx);
      a_.mov(edx, x.r32());
      a_.and_(edx, y.r32());
      a_.test(dl, 1);
      a_.jz(slow);
      a_.cmp(x, y);
    }
    a_.j(negate(fixnum_cond(op)), target);
    a_.bind(done);

    Label exit = exit_label(s.index);
    // The interpreter's slow path for a swapped immediate test calls the mirrored procedure with
    // the operands in the program's order; the result is the same, so flonums and the generic
    // routine below need not care, and an error goes to the interpreter anyway.
    ArithOp call_op = s.swapped ? mirror(op) : op;
    bool swap_args = s.swapped;
    int32_t xreg = s.a, yreg = s.b;
    int64_t imm_value = s.imm;
    slow_paths_.push_back(SlowPath{slow, [=, this] {
      ld(rax, xreg);
      if (immediate) a_.mov(rcx, imm(make_fixnum(imm_value).bits));
      else ld(rcx, yreg);
      Label generic = a_.newLabel();
      load_flonums(generic);
      if (op == kOpNumEq) {
        a_.ucomisd(xmm0, xmm1);
        a_.jp(target);   // NaN: not equal
        a_.jne(target);
      } else {
        CondCode cc = flonum_compare(op);
        a_.j(negate(cc), target);
      }
      a_.jmp(done);
      a_.bind(generic);
      a_.mov(edi, int32_t(call_op));
      if (swap_args) {
        a_.mov(rsi, rcx);
        a_.mov(rdx, rax);
      } else {
        a_.mov(rsi, rax);
        a_.mov(rdx, rcx);
      }
      call_runtime(reinterpret_cast<const void*>(&rt_arith));
      a_.test(rax, rax);
      a_.jz(exit);
      a_.cmp(rax, int32_t(kFalse.bits));
      a_.je(target);
      a_.jmp(done);
    }});
  }

  static CondCode negate(CondCode cc) { return x86::negateCond(cc); }

  // Jumps to `target` unless (op xmm0 xmm1) holds.
  void flonum_branch(ArithOp op, const Label& target) {
    if (op == kOpNumEq) {
      a_.ucomisd(xmm0, xmm1);
      a_.jp(target);  // NaN: not equal
      a_.jne(target);
    } else {
      a_.j(negate(flonum_compare(op)), target);
    }
  }

  // A group of flonum steps (jit/flonum_groups.hpp). Fast path: every operand read from the frame
  // is checked to be a flonum and loaded once, the steps run in xmm2..xmm15, and only the values
  // read after the group are boxed and stored — after all boxes exist, so that a failed
  // allocation hands the untouched group to the interpreter. Otherwise (a fixnum, a bignum...)
  // the steps run one by one as usual.
  void flonum_group(const FlonumGroup& g) {
    const Step& head = lp_.steps[g.first];
    const Step& tail = lp_.steps[g.last];
    Label generic = a_.newLabel(), done = a_.newLabel();
    std::map<uint16_t, Xmm> value;       // register -> the xmm holding its value in the group
    std::map<uint16_t, Value> constant;  // register -> the constant it holds (kConst)
    std::map<uint16_t, int32_t> freevar; // register -> the free variable it holds (kFree)
    int next_xmm = 2;
    // find_flonum_groups keeps a group within kMaxFlonumGroupValues (xmm2..xmm15); were it not,
    // asmjit would reject the register and the procedure would stay interpreted.
    auto fresh = [&] { return xmm(uint32_t(next_xmm++)); };
    auto load_double = [&](double d) {
      Xmm x = fresh();
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      a_.mov(rax, imm(bits));
      a_.movq(x, rax);
      return x;
    };
    auto read = [&](uint16_t reg) -> Xmm {
      auto it = value.find(reg);
      if (it != value.end()) return it->second;
      Xmm x = fresh();
      Gp v = use(reg, rax);
      check_type(v, Type::Flonum, generic);
      a_.movsd(x, qword_ptr(v, kFlonumValue));
      value[reg] = x;
      return x;
    };
    // A final comparison: a branch, or a boolean stored in boolean_dst.
    bool branch = false;
    int32_t boolean_dst = -1;
    ArithOp compare_op = kOpNumEq;
    Xmm cx, cy;
    for (size_t k = g.first; k <= g.last; k++) {
      const Step& s = lp_.steps[k];
      if (s.op == Op::kConst) {
        value[s.a] = load_double(flonum_value(p_->consts[s.b]));
        constant[s.a] = p_->consts[s.b];
        freevar.erase(s.a);
        continue;
      }
      if (s.op == Op::kFree) {
        Xmm x = fresh();
        Gp c = use(0, rax);
        a_.mov(rax, qword_ptr(c, kClosureFree + int32_t(s.b) * 8));
        check_type(rax, Type::Flonum, generic);
        a_.movsd(x, qword_ptr(rax, kFlonumValue));
        value[s.a] = x;
        freevar[s.a] = s.b;
        constant.erase(s.a);
        continue;
      }
      bool with_immediate = has_immediate(s.op);
      if (s.op >= Op::kBrLt) {
        branch = true;
        compare_op = arith_op(s.op);
        cx = read(s.a);
        cy = with_immediate ? load_double(double(s.imm)) : read(s.b);
        continue;
      }
      if (s.op >= Op::kLt && s.op <= Op::kNumEq) {
        boolean_dst = s.a;
        compare_op = arith_op(s.op);
        cx = read(s.b);
        cy = read(s.c);
        value.erase(s.a);
        constant.erase(s.a);
        freevar.erase(s.a);
        continue;
      }
      Xmm x = read(s.b);
      Xmm y = with_immediate ? load_double(double(s.imm)) : read(s.c);
      Xmm d = fresh();
      a_.movapd(d, x);
      switch (arith_op(s.op)) {
        case kOpAdd: a_.addsd(d, y); break;
        case kOpSub: a_.subsd(d, y); break;
        default: a_.mulsd(d, y); break;
      }
      value[s.a] = d;
      constant.erase(s.a);
      freevar.erase(s.a);
    }
    std::vector<uint16_t> boxed;
    for (uint16_t reg : g.live_out)
      if (value.count(reg) && !constant.count(reg) && !freevar.count(reg)) boxed.push_back(reg);
    // A free variable's register gets the closure's own flonum again (the same object): after
    // the boxes exist (a failed allocation leaves the frame untouched) and before the other
    // registers are stored (R[0] may be one the group writes).
    auto store_free_variables = [&] {
      for (uint16_t reg : g.live_out) {
        auto it = freevar.find(reg);
        if (it == freevar.end()) continue;
        Gp c = use(0, rax);
        st_from(reg, qword_ptr(c, kClosureFree + it->second * 8));
      }
    };
    bool compare = branch || boolean_dst >= 0;
    if (!boxed.empty()) {
      // Spill what the calls would clobber: the values to box, then the comparison's operands.
      int32_t slots = int32_t(boxed.size()) + (compare ? 2 : 0);
      int32_t area = (slots * 8 + 15) & ~15;
      int32_t compare_slot = int32_t(boxed.size()) * 8;
      a_.sub(rsp, area);
      for (size_t k = 0; k < boxed.size(); k++) a_.movsd(qword_ptr(rsp, int32_t(k) * 8), value[boxed[k]]);
      if (compare) {
        a_.movsd(qword_ptr(rsp, compare_slot), cx);
        a_.movsd(qword_ptr(rsp, compare_slot + 8), cy);
      }
      Label exit = exit_label(head.index);  // resets rsp; nothing in the frame has changed yet
      for (size_t k = 0; k < boxed.size(); k++) {
        a_.movsd(xmm0, qword_ptr(rsp, int32_t(k) * 8));
        box_xmm0(exit);
        a_.mov(qword_ptr(rsp, int32_t(k) * 8), rax);  // the stack is scanned: the box stays alive
      }
      store_free_variables();
      for (size_t k = 0; k < boxed.size(); k++) {
        if (pinned(boxed[k])) {
          a_.mov(home(boxed[k]), qword_ptr(rsp, int32_t(k) * 8));
        } else {
          a_.mov(rax, qword_ptr(rsp, int32_t(k) * 8));
          a_.mov(slot(boxed[k]), rax);
        }
      }
      if (compare) {
        a_.movsd(xmm0, qword_ptr(rsp, compare_slot));
        a_.movsd(xmm1, qword_ptr(rsp, compare_slot + 8));
      }
      a_.add(rsp, area);
    } else {
      store_free_variables();
      if (compare) {
        a_.movapd(xmm0, cx);
        a_.movapd(xmm1, cy);
      }
    }
    for (uint16_t reg : g.live_out) {
      auto it = constant.find(reg);
      if (it == constant.end()) continue;
      load_constant(rax, it->second);
      st(reg, rax);
    }
    if (branch) flonum_branch(compare_op, labels_[size_t(tail.target)]);
    if (boolean_dst >= 0) {
      Label is_false = a_.newLabel();
      a_.mov(eax, int32_t(kFalse.bits));
      flonum_branch(compare_op, is_false);
      a_.mov(eax, int32_t(kTrue.bits));
      a_.bind(is_false);
      st(boolean_dst, rax);
    }
    a_.jmp(done);
    a_.bind(generic);
    for (size_t k = g.first; k <= g.last; k++) step(lp_.steps[k]);
    a_.bind(done);
  }

  // ---- calls and returns ----

  // rax = the callee (R[a]); on success leaves rsi = its Proto, rdx = its JitCode. A primitive
  // goes to `primitive`; a closure whose first clause is not of fixed arity `argc` to `clauses`
  // (with rsi = that clause); anything else but a compiled closure goes to the interpreter.
  // With `from_home`, R[a] is read from its machine register when pinned (a tail call, which has
  // not stored it); a call has stored it, and a retry after control_call finds it in the slot.
  void check_compiled_callee(const Step& s, const Label& exit, const Label& primitive, const Label& clauses,
                             bool from_home) {
    if (from_home) ld(rax, s.a);
    else a_.mov(rax, slot(s.a));
    a_.test(al, 7);
    a_.jnz(exit);
    a_.cmp(byte_ptr(rax), uint8_t(Type::Closure));
    a_.jne(primitive);
    a_.mov(rsi, qword_ptr(rax, kClosureProto));
    a_.cmp(dword_ptr(rsi, kProtoNparams), int32_t(s.b));
    a_.jne(clauses);
    a_.cmp(byte_ptr(rsi, kProtoHasRest), 0);
    a_.jne(clauses);
    a_.mov(rdx, qword_ptr(rsi, kProtoJit));
    a_.test(rdx, rdx);
    a_.jz(exit);
  }

  // Out of line, after check_compiled_callee found the first clause (rsi) not of fixed arity
  // argc: rsi = the clause of fixed arity argc the call runs (clause_accepting), rdx = its
  // JitCode, and on at `fixed`, the common path; else the interpreter (no clause accepts argc:
  // it reports the arity error naming the procedure; a rest clause; a clause without machine
  // code yet: it runs it and counts it hot). A rest clause of an unknown callee is left to the
  // interpreter for code size: its own call sequence at every general call site made r7rs
  // deriv's machine code 39 % larger; known callees make rest lists at the call (rest_list).
  void select_clause(const Step& s, const Label& exit, const Label& fixed) {
    a_.mov(rdi, rsi);
    a_.mov(esi, int32_t(s.b));
    call_runtime(reinterpret_cast<const void*>(&rt_compiled_clause), false);
    a_.test(rax, rax);
    a_.jz(exit);
    a_.mov(rsi, rax);
    a_.mov(rdx, qword_ptr(rsi, kProtoJit));
    a_.jmp(fixed);
  }

  // rsi = a new list of R[first..first+count) (a known rest-argument callee's rest list): up to
  // kMaxInlineList pairs popped inline from the last, or, when the free list runs empty on the
  // way or the list is longer, the whole list made by rt_rest_list from the slots (pinned ones
  // stored first; the pinned registers are kept around the routine: a tail call has not stored
  // them), the pairs popped so far garbage; out of memory goes to `exit`. Clobbers rax, rcx,
  // rdx, rdi.
  void rest_list(int first, int count, const Label& exit) {
    if (count == 0) {
      a_.mov(esi, int32_t(kNil.bits));
      return;
    }
    Label done = a_.newLabel();
    auto by_routine = [this, first, count, exit, done] {
      for (int r = first; r < first + count; r++)
        if (pinned(r)) a_.mov(slot(r), home(r));
      a_.lea(rdi, slot(first));
      a_.mov(esi, count);
      call_runtime(reinterpret_cast<const void*>(&rt_rest_list));
      a_.test(rax, rax);
      a_.jz(exit);
      a_.mov(rsi, rax);
      a_.jmp(done);
    };
    if (count > kMaxInlineList) {  // as `list`: longer ones by the routine (code size)
      by_routine();
      a_.bind(done);
      return;
    }
    Label empty = slow_path(by_routine);
    inline_list(first, count, empty);
    a_.mov(rsi, rax);
    a_.bind(done);
  }

  // rax = a new list of R[first..first+count), count >= 1, its pairs popped inline from the
  // last; a free list found empty on the way jumps to `empty`, leaving the pairs popped so far
  // to the collector (they are garbage). Clobbers rcx, rdx. `list` and rest lists share it.
  void inline_list(int first, int count, const Label& empty) {
    a_.mov(edx, int32_t(kNil.bits));
    for (int j = count - 1; j >= 0; j--) {
      pop_free_list(kPairList, 0, empty);
      a_.mov(qword_ptr(rax, int32_t(offsetof(Pair, car))), use(first + j, rcx));
      a_.mov(qword_ptr(rax, int32_t(offsetof(Pair, cdr))), rdx);
      a_.or_(rax, int32_t(Value::kPairTag));
      if (j > 0) a_.mov(rdx, rax);
    }
  }

  // The callee in rax is a continuation, call/cc or %call/ec (out of line, before
  // call_primitive): done without leaving machine code. A continuation is reinstated by the
  // runtime (jit_continue) and the run goes on at its resume point (resume_); call/cc captures
  // (rt_capture), then R[a] = f, R[a+1] = k and the call starts over at `retry` as a call of f
  // with one argument (so f is called exactly as the interpreter would call it, and an exit from
  // there hands the interpreter that very call). Anything else falls through.
  void control_call(const Step& s, const Label& exit, const Label& retry, bool tail) {
    Label not_k = a_.newLabel();
    a_.cmp(byte_ptr(rax), uint8_t(Type::Continuation));
    a_.jne(not_k);
    resume_used_ = true;
    a_.mov(rdi, rbx);
    a_.mov(rsi, rax);
    a_.mov(edx, int32_t(s.b));
    a_.lea(rcx, slot(s.a + 1));
    call_runtime(reinterpret_cast<const void*>(&jit_continue), false);
    a_.test(rax, rax);
    a_.jz(exit);
    a_.jmp(resume_);
    a_.bind(not_k);
    if (s.b != 1) return;
    Label not_cc = a_.newLabel(), capture = a_.newLabel();
    a_.cmp(byte_ptr(rax), uint8_t(Type::Primitive));
    a_.jne(not_cc);
    a_.test(dword_ptr(rax, kPrimFlags), int32_t(kVmSpecial));
    a_.jz(not_cc);
    a_.mov(edx, int32_t(tail ? kCaptureTail : 0));
    a_.cmp(dword_ptr(rax, kPrimVmOp), int32_t(kVmCallCC));
    a_.je(capture);
    a_.cmp(dword_ptr(rax, kPrimVmOp), int32_t(kVmCallEC));
    a_.jne(not_cc);
    a_.or_(edx, int32_t(kCaptureEscape));
    a_.bind(capture);
    sync_vm_state(rcx);
    a_.mov(rdi, rbx);
    a_.mov(rsi, imm(reinterpret_cast<uint64_t>(p_->code + s.index)));
    a_.mov(rcx, r14);
    call_runtime(reinterpret_cast<const void*>(&rt_capture), false);
    a_.test(rax, rax);
    a_.jz(exit);
    a_.mov(rcx, slot(s.a + 1));
    a_.mov(slot(s.a), rcx);
    a_.mov(slot(s.a + 1), rax);
    // A tail call skips copying an argument that R[1] already holds (arg_in_place): for
    // (define (cc f) (call/cc f)), R[a+1] was moved from R[1]. Now R[a+1] is k, not f, so R[1]
    // must be k too, or f is called with itself. A tail call reads the pinned registers from
    // their machine registers again (copy_arguments): they are reloaded (the routine clobbered
    // the caller-saved ones).
    if (tail && arg_in_place(s, 1)) a_.mov(slot(1), rax);
    if (tail) reload(pinned_live_in(position_of(s.index)));
    a_.jmp(retry);
    a_.bind(not_cc);
  }

  // The inline call/cc's capture (vm/proto.hpp, kCallCC): the continuation copies the frame's
  // slots, so the pinned registers live here are stored first; R[a] = the continuation and the
  // body follows. Machine code never runs with the inline paths off (a write to an inlined
  // builtin's cell turns the JIT off, a redirected Proto loses its code), so the slow code after
  // the body is reached only by the interpreter. The resume point is an entry (jit/lower.cpp).
  void inline_capture(const Step& s) {
    flush(pinned_live_in(position_of(s.index)));
    sync_vm_state(rcx);
    a_.mov(rdi, rbx);
    a_.mov(rsi, imm(reinterpret_cast<uint64_t>(p_->code + s.index)));
    a_.mov(rdx, r14);
    call_runtime(reinterpret_cast<const void*>(&jit_capture_inline));
    a_.test(rax, rax);
    a_.jz(exit_label(s.index, false));
    st(s.a, rax);
  }

  // Goes on where jit_continue left the VM (rax = the pc, or 1 after a barrier frame): at that
  // pc's entry in the resumed procedure's machine code, with a fresh machine stack and a new
  // session (no frame now on the VM stack may `ret`: the return addresses are gone), or in the
  // interpreter.
  void emit_resume() {
    Label interpreted = a_.newLabel(), barrier = a_.newLabel();
    a_.bind(resume_);
    a_.cmp(rax, 1);
    a_.je(barrier);
    a_.cmp(byte_ptr(rbx, kVmJitActive), 0);
    a_.je(interpreted);
    a_.mov(rsi, qword_ptr(rbx, kVmCurProto));
    machine_entry_of(rax, interpreted);
    a_.mov(rsp, qword_ptr(rbx, kVmJitEntryRsp));
    a_.mov(r14, qword_ptr(rbx, kVmJitSession));
    a_.add(r14, 1);
    a_.mov(qword_ptr(rbx, kVmJitSession), r14);
    load_frames_pointer(a_);
    a_.mov(rsi, rdx);  // start_calls clobbers rdx
    start_calls(a_);
    a_.mov(rcx, qword_ptr(rbx, kVmStack));
    a_.mov(r8, qword_ptr(rbx, kVmFp));
    a_.lea(r12, ptr(rcx, r8, 3));
    a_.jmp(rsi);
    a_.bind(interpreted);
    a_.jmp(epilogue_);
    a_.bind(barrier);
    a_.xor_(eax, eax);
    a_.jmp(epilogue_);
  }

  // The primitive in rax called directly from machine code with R[a+1..a+argc] (out of line).
  // A VM control operation (apply, call/cc, values...) or a wrong argument count goes to the
  // interpreter; so does a primitive's error (rt_call_primitive leaves it in jit_pending).
  // Leaves the result in rax.
  void call_primitive(const Step& s, const Label& exit) {
    a_.cmp(byte_ptr(rax), uint8_t(Type::Primitive));
    a_.jne(exit);
    a_.test(dword_ptr(rax, kPrimFlags), int32_t(kVmSpecial));
    a_.jnz(exit);
    a_.cmp(dword_ptr(rax, kPrimMinArgs), int32_t(s.b));
    a_.jg(exit);
    Label arity_ok = a_.newLabel();
    a_.mov(ecx, dword_ptr(rax, kPrimMaxArgs));
    a_.test(ecx, ecx);
    a_.js(arity_ok);
    a_.cmp(ecx, int32_t(s.b));
    a_.jl(exit);
    a_.bind(arity_ok);
    sync_vm_state(rcx);
    a_.mov(rcx, imm(reinterpret_cast<uint64_t>(p_->code + s.index)));
    a_.mov(qword_ptr(rbx, kVmErrorPc), rcx);
    a_.mov(rdi, rbx);
    a_.mov(rsi, rax);
    a_.mov(edx, int32_t(s.b));
    a_.lea(rcx, slot(s.a + 1));
    call_runtime(reinterpret_cast<const void*>(&rt_call_primitive), false);
    load_frames_pointer(a_);  // as it was, after any nested run
    a_.test(rax, rax);
    a_.jz(exit);
  }

  // A call stores the pinned registers live before it (the callee, a primitive, the interpreter
  // and a continuation captured meanwhile see the frame) and reloads those live after it: the
  // exits after the store need not store them again.
  void call(const Step& s) {
    size_t k = position_of(s.index);
    Label exit = exit_label(s.index, false);
    Label primitive = a_.newLabel();
    Label after = labels_[size_t(s.index + 1)];
    Label after_exit = exit_label(s.index + 1);
    std::vector<uint16_t> after_live = pinned_live_out(k);
    Label retry = a_.newLabel();
    slow_paths_.push_back(SlowPath{primitive, [this, s, exit, after, after_exit, after_live, retry] {
      control_call(s, exit, retry, false);
      call_primitive(s, exit);
      reload(after_live, s.a);
      st(s.a, rax);
      // The primitive may have turned the JIT off or redefined an inlined builtin.
      a_.cmp(byte_ptr(rbx, kVmJitActive), 0);
      a_.je(after_exit);
      a_.jmp(after);
    }});
    // A primitive done inline needs no poll: it cannot run long; the call falls back to the poll.
    if (Value prim = known_primitive(s); prim.bits != 0) inline_primitive(s, prim, false);
    Known callee = known_closure(s);
    Label general = a_.newLabel();
    bool checked = load_known_callee(s, callee, general);
    poll(s.index);
    flush(pinned_live_in(k));
    // A known callee's call is in line and falls through to the next instruction; the general
    // call is then out of line (its guard fails only when the guess was wrong).
    if (callee.proto) {
      known_call(s, callee, general, checked);
      slow_paths_.push_back(SlowPath{general, [this, s, exit, primitive, retry] {
        general_call(s, exit, primitive, retry, false);
      }});
      return;
    }
    general_call(s, exit, primitive, retry, true);
  }

  // A call of whatever R[a] holds: checked for a compiled closure (else the primitive path or
  // the interpreter), then the frame and the machine call. A first clause not of fixed arity
  // argc sends it out of line to choose another (select_clause), which rejoins here.
  void general_call(const Step& s, const Label& exit, const Label& primitive, const Label& retry, bool falls_through) {
    Label fixed = a_.newLabel();
    Label clauses = slow_path([this, s, exit, fixed] { select_clause(s, exit, fixed); });
    a_.bind(retry);
    check_compiled_callee(s, exit, primitive, clauses, false);
    a_.bind(fixed);
    // Room for the callee's frame and one more VM frame (the interpreter's limits).
    a_.movsxd(rcx, dword_ptr(rsi, kProtoNregs));
    caller_fp(rdi);
    a_.lea(r9, ptr(rdi, rcx, 0, int32_t(s.a) + 1));  // the callee's top + 1
    enter_callee(s, exit, [this] { a_.jmp(qword_ptr(rdx, kJitEntry0)); }, [this] { a_.call(qword_ptr(rdx, kJitEntry0)); },
                 falls_through);
  }

  // A callee known_call can guard: the closure itself (from a global or a constant), or only
  // its Proto (from a free slot the compiler says holds a letrec-bound lambda, Proto::free_protos).
  // `proto` is the clause the call runs (clause_accepting), `first` the closure's own Proto.
  struct Known {
    Value closure{0};
    Proto* first = nullptr;
    Proto* proto = nullptr;
  };

  // A call whose callee was loaded, in this basic block, from a global (or constant) that held a
  // compiled closure of matching fixed arity when this code was made: while R[a] is still that
  // very closure and its code is still the code it had (a redefinition in a mutable environment
  // drops machine code, engine/redefinition.cpp), the call skips the callee checks, knows the
  // callee's frame size, and a self call is a direct `call` to this code's start. Falls through
  // to the general call when the guard fails.
  void known_call(const Step& s, Known callee, const Label& general, bool checked) {
    Proto* q = callee.proto;
    bool self = q == p_;
    Label exit = exit_label(s.index, false);
    std::function<void()> store_rest;
    if (q->has_rest) {
      int first = s.a + 1 + q->nparams;
      rest_list(first, s.b - q->nparams, exit);
      store_rest = [this, first] { a_.mov(slot(first), rsi); };
    }
    known_guard(s, callee, general, checked);
    caller_fp(rdi);
    a_.lea(r9, ptr(rdi, int32_t(s.a) + q->nregs + 1));  // the callee's top + 1
    if (self) enter_callee(s, exit, [this] { a_.jmp(entry0_); }, [this] { a_.call(entry0_); }, true, store_rest);
    else enter_callee(s, exit, [this] { a_.jmp(qword_ptr(rdx, kJitEntry0)); }, [this] { a_.call(qword_ptr(rdx, kJitEntry0)); }, true, store_rest);
  }

  // Jumps to `general` unless R[a] is still `callee` (for a callee known only by its Proto, a
  // closure of that Proto) and its Proto's machine code is still this code (a self call) or some
  // code (another procedure); leaves rdx = that Proto's JitCode. With `checked`, R[a] was
  // compared with the closure when it was loaded (load_known_callee) and has not changed since.
  void known_guard(const Step& s, Known callee, const Label& general, bool checked) {
    Proto* q = callee.proto;
    if (checked) {
      if (q != p_) a_.mov(rcx, imm(reinterpret_cast<uint64_t>(q)));
    } else if (callee.closure.bits != 0) {
      ld(rax, s.a);
      load_constant(rcx, callee.closure);
      a_.cmp(rax, rcx);
      a_.jne(general);
      if (q != p_) a_.mov(rcx, imm(reinterpret_cast<uint64_t>(q)));
    } else {
      ld(rax, s.a);
      check_closure_of(rax, callee.first, general);
      if (q != callee.first && q != p_) a_.mov(rcx, imm(reinterpret_cast<uint64_t>(q)));
    }
    if (q == p_) {
      check_self_code(general);
    } else {
      a_.mov(rdx, qword_ptr(rcx, kProtoJit));
      a_.test(rdx, rdx);
      a_.jz(general);
    }
  }

  // A tail call of a known callee (known_call's guard): a self tail call reuses this frame as it
  // is (same size: no stack check), moves the arguments into the parameters' homes (machine
  // registers or slots) and jumps to the start of the body, past the loads of the entry; another
  // procedure's checks only its known frame size (after the call has stored the pinned registers).
  void known_tail_call(const Step& s, Known callee, const Label& general, bool checked) {
    Proto* q = callee.proto;
    if (q->has_rest) rest_list(s.a + 1 + q->nparams, s.b - q->nparams, exit_label(s.index, true));
    known_guard(s, callee, general, checked);
    if (q == p_) {
      self_tail_jump(s);
    } else {
      // A frame no larger than this one needs no new stack (tail_call).
      if (q->nregs > p_->nregs) {
        a_.lea(rdi, ptr(r12, (q->nregs + 1) * 8));
        check_tail_room(s.index);
      }
      copy_arguments(s);
      if (q->has_rest) a_.mov(slot(1 + q->nparams), rsi);
      a_.jmp(qword_ptr(rdx, kJitEntry0));
    }
    a_.bind(general);
  }

  // True when the tail call s's argument R[a+j] was moved from R[j] in this basic block and R[j]
  // was not written since: R[j] already holds it (ev's names, vals, prog; lookup's arguments).
  bool arg_in_place(const Step& s, int j) {
    int r = s.a + j;
    for (size_t i = position_of(s.index); i-- > 0;) {
      if (lp_.label[size_t(lp_.steps[i + 1].index)]) return false;
      const Step& before = lp_.steps[i];
      if (before.op == Op::kCall || before.op == Op::kTailCall) return false;
      RegisterUse u = register_use(p_, before);
      if (u.reads_all || u.write == j) return false;
      if (u.write == r) return before.op == Op::kMove && before.b == j;
    }
    return false;
  }

  // R[0..b] = R[a..a+b] and a jump to the body's start. A forward copy is right for the VM
  // registers (a >= 1, so no source is overwritten before it is read), so it is for their homes.
  // R[0], the closure, is not copied when the body does not read it.
  void self_tail_jump(const Step& s) {
    for (int k = 0; k <= s.b; k++)
      if (k > 0 ? !arg_in_place(s, k) : !lp_.live.valid() || lp_.live.live_in(0, 0)) move(k, s.a + k);
    a_.jmp(labels_[0]);
  }

  // A tail call that probably calls this very procedure (self_tail_hint): while R[a] is a closure
  // of this Proto whose machine code is still this code, the self tail jump; else falls through.
  void hinted_self_tail_call(const Step& s) {
    Label general = a_.newLabel();
    // R[a] moved from R[0] in this basic block, which always holds this procedure's closure:
    // only the code needs checking.
    int64_t w = previous_writer(p_, lp_.steps, lp_.label, position_of(s.index), false);
    if (w >= 0 && lp_.steps[size_t(w)].op == Op::kMove && lp_.steps[size_t(w)].b == 0 &&
        closure_register_fixed(p_, lp_.steps)) {
      check_self_code(general);
      self_tail_jump(s);
      a_.bind(general);
      return;
    }
    check_closure_of(use(s.a, rax), p_, general);
    check_self_code(general);
    self_tail_jump(s);
    a_.bind(general);
  }

  // Jumps to `general` unless this code is still its Proto's (JitCode::superseded, set where
  // p->jit is dropped or replaced); leaves rdx = this JitCode.
  void check_self_code(const Label& general) {
    a_.mov(rdx, imm(reinterpret_cast<uint64_t>(self_)));
    a_.cmp(byte_ptr(rdx, kJitSuperseded), 0);
    a_.jne(general);
  }

  // The closure R[a] was loaded with just before this call when it is a known callee for
  // known_call (a compiled procedure or one that may be compiled, or this very code), else none.
  // The clause is chosen by the call's argument count (a case-lambda's); a rest clause gets its
  // list made at the call (known_call, known_tail_call; not a self tail call: tail_call).
  Known known_closure(const Step& s) {
    Known k;
    if (Proto* fp = free_slot_proto(s)) {
      k.first = fp;
    } else {
      Value v = loaded_value(s, true);
      if (v.bits == 0 || !is_closure(v)) return Known{};
      k.closure = v;
      k.first = v.as<Closure>()->proto;
    }
    Proto* q = k.proto = clause_accepting(k.first, s.b);
    if (!q) return Known{};
    // Another procedure's code need not exist yet (it is often compiled after its caller: ev
    // before lookup); the guard looks at its Proto's code on every call (known_guard).
    if (q != p_ && q->jit_state == kJitFailed) return Known{};
    if (q == p_ && !self_) return Known{};
    return k;
  }

  // The Proto of the letrec-bound lambda R[a] was loaded with (kFree) before the call at s, when
  // the compiler recorded one for that free slot; else null. A guess past labels (guarded).
  Proto* free_slot_proto(const Step& s) {
    if (!p_->free_protos) return nullptr;
    auto it = position_.find(s.index);
    if (it == position_.end()) return nullptr;
    for (size_t k = it->second; k-- > 0;) {
      const Step& before = lp_.steps[k];
      if ((before.op == Op::kCall || before.op == Op::kTailCall) && before.a < s.a) return nullptr;
      if (register_use(p_, before).write == s.a) {
        if (before.op != Op::kFree || before.b >= p_->ncaptures) return nullptr;
        return p_->free_protos[before.b];
      }
    }
    return nullptr;
  }

  // With rdi = this frame's fp and r9 = the callee's top + 1: pushes the return frame and
  // enters the callee (push_call_frame), by a machine `call` (machine_call) while the run's
  // machine stack is small, else by `jump`, out of line, with session 0 in the frame (its
  // return goes through the entries table). Unless `falls_through`, ends with a jump to the
  // next instruction.
  // `before_record`, when given, runs once the limits are checked (nothing hands the call back
  // after it): it stores a rest list (r10) in the callee's frame.
  void enter_callee(const Step& s, const Label& exit, const std::function<void()>& jump,
                    const std::function<void()>& call_insn, bool falls_through,
                    const std::function<void()>& before_record = nullptr) {
    Label deep = slow_path([this, s, jump] {
      a_.mov(qword_ptr(r13, kFrameSession - kFrameSize), 0);
      a_.lea(r12, ptr(r12, int32_t(s.a) * 8));
      jump();
    });
    push_call_frame(s, exit, deep, before_record);
    machine_call(s, call_insn, falls_through);
  }

  // With rdi = this frame's fp and r9 = the callee's top + 1: checks the VM's frame and stack
  // limits (to the interpreter, which raises the Scheme error) and pushes the return frame
  // Frame{pc + 1, fp, -, -, this Proto} (top and dst are implied: Frame::resume_top,
  // result_slot) at r13, which then points past it. The VM's
  // fp, top and cur_proto are not written: the callee's code implies its own (sync_vm_state).
  // One compare covers the frames' soft limit and the machine stack (frames_soft_end is the
  // lower of the two, VmImpl::set_frames_soft_end, kCallsFramesBytes); out of line, the frames'
  // own limit goes to the interpreter, a machine stack past jit_stack_floor pushes the frame
  // and goes to `deep`, and anything else (the bound is conservative: frames pushed by `deep`
  // jumps use no machine stack) comes back.
  void push_call_frame(const Step& s, const Label& exit, const Label& deep, const std::function<void()>& before_record) {
    Label back = a_.newLabel();
    Label past = slow_path([this, s, exit, deep, back, before_record] {
      a_.imul(r11, qword_ptr(rbx, kVmFramesSoftLimit), kFrameSize);
      a_.add(r11, qword_ptr(rbx, kVmFrames));
      a_.cmp(r13, r11);
      a_.jae(exit);
      a_.cmp(rsp, qword_ptr(rbx, kVmJitStackFloor));
      a_.jae(back);
      check_stack_room(exit);
      if (before_record) before_record();
      write_frame_record(s);
      a_.jmp(deep);
    });
    a_.cmp(r13, qword_ptr(rbx, kVmFramesSoftEnd));
    a_.jae(past);
    a_.bind(back);
    check_stack_room(exit);
    if (before_record) before_record();
    write_frame_record(s);
  }

  void write_frame_record(const Step& s) {
    a_.mov(r11, imm(reinterpret_cast<uint64_t>(p_->code + s.index + 1)));
    a_.mov(qword_ptr(r13, kFramePc), r11);
    a_.mov(qword_ptr(r13, kFrameFp), rdi);
    a_.mov(r11, imm(reinterpret_cast<uint64_t>(p_)));
    a_.mov(qword_ptr(r13, kFrameProto), r11);
    a_.add(r13, kFrameSize);
  }

  // Enters the callee with the frame below r13 pushed, by a machine `call`: the frame records
  // this run's session, so the callee's return may `ret`. r12 is pushed around the `call` (16
  // bytes a call keep rsp 16-byte aligned in the callee): a callee returns with its own r12
  // (R + a), the pop makes it this frame's again. The result is in rax.
  void machine_call(const Step& s, const std::function<void()>& call_insn, bool falls_through) {
    std::vector<uint16_t> after_live = pinned_live_out(position_of(s.index));
    a_.mov(qword_ptr(r13, kFrameSession - kFrameSize), r14);
    a_.push(r12);
    a_.lea(r12, ptr(r12, int32_t(s.a) * 8));
    call_insn();
    a_.pop(r12);
    reload(after_live, s.a);
    st(s.a, rax);
    if (!falls_through) a_.jmp(labels_[size_t(s.index + 1)]);
  }

  // The value R[a] was loaded with just before the call at s, within its basic block: the
  // constant, or the value the global's cell holds now; 0 if not known. With `across_labels`
  // the search goes on past labels (a return point after a call, a branch target): a guess,
  // for code that checks the value it assumes (known_call).
  Value loaded_value(const Step& s, bool across_labels = false) {
    auto it = position_.find(s.index);
    if (it == position_.end()) return Value{0};
    // The step that last wrote R[a], within the basic block (argument set-up comes between).
    const Step* prev = nullptr;
    for (size_t k = it->second; k-- > 0;) {
      if (!across_labels && lp_.label[size_t(lp_.steps[k + 1].index)]) break;
      const Step& before = lp_.steps[k];
      if ((before.op == Op::kCall || before.op == Op::kTailCall) && before.a < s.a) break;  // clobbers R[a]
      if (register_use(p_, before).write == s.a) {
        prev = &before;
        break;
      }
    }
    if (!prev || (prev->op != Op::kGlobalRef && prev->op != Op::kConst)) return Value{0};
    Value v = p_->consts[prev->b];  // the optimizer's constant, or the global's cell
    if (prev->op == Op::kGlobalRef) {
      if (!has_type(v, Type::GlobalCell)) return Value{0};
      v = v.as<GlobalCell>()->value;
    }
    return v;
  }

  // The builtin primitive R[a] was loaded with just before this call (a constant, or the value
  // its global cell holds now), when its PrimFacts carry a JIT recipe for this call's number of
  // arguments; else 0. Only primitives installed from a table row have facts (primitives made at
  // run time, such as record accessors and C++ lambdas, have none).
  Value known_primitive(const Step& s) {
    if (s.b < 1 || s.b > kMaxInlineList) return Value{0};
    Value v = loaded_value(s);
    if (v.bits == 0 || !is_primitive(v)) return Value{0};
    const Primitive* pr = v.as<Primitive>();
    if (!(pr->flags & kPure) || pr->facts.jit == JitRecipe::kNone) return Value{0};
    return recipe_takes(pr->facts.jit, s.b) ? v : Value{0};
  }

  // Whether the recipe does a call with argc arguments (other counts: the call).
  static bool recipe_takes(JitRecipe r, int argc) {
    switch (r) {
      case JitRecipe::kCharCompare: case JitRecipe::kEqv: case JitRecipe::kMemq: case JitRecipe::kMemv:
      case JitRecipe::kQuotient: case JitRecipe::kRemainder: case JitRecipe::kModulo: case JitRecipe::kDivide:
        return argc == 2;
      case JitRecipe::kList:
        return argc >= 1 && argc <= kMaxInlineList;
      default:
        return argc == 1;
    }
  }
  // A recipe whose result is a value, not a truth: never fused with the branch testing it.
  static bool recipe_gives_value(JitRecipe r) {
    switch (r) {
      case JitRecipe::kCxr: case JitRecipe::kQuotient: case JitRecipe::kRemainder: case JitRecipe::kModulo:
      case JitRecipe::kDivide: case JitRecipe::kNegate: case JitRecipe::kList: case JitRecipe::kSquare:
      case JitRecipe::kSqrt:
        return true;
      default:
        return false;
    }
  }
  // On the characters' bits (code point << 3 | 2), unsigned.
  static CondCode char_condition(Compare c) {
    switch (c) {
      case Compare::kLt: return CondCode::kB;
      case Compare::kGt: return CondCode::kA;
      case Compare::kLe: return CondCode::kBE;
      case Compare::kGe: return CondCode::kAE;
      default: return CondCode::kE;
    }
  }

  // The kGlobalRef at position k loads the callee of a call (soon after, in the same basic
  // block, only moves and constants between) that inline_primitive will do: the call compares
  // the global's value with the primitive itself, and only its fallback stores R[a] (after the
  // unbound check, which hands the kGlobalRef to the interpreter). The steps between cannot exit
  // and, rerun, give what they gave (none reads what one of them wrote, nor R[a]), so that
  // exit's re-execution from the kGlobalRef is exact. Saves the unbound check, the store and the
  // reload of R[a] on the inline path (cadr, number?, char=? ... through their globals).
  bool defer_global_ref(size_t k) {
    const Step& g = lp_.steps[k];
    std::vector<uint16_t> read, written;
    auto has = [](const std::vector<uint16_t>& v, uint16_t r) { return std::find(v.begin(), v.end(), r) != v.end(); };
    for (size_t j = k + 1; j < lp_.steps.size(); j++) {
      const Step& t = lp_.steps[size_t(j)];
      if (lp_.label[size_t(t.index)]) return false;
      if (t.op == Op::kCall || t.op == Op::kTailCall) {
        if (t.a != g.a || (known_primitive(t).bits == 0 && known_closure(t).closure.bits == 0)) return false;
        deferred_ref_[t.index] = k;
        return true;
      }
      if (t.op != Op::kMove && t.op != Op::kConst) return false;
      if (t.op == Op::kMove) {
        if (t.b == g.a || has(written, t.b)) return false;
        read.push_back(t.b);
      }
      if (t.a == g.a || has(read, t.a)) return false;
      written.push_back(t.a);
    }
    return false;
  }

  // The primitive's work done inline when R[a] still holds it: the result goes to R[a] and
  // execution continues after the call; an argument it cannot take (car of a non-pair) falls
  // back to the call, which reports the error as always.
  void inline_primitive(const Step& s, Value prim, bool tail) {
    const PrimFacts& r = prim.as<Primitive>()->facts;
    Label general = a_.newLabel();
    auto deferred = deferred_ref_.find(s.index);
    Value cell = deferred == deferred_ref_.end() ? Value{0} : p_->consts[lp_.steps[deferred->second].b];
    if (cell.bits) {
      load_constant(rcx, cell);
      a_.mov(rax, qword_ptr(rcx, kCellValue));
    } else {
      ld(rax, s.a);
    }
    load_constant(rcx, prim);
    a_.cmp(rax, rcx);
    a_.jne(general);
    if (r.jit != JitRecipe::kList) ld(rax, s.a + 1);
    // A predicate tested by the next step (jump-if-false on R[a], dead after it) branches there
    // itself: no boolean is made, stored and compared.
    Label yes, no, store = a_.newLabel();
    size_t k = position_of(s.index);
    bool fused = !tail && !recipe_gives_value(r.jit) && k + 1 < lp_.steps.size() &&
                 lp_.steps[k + 1].op == Op::kJumpIfFalse && lp_.steps[k + 1].a == s.a && lp_.live.valid() &&
                 !holds_argument(p_, s.a) && !lp_.live.live_out(k + 1, s.a);
    if (fused) {
      no = labels_[size_t(lp_.steps[k + 1].target)];
      auto it = after_step_.find(lp_.steps[k + 1].index);
      if (it == after_step_.end()) it = after_step_.emplace(lp_.steps[k + 1].index, a_.newLabel()).first;
      yes = it->second;
    } else {
      yes = a_.newLabel();
      no = a_.newLabel();
    }
    switch (r.jit) {
      case JitRecipe::kCxr:
        for (int k = 0; k < r.cxr_len; k++) {
          check_type(rax, Type::Pair, general);
          a_.mov(rax, qword_ptr(rax, (r.cxr_bits >> k) & 1 ? kPairCdr : kPairCar));
        }
        a_.jmp(store);
        break;
      case JitRecipe::kHeapType:
        check_type(rax, r.heap_type, no);
        a_.jmp(yes);
        break;
      case JitRecipe::kChar:
        check_char(rax, no);
        a_.jmp(yes);
        break;
      case JitRecipe::kProcedure: {
        // core/procedure.cpp's is_procedure: a closure (the common case, first), else one of the
        // consecutive types Primitive .. Parameter but Proto.
        static_assert(int(Type::Closure) == int(Type::Primitive) + 1 && int(Type::Proto) == int(Type::Primitive) + 2 &&
                          int(Type::Continuation) == int(Type::Primitive) + 3 && int(Type::Parameter) == int(Type::Primitive) + 4,
                      "procedure types");
        a_.test(al, 7);
        a_.jnz(no);
        a_.movzx(ecx, byte_ptr(rax));
        a_.cmp(ecx, int32_t(Type::Closure));
        a_.je(yes);
        a_.sub(ecx, int32_t(Type::Primitive));
        a_.cmp(ecx, int32_t(Type::Parameter) - int32_t(Type::Primitive));
        a_.ja(no);
        a_.cmp(ecx, int32_t(Type::Proto) - int32_t(Type::Primitive));
        a_.je(no);
        a_.jmp(yes);
        break;
      }
      case JitRecipe::kBoolean:
        a_.cmp(rax, int32_t(kTrue.bits));
        a_.je(yes);
        a_.cmp(rax, int32_t(kFalse.bits));
        a_.jne(no);
        a_.jmp(yes);
        break;
      case JitRecipe::kNumber:
        a_.test(al, 1);
        a_.jnz(yes);
        a_.test(al, 7);
        a_.jnz(no);
        compare_number_type(rax, ecx);
        a_.ja(no);
        a_.jmp(yes);
        break;
      case JitRecipe::kEof:
        a_.cmp(rax, int32_t(kEof.bits));
        a_.jne(no);
        a_.jmp(yes);
        break;
      case JitRecipe::kCharCompare:
        ld(rcx, s.a + 2);
        check_char(rax, general);
        check_char(rcx, general);
        a_.cmp(rax, rcx);
        a_.j(negate(char_condition(r.compare)), no);
        a_.jmp(yes);
        break;
      case JitRecipe::kExactInteger:
        a_.test(al, 1);
        a_.jnz(yes);
        check_type(rax, Type::Bignum, no);
        a_.jmp(yes);
        break;
      case JitRecipe::kEqv:
        // core/equality.cpp's eqv: the same object, or two heap numbers compared by value.
        ld(rcx, s.a + 2);
        a_.cmp(rax, rcx);
        a_.je(yes);
        a_.mov(edx, eax);
        a_.or_(edx, ecx);
        a_.test(dl, 7);
        a_.jnz(no);
        compare_number_type(rax, edx);
        a_.jbe(general);
        a_.jmp(no);
        break;
      case JitRecipe::kQuotient: case JitRecipe::kRemainder: case JitRecipe::kModulo: {
        // Two fixnums and a divisor other than 0 (the call raises the error) and -1 (the
        // quotient of the least fixnum is not one); idiv truncates, modulo then moves a nonzero
        // remainder whose sign differs from the divisor's by the divisor. Anything else: the call.
        fixnum_divide(s, general, general);
        if (r.jit == JitRecipe::kQuotient) {
          a_.lea(rax, ptr(rax, rax, 0, 1));
        } else {
          if (r.jit == JitRecipe::kModulo) {
            Label done = a_.newLabel();
            a_.test(rdx, rdx);
            a_.jz(done);
            a_.mov(rax, rdx);
            a_.xor_(rax, rsi);
            a_.jns(done);
            a_.add(rdx, rsi);
            a_.bind(done);
          }
          a_.lea(rax, ptr(rdx, rdx, 0, 1));
        }
        a_.jmp(store);
        break;
      }
      case JitRecipe::kMemq: case JitRecipe::kMemv: {
        // A bounded walk: the call's cycle check and its error for an improper list stay the
        // call's (a list longer than kInlineSearch, or anything but a pair or () on the way).
        constexpr int kInlineSearch = 32;
        Label loop = a_.newLabel(), found = a_.newLabel();
        if (r.jit == JitRecipe::kMemv) {
          Label eq_search = a_.newLabel();
          a_.test(al, 7);
          a_.jnz(eq_search);
          compare_number_type(rax, edx);
          a_.jbe(general);
          a_.bind(eq_search);
        }
        ld(rcx, s.a + 2);
        a_.mov(edx, kInlineSearch);
        a_.bind(loop);
        a_.cmp(rcx, int32_t(kNil.bits));
        a_.je(no);
        check_type(rcx, Type::Pair, general);
        a_.cmp(rax, qword_ptr(rcx, kPairCar));
        a_.je(found);
        a_.mov(rcx, qword_ptr(rcx, kPairCdr));
        a_.sub(edx, 1);
        a_.jnz(loop);
        a_.jmp(general);
        a_.bind(found);
        if (fused) {
          a_.jmp(yes);
        } else {
          a_.mov(rax, rcx);  // the tail starting at the item, not #t
          a_.jmp(store);
        }
        break;
      }
      case JitRecipe::kDivide:
        divide(s, general, store);
        break;
      case JitRecipe::kNegate:
        negate(general, store);
        break;
      case JitRecipe::kSquare:
        square(general, store);
        break;
      case JitRecipe::kSqrt:
        // num_sqrt of a flonum: std::sqrt unless it is below 0 (a complex result); NaN compares
        // unordered, which `jb` takes too: the call.
        check_type(rax, Type::Flonum, general);
        a_.movsd(xmm0, qword_ptr(rax, kFlonumValue));
        a_.xorpd(xmm1, xmm1);
        a_.ucomisd(xmm0, xmm1);
        a_.jb(general);
        a_.sqrtsd(xmm0, xmm0);
        box_or(general, store);
        break;
      case JitRecipe::kList:
        // An empty free list on the way makes the call.
        inline_list(s.a + 1, s.b, general);
        a_.jmp(store);
        break;
      case JitRecipe::kNone:
        break;
    }
    if (fused) {
      a_.bind(general);
      if (cell.bits) deferred_global_ref(lp_.steps[deferred->second]);
      return;
    }
    a_.bind(no);
    a_.mov(eax, int32_t(kFalse.bits));
    a_.jmp(store);
    a_.bind(yes);
    a_.mov(eax, int32_t(kTrue.bits));
    a_.bind(store);
    if (tail) {
      emit_return();
    } else {
      st(s.a, rax);
      a_.jmp(labels_[size_t(s.index + 1)]);
    }
    a_.bind(general);
    if (cell.bits) deferred_global_ref(lp_.steps[deferred->second]);
  }

  // x in rax, y = R[a+2] in rcx: when both are fixnums and y is not 0 or -1 (0 raises; the
  // least fixnum's quotient by -1 is no fixnum: `odd_divisor`), rax = the truncated quotient
  // and rdx = the remainder, untagged, rsi = y untagged; not both fixnums: `not_fixnums`.
  void fixnum_divide(const Step& s, const Label& not_fixnums, const Label& odd_divisor) {
    ld(rcx, s.a + 2);
    a_.mov(edx, eax);
    a_.and_(edx, ecx);
    a_.test(dl, 1);
    a_.jz(not_fixnums);
    a_.mov(rsi, rcx);
    a_.sar(rsi, 1);
    a_.lea(rdx, ptr(rsi, 1));
    a_.cmp(rdx, 1);
    a_.jbe(odd_divisor);  // divisor + 1 in {0, 1}
    a_.sar(rax, 1);
    a_.cqo();
    a_.idiv(rdx, rax, rsi);
  }

  // d = the fixnum or flonum in v as a double (to_double in core/numbers.cpp); anything else
  // jumps to `otherwise`. Clobbers v.
  void real_to_double(const Gp& v, const x86::Xmm& d, const Label& otherwise) {
    Label flonum = a_.newLabel(), done = a_.newLabel();
    a_.test(v.r8(), 1);
    a_.jz(flonum);
    a_.sar(v, 1);
    a_.cvtsi2sd(d, v);
    a_.jmp(done);
    a_.bind(flonum);
    check_type(v, Type::Flonum, otherwise);
    a_.movsd(d, qword_ptr(v, kFlonumValue));
    a_.bind(done);
  }

  // (/ x y), x in rax: core/numbers.cpp's divide where it needs no ratio and raises nothing.
  // A flonum and a flonum or fixnum divide as doubles (the fixnum converted as static_cast
  // does, rounding to nearest; an exact 0 divisor of a flonum gives an infinity or NaN there
  // too); two fixnums give their quotient when the remainder is 0, the divisor not 0 (raises)
  // nor -1 (the least fixnum's quotient is no fixnum). Anything else: `general`, the call.
  void divide(const Step& s, const Label& general, const Label& store) {
    Label inexact = a_.newLabel();
    fixnum_divide(s, inexact, general);
    a_.test(rdx, rdx);
    a_.jnz(general);  // a ratio
    a_.lea(rax, ptr(rax, rax, 0, 1));
    a_.jmp(store);
    a_.bind(inexact);  // not both fixnums: each is a fixnum or a flonum, else the call
    real_to_double(rax, xmm0, general);
    real_to_double(rcx, xmm1, general);
    a_.divsd(xmm0, xmm1);
    box_or(general, store);
  }

  // rax = a new flonum holding xmm0, then to `store`; an empty free list: `general` (the call).
  void box_or(const Label& general, const Label& store) {
    pop_free_list(kFlonumList, make_header(Type::Flonum), general);
    a_.movsd(qword_ptr(rax, kFlonumValue), xmm0);
    a_.jmp(store);
  }

  // (square x), x in rax: num_mul(x, x) of a fixnum (overflow: the call makes a bignum) or a
  // flonum. Anything else: the call (which reports a non-number).
  void square(const Label& general, const Label& store) {
    Label flonum = a_.newLabel();
    a_.test(al, 1);
    a_.jz(flonum);
    a_.lea(rcx, ptr(rax, -1));  // 2x
    a_.sar(rax, 1);
    a_.imul(rax, rcx);  // 2x^2
    a_.jo(general);
    a_.or_(rax, 1);
    a_.jmp(store);
    a_.bind(flonum);
    check_type(rax, Type::Flonum, general);
    a_.movsd(xmm0, qword_ptr(rax, kFlonumValue));
    a_.mulsd(xmm0, xmm0);
    box_or(general, store);
  }

  // (- x), x in rax: num_negate of a fixnum (2 - x on the tagged bits; the least fixnum
  // overflows and takes the call, which makes a bignum) or of a flonum (its sign bit flipped,
  // as C++'s unary minus does: -0.0 for 0.0, NaN's sign too). Anything else: the call.
  void negate(const Label& general, const Label& store) {
    Label flonum = a_.newLabel();
    a_.test(al, 1);
    a_.jz(flonum);
    a_.mov(ecx, 2);
    a_.sub(rcx, rax);
    a_.jo(general);
    a_.mov(rax, rcx);
    a_.jmp(store);
    a_.bind(flonum);
    check_type(rax, Type::Flonum, general);
    a_.mov(rdx, qword_ptr(rax, kFlonumValue));
    a_.btc(rdx, 63);
    pop_free_list(kFlonumList, make_header(Type::Flonum), general);
    a_.mov(qword_ptr(rax, kFlonumValue), rdx);
    a_.jmp(store);
  }

  // The kGlobalRef g that defer_global_ref left to the call's fallback, as step() does it (its
  // exit reruns it and the moves after it).
  void deferred_global_ref(const Step& g) {
    load_constant(rcx, p_->consts[g.b]);
    a_.mov(rax, qword_ptr(rcx, kCellValue));
    a_.cmp(rax, int32_t(kUnbound.bits));
    a_.je(exit_label(g.index));
    st(g.a, rax);
  }

  // The kGlobalRef that defer_global_ref left to a call of a known closure, done at the call:
  // the value is compared with the closure at once (which is not the unbound marker, so the
  // unbound check goes) and stored in R[a] before the poll (whose exit hands the call to the
  // interpreter); the guard then need not reload and compare it again. Any other value takes
  // the kGlobalRef's own code out of line (its unbound check exits at the kGlobalRef), then the
  // poll, the call's store of the pinned registers (not a tail call's: `store_pinned`) and the
  // general call at `general`. Returns whether the load was done here (else R[a] was loaded by
  // its own step).
  bool load_known_callee(const Step& s, Known callee, const Label& general, bool store_pinned = true) {
    auto deferred = deferred_ref_.find(s.index);
    if (deferred == deferred_ref_.end() || callee.closure.bits == 0) return false;
    const Step g = lp_.steps[deferred->second];
    Label other = slow_path([this, s, g, general, store_pinned] {
      deferred_global_ref(g);
      poll(s.index);
      if (store_pinned) flush(pinned_live_in(position_of(s.index)));
      a_.jmp(general);
    });
    load_constant(rcx, p_->consts[g.b]);
    a_.mov(rax, qword_ptr(rcx, kCellValue));
    load_constant(rcx, callee.closure);
    a_.cmp(rax, rcx);
    a_.jne(other);
    st(s.a, rax);
    return true;
  }

  // A tail call does not store the pinned registers on its way to the callee: this frame is
  // replaced, and the callee's arguments are copied from their machine registers (copy_arguments).
  // Every hand-over stores them first (`exit` flushes); the out-of-line paths that run a routine
  // (a primitive, the clause choice) store them on entry and hand over without storing again
  // (`exit_stored`), and reload them before they rejoin the in-line code.
  void tail_call(const Step& s) {
    size_t k = position_of(s.index);
    Label exit = exit_label(s.index, true);
    Label exit_stored = exit_label(s.index, false);
    Label primitive = a_.newLabel();
    Label retry = a_.newLabel();
    slow_paths_.push_back(SlowPath{primitive, [this, s, k, exit_stored, retry] {
      flush(pinned_live_in(k));
      control_call(s, exit_stored, retry, true);
      call_primitive(s, exit_stored);
      emit_return();
    }});
    if (Value prim = known_primitive(s); prim.bits != 0) inline_primitive(s, prim, true);
    Known callee = known_closure(s);
    Label general = a_.newLabel();
    bool checked = load_known_callee(s, callee, general, false);
    poll(s.index);
    bool known_self = callee.proto == p_;
    if (known_self && p_->has_rest) a_.bind(general);  // the self tail jump makes no rest list
    else if (known_self) known_tail_call(s, callee, general, checked);
    else if (self_ && self_tail_hint(p_, lp_.steps, lp_.label, k)) hinted_self_tail_call(s);
    if (callee.proto && !known_self) known_tail_call(s, callee, general, checked);
    Label fixed = a_.newLabel();
    Label fixed_reload = slow_path([this, k, fixed] {
      reload(pinned_live_in(k));
      a_.jmp(fixed);
    });
    Label clauses = slow_path([this, s, k, exit_stored, fixed_reload] {
      flush(pinned_live_in(k));
      select_clause(s, exit_stored, fixed_reload);
    });
    a_.bind(retry);
    check_compiled_callee(s, exit, primitive, clauses, true);
    a_.bind(fixed);
    general_tail_call(s);
  }

  // R[0..argc] = R[a..a+argc] in the frame slots, for the callee of a tail call, from the
  // machine registers of the pinned ones (a tail call does not store them first). A forward copy
  // is safe (a >= 1: no source is overwritten before it is read). An argument R[a+j] moved from
  // R[j] is in place, but a pinned R[j]'s slot may be stale: its machine register is stored.
  // Clobbers rcx.
  void copy_arguments(const Step& s) {
    for (int j = 0; j <= s.b; j++) {
      if (j > 0 && arg_in_place(s, j)) {
        if (pinned(j)) a_.mov(slot(j), home(j));
        continue;
      }
      a_.mov(slot(j), use(s.a + j, rcx));
    }
  }

  // With rsi = the callee's Proto and rdx = its JitCode: the callee's frame replaces this one,
  // and a jump to its code.
  void general_tail_call(const Step& s) {
    // The callee's frame replaces this one at the same fp: when it is no larger, it uses no new
    // stack (this frame's top was checked and is below the high-water mark, which only a reset
    // lowers), so only a larger one is checked. (The interpreter checks every tail call against
    // the soft limit, which may have come down below this frame since it was entered: only when
    // a continuation captured in the headroom after a stack overflow is re-entered.)
    Label fits = a_.newLabel();
    a_.cmp(dword_ptr(rsi, kProtoNregs), int32_t(p_->nregs));
    a_.jle(fits);
    a_.movsxd(rcx, dword_ptr(rsi, kProtoNregs));
    a_.lea(rdi, ptr(r12, rcx, 3, 8));
    check_tail_room(s.index);
    a_.bind(fits);
    copy_arguments(s);
    // A self tail call that got here (the callee not known as this closure) jumps through its
    // code's entry0 like any other: the same address as entry0_, without a compare first.
    a_.jmp(qword_ptr(rdx, kJitEntry0));
  }

  // Returns rax to the caller: pops the VM frame, and jumps to the caller's machine code at the
  // return point, or hands the caller's pc to the interpreter, or ends the run at a barrier.
  // A return below what the last continuation shares lowers the mark (VmImpl::low_frame); r9
  // holds the popped frame's index. Not needed on the `ret` path: a frame pushed by a machine
  // call of this very run is above the mark unless a capture made since marked it
  // (kFrameMarked: its return takes the slow path, which lowers the mark and then `ret`s); a
  // re-entry starts a new session (emit_resume), and a capture inside a C++ call this run made
  // drops sharing when that call returns.
  // rdx = the machine-code entry for `pc` (an instruction of the procedure in rsi), or a jump to
  // `interpreted` when that procedure has no machine code or none at that pc. Clobbers r8.
  void machine_entry_of(const x86::Gp& pc, Label interpreted) {
    a_.mov(rdx, qword_ptr(rsi, kProtoJit));
    a_.test(rdx, rdx);
    a_.jz(interpreted);
    a_.mov(r8, pc);
    a_.sub(r8, qword_ptr(rsi, kProtoCode));  // byte offset = index * 8
    a_.mov(rdx, qword_ptr(rdx, kJitEntries));
    a_.mov(rdx, ptr(rdx, r8));
    a_.test(rdx, rdx);
    a_.jz(interpreted);
  }

  void lower_shared_mark() {
    Label ok = a_.newLabel();
    a_.cmp(r9, qword_ptr(rbx, kVmLowFrame));
    a_.jge(ok);
    a_.mov(qword_ptr(rbx, kVmLowFrame), r9);
    a_.bind(ok);
  }

  // The fast half of a return, at every return site: pops the VM frame and, when this run's
  // machine `call` pushed it (Frame::session), `ret`s with the value in rax; the caller restores
  // its r12 and stores the value (machine_call). Nothing else is written: the VM's fp, top and
  // cur_proto are implied by the caller's code (sync_vm_state), and the JIT cannot have been
  // turned off in this run (whatever can turn it off leaves the run). Else return_slow_.
  void emit_return() {
    return_used_ = true;
    a_.sub(r13, kFrameSize);
    a_.cmp(qword_ptr(r13, kFrameSession), r14);
    a_.jne(return_slow_);
    a_.ret();  // to the caller's machine call, in this run
  }

  // The general half (rax = the value, rcx = the popped frame, r9 = its index): restores the VM
  // state from the frame, and jumps to the caller's machine code at the return point, or hands
  // the caller's pc to the interpreter, or ends the run at a barrier.
  void emit_return_slow() {
    Label barrier = a_.newLabel(), interpreted = a_.newLabel();
    a_.bind(return_slow_);
    a_.mov(rcx, r13);
    frames_index(a_, r9);  // the popped frame's index, for lower_shared_mark
    // A frame this run's machine call pushed, captured since (kFrameMarked): lower the mark and
    // `ret` as the fast path would.
    Label general = a_.newLabel();
    a_.mov(rdx, imm(kFrameMarked));
    a_.or_(rdx, r14);
    a_.cmp(qword_ptr(rcx, kFrameSession), rdx);
    a_.jne(general);
    lower_shared_mark();
    a_.ret();
    a_.bind(general);
    a_.mov(qword_ptr(rbx, kVmNframes), r9);
    a_.mov(rdx, qword_ptr(rcx, kFrameFp));
    a_.mov(qword_ptr(rbx, kVmFp), rdx);
    a_.mov(rsi, qword_ptr(rcx, kFrameProto));
    a_.mov(qword_ptr(rbx, kVmCurProto), rsi);
    // Frame::resume_top: a procedure's caller goes on with its top at fp + nregs.
    Label top_set = a_.newLabel();
    a_.mov(r8, qword_ptr(rcx, kFrameTop));
    a_.mov(rdi, qword_ptr(rcx, kFramePc));
    a_.test(rdi, rdi);
    a_.jz(top_set);
    a_.test(rsi, rsi);
    a_.jz(top_set);
    a_.movsxd(r8, dword_ptr(rsi, kProtoNregs));
    a_.add(r8, rdx);
    a_.bind(top_set);
    a_.mov(qword_ptr(rbx, kVmTop), r8);
    a_.test(rdi, rdi);
    a_.jz(barrier);
    a_.mov(r8, qword_ptr(rbx, kVmStack));
    a_.lea(r12, ptr(r8, rdx, 3));
    // Frame::result_slot: after a call instruction, its register.
    Label dst_set = a_.newLabel();
    a_.mov(rdx, qword_ptr(rcx, kFrameDst));
    a_.cmp(word_ptr(rdi, kInsnOp - kInsnSize), uint16_t(Op::kCall));
    a_.jne(dst_set);
    a_.movzx(edx, word_ptr(rdi, kInsnA - kInsnSize));
    a_.bind(dst_set);
    a_.mov(ptr(r12, rdx, 3), rax);
    a_.cmp(byte_ptr(rbx, kVmJitActive), 0);
    a_.je(interpreted);
    lower_shared_mark();
    machine_entry_of(rdi, interpreted);
    a_.jmp(rdx);
    a_.bind(interpreted);
    lower_shared_mark();
    a_.mov(rax, rdi);
    a_.jmp(epilogue_);
    a_.bind(barrier);
    lower_shared_mark();
    a_.mov(qword_ptr(rbx, kVmBarrierValue), rax);
    a_.xor_(eax, eax);
    a_.jmp(epilogue_);
  }
};

// With QUASI_PERF_MAP set, every compilation appends its code's symbols to /tmp/perf-PID.map,
// which `perf report` reads for JIT code: one symbol per bytecode instruction ("ev@12") and one
// for the out-of-line part ("ev@slow"), so a profile says which instruction the time is in.
void write_perf_map(const Proto* p, void* fn, size_t size, const std::vector<Emitter::Mark>& marks) {
  static const bool on = std::getenv("QUASI_PERF_MAP") != nullptr;
  if (!on) return;
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  char path[64];
  std::snprintf(path, sizeof path, "/tmp/perf-%d.map", int(getpid()));
  FILE* f = std::fopen(path, "a");
  if (!f) return;
  std::string name = is_symbol(p->name) ? symbol_name(p->name) : "lambda";
  uintptr_t base = reinterpret_cast<uintptr_t>(fn);
  std::fprintf(f, "%lx %zx %s@entry\n", (unsigned long)base, marks.empty() ? size : marks[0].offset, name.c_str());
  for (size_t i = 0; i < marks.size(); i++) {
    size_t end = i + 1 < marks.size() ? marks[i + 1].offset : size;
    if (end <= marks[i].offset) continue;
    if (marks[i].index < 0)
      std::fprintf(f, "%lx %zx %s@slow\n", (unsigned long)(base + marks[i].offset), end - marks[i].offset, name.c_str());
    else
      std::fprintf(f, "%lx %zx %s@%d\n", (unsigned long)(base + marks[i].offset), end - marks[i].offset, name.c_str(),
                   int(marks[i].index));
  }
  std::fclose(f);
}

}  // namespace

// ---- public to lib/jit ------------------------------------------------------------------------

JitCode* emit_x64(const Proto* p, const LoweredProc& lp, std::string* listing, std::string* why) {
  CodeHolder code;
  code.init(runtime().environment());
  StringLogger logger;
  if (listing) {
    logger.addFlags(FormatFlags::kMachineCode);
    code.setLogger(&logger);
  }
  Assembler a(&code);
  std::vector<Value> constants;
  // The JitCode is made first: a self call compares the Proto's code with it.
  JitCode* jc = listing ? p->jit : static_cast<JitCode*>(GC_MALLOC(sizeof(JitCode)));
  Emitter e(a, p, lp, &constants, jc);
  e.emit();
  if (listing) {
    *listing = logger.data();
    return nullptr;
  }

  void* fn = nullptr;
  {
    std::lock_guard<std::mutex> lock(runtime_mutex());
    if (Error err = runtime().add(&fn, &code); err != kErrorOk) {
      *why = DebugUtils::errorAsString(err);
      return nullptr;
    }
  }
  jc->code = fn;
  jc->code_size = code.codeSize();
  jc->proto = const_cast<Proto*>(p);
  jc->nconstants = int64_t(constants.size());
  jc->constants = static_cast<Value*>(GC_MALLOC(sizeof(Value) * (constants.size() + 1)));
  std::copy(constants.begin(), constants.end(), jc->constants);
  jc->entries = static_cast<void**>(GC_MALLOC_ATOMIC(sizeof(void*) * (size_t(p->ncode) + 1)));
  std::memset(jc->entries, 0, sizeof(void*) * (size_t(p->ncode) + 1));
  const std::vector<Label>& labels = e.entry_labels();
  for (size_t i = 0; i < lp.entry.size(); i++)
    if (lp.entry[i] && labels[i].isValid())
      jc->entries[i] = static_cast<uint8_t*>(fn) + code.labelOffsetFromBase(labels[i]);
  jc->entry0 = jc->entries[0];
  write_perf_map(p, fn, code.codeSize(), e.marks());
  GC_REGISTER_FINALIZER_NO_ORDER(jc, release_code, nullptr, nullptr, nullptr);
  return jc;
}

const Insn* run_x64(VmImpl& vm, void* target) {
  EntryFn enter = entry_stub();
  return enter(&vm, target, thread_free_lists());
}

bool x64_available() { return entry_stub() != nullptr; }

}  // namespace quasi::jit
