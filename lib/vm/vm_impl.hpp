// vm_impl.hpp — the VM's private state: the value stack, the frame stack, and the run loop.
//
// Invariants:
//  - stack[fp .. top) is the running procedure's frame; every register the code uses is below
//    top. The stack is one reserved region that never moves, so pointers into it stay valid.
//  - The collector scans stack[0 .. high_water) through a push-other-roots callback.
//  - frames[0 .. nframes) hold the return points of the procedures below the running one. A frame
//    whose pc is null is a barrier: returning through it ends the innermost C++ call into
//    Scheme (Vm::apply), which returns the value.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "vm/jit_policy.hpp"
#include "vm/proto.hpp"
#include "vm/vm.hpp"

namespace quasi {

struct Frame {
  const Insn* pc;  // where the caller resumes; null for a barrier
  int64_t fp;      // the caller's frame base
  // The caller's frame top, read only for a barrier (null pc). Any other frame's caller goes on
  // with its top at fp + proto->nregs (Frame::resume_top): what the interpreter had raised it to
  // for an `apply` in that frame is dead once the call returned. Machine code does not write it.
  int64_t top;
  // The caller's register (relative to fp) that receives the result, read only when pc does not
  // follow a call instruction (a handler's frame, vm/call.cpp raise_from_error); after a call it
  // is that call's register (Frame::result_slot). Machine code does not write it.
  int64_t dst;
  Proto* proto;    // the caller's code
  // Nonzero: pushed by a machine-code call in JIT run `session` (VmImpl::jit_session), which
  // also left a machine return address; a return in that same run may then use `ret`.
  uint64_t session = 0;
  int64_t resume_top() const { return pc && proto ? fp + proto->nregs : top; }
  int64_t result_slot() const { return pc[-1].op == Op::kCall ? pc[-1].a : dst; }  // pc not null
};
// A Frame::session with this bit: pushed by a machine call of that run (a machine return address
// is waiting), and captured since, so its return goes through the slow path, which lowers
// VmImpl::low_frame before it `ret`s.
constexpr uint64_t kFrameMarked = uint64_t(1) << 63;

// Thrown to carry a continuation invocation out of nested C++ -> Scheme calls to the run loop
// that owns the continuation's frames.
struct ContinuationJump {
  Continuation* k;
  Value value;
};

// Thrown when a raise has no handler left: leaves every run loop and reaches the embedder.
struct UncaughtRaise {
  Value payload;
  SrcLoc where;  // for a payload that is not an error object: the raise's call site in user code
};

// zero? on anything but a fixnum, as the inline op's slow path (raises for a non-number).
bool zero_p(Value x);

struct VmImpl {
  Vm* vm;
  Value* stack = nullptr;
  int64_t stack_limit = 0;  // in values
  int64_t stack_soft_limit = 0;  // below it by a headroom until a stack overflow is signalled
  Frame* frames = nullptr;
  int64_t frames_limit = 0;
  int64_t frames_soft_limit = 0;
  // frames + frames_soft_limit, or the running machine-code run's bound on its machine calls
  // (jit_calls_end) when that is lower: compiled code's one compare before a call covers both
  // (jit/x64_emit.cpp, push_call_frame). Set with set_frames_soft_end.
  Frame* frames_soft_end = nullptr;
  uintptr_t jit_calls_end = UINTPTR_MAX;  // saved and restored by a nested run's entry stub
  void set_frames_soft_end() {
    auto end = reinterpret_cast<uintptr_t>(frames + frames_soft_limit);
    frames_soft_end = reinterpret_cast<Frame*>(std::min(end, jit_calls_end));
  }
  // How deep the stacks have been charged to the thread's allocation count (core/alloc_watch.hpp),
  // so an engine's memory limit sees deep recursion: the soft limits stop at these marks, and
  // passing one charges the next kStackChargeStep and checks the limits (ensure_stack, push_frame).
  int64_t stack_charged = 0, frames_charged = 0;
  int64_t nframes = 0;
  int64_t fp = 0, top = 0, high_water = 0;
  // At or below both high_water and stack_soft_limit, so that compiled code's call checks its
  // callee's top with one compare (jit/x64_emit.cpp, check_stack_room); its slow path checks the
  // soft limit, raises high_water and sets this to the minimum of the two again. Either of them
  // comes down only in restore_limits (reset lowers high_water before it), which lowers this.
  int64_t stack_bound = 0;
  // stack + stack_bound, for compiled tail calls, which have their frame as a pointer (r12) and
  // need not compute its index (check_tail_room): the value stack is reserved once and never
  // moves. Written wherever stack_bound is.
  Value* stack_bound_end = nullptr;
  // What a capture may share instead of copying: frames[0..low_frame) are still the ones
  // shared_k holds, and so is the stack below the lowest frame that has run since (the frame at
  // level low_frame: its record's fp in shared_k, or shared_k's own resume_fp when no return went
  // below it). Set by a capture and a reinstatement; every return to a level below low_frame
  // (the interpreter's, the machine code's, an escape, an unwound C++ call) lowers it. Null
  // shared_k: nothing is shared. Scanned by the collector with the stacks.
  Continuation* shared_k = nullptr;
  int64_t low_frame = 0;
  // The context (Continuation::context) of the latest capture, reused while the run and the
  // dynamic state stay the same. Scanned by the collector with shared_k.
  Value last_context = kFalse;
  Proto* cur_proto = nullptr;  // code of the running procedure (null outside any)
  int32_t run_depth = 0;
  uint64_t run_id = 0;         // 0 for the outermost run; unique for nested ones
  uint64_t run_counter = 0;
  std::vector<uint64_t> active_runs;
  const Insn* error_pc = nullptr;  // instruction being executed when a runtime routine may raise

  // Poll points. Every call and backward jump (a "step") decrements poll_countdown; when it
  // reaches zero, poll() does the rare work: a pending interrupt, the step, time and allocation
  // limits, then rearms the countdown with poll_period steps. So the hot path is one decrement and
  // one well-predicted branch, and a runaway loop is seen within kPollInterval steps. Relaxed
  // loads and stores (plain moves), not read-modify-write: request_interrupt() may zero it from
  // another thread, and losing that race only delays the interrupt to the next regular poll.
  // Compiled code must poll the same way at its calls and loop back-edges.
  static constexpr int64_t kPollInterval = 1024;
  std::atomic<int64_t> poll_countdown{kPollInterval};
  int64_t poll_period = kPollInterval;
  Value barrier_value = kUnspecified;

  // Set when a GlobalCell that compiled code inlines is assigned: inline ops then call the
  // cell's current value.
  bool builtins_redefined = false;

  // The JIT's policy (vm/jit_policy.hpp): the mode, whether machine code may run, the hot
  // threshold. The backend is jit/jit.hpp.
  JitPolicy jit;
  void set_jit_mode(JitMode mode) { jit.set_mode(mode, builtins_redefined); }
  void refresh_jit() { jit.refresh(builtins_redefined); }
  // At a checkpoint (procedure entry, return into a procedure, loop head): runs cur_proto's
  // machine code from pc if it has some there, compiling it first once it is hot. Returns the pc
  // the interpreter goes on at, or null when the run ended at a barrier frame.
  const Insn* checkpoint(const Insn* pc);
  // An exception a primitive called from machine code threw: machine code cannot be unwound,
  // so the call returns 0, the code hands the call instruction to the interpreter, and
  // checkpoint() rethrows this there (with error_pc at the call, as the interpreter would).
  std::exception_ptr jit_pending;
  uint64_t jit_session = 0;  // numbers the runs of machine code (see Frame::session)
  // The running machine-code run's entry stub: the machine stack pointer every exit resets to,
  // and the one below which machine calls jump instead of calling (jit/x64_emit.cpp; a nested
  // run saves and restores both).
  uintptr_t jit_entry_rsp = 0, jit_stack_floor = 0;
  Value raise_cell = kFalse;                     // GlobalCell of Scheme-level %raise
  SrcLoc last_raise_where;                       // call site of the latest raise (for non-conditions)
  // The start of the top-level form running (engine/toplevel.cpp): user_location's last resort,
  // when a top-level tail call into library code left no frame of the user's.
  SrcLoc form_location;
  // GlobalCells of %winders and %handlers (00-core.scm); cells of the VM's own holding '() until
  // the engine binds them, never #f after the constructor.
  Value winders_cell = kFalse;
  Value handlers_cell = kFalse;
  Value wind_continue_cell = kFalse;             // GlobalCell of %wind-and-continue
  Value parameter_assign_cell = kFalse;          // GlobalCell of %parameter-assign ((p v), 00-core.scm)
  root_vector<Value> roots;                      // values the VM must keep alive

  explicit VmImpl(Vm* owner);
  ~VmImpl();

  Value apply(Value proc, int argc, const Value* argv);
  // Runs from pc until a barrier frame returns; handles errors and continuation jumps.
  Value execute(const Insn* pc);
  const Insn* loop(const Insn* pc);

  // Calls the procedure at stack[nfp] with argc arguments above it. Returns the pc to continue
  // at, or null when a barrier frame was popped (barrier_value holds the result).
  const Insn* enter(int64_t nfp, int64_t argc, const Insn* ret_pc, int64_t dst, bool tail);
  // Pops the innermost frame and stores v where its caller waits. Inline: the run loop's
  // kReturn and the call paths that return a primitive's result share this one sequence.
  const Insn* do_return(Value v) {
    Frame& f = frames[--nframes];
    if (nframes < low_frame) low_frame = nframes;
    fp = f.fp;
    top = f.resume_top();
    cur_proto = f.proto;
    if (!f.pc) {
      barrier_value = v;
      return nullptr;
    }
    stack[fp + f.result_slot()] = v;
    return f.pc;
  }
  // The result of a call that ran no frame of its own (a primitive, a parameter): a tail call
  // returns it from the caller's frame, a call from C++ (no ret_pc) leaves it in barrier_value,
  // any other call stores it in the caller's slot dst and continues at ret_pc.
  const Insn* deliver(Value v, const Insn* ret_pc, int64_t dst, bool tail) {
    if (tail) return do_return(v);
    if (!ret_pc) {
      barrier_value = v;
      return nullptr;
    }
    stack[fp + dst] = v;
    return ret_pc;
  }
  const Insn* reinstate(Continuation* k, Value v);
  // Whether invoking k must first leave and enter dynamic-wind extents or change the handler
  // stack (%wind-and-continue): %winders or %handlers differ from what k captured.
  bool dynamic_state_differs(const Continuation* k) const {
    return k->winders() != winders_cell.as<GlobalCell>()->value || k->handlers() != handlers_cell.as<GlobalCell>()->value;
  }
  // A continuation without a resume pc delivers by returning from the top frame it restored: the
  // caller's registers above that frame's base count as used again (ensure_stack).
  const Insn* return_from_resumed(Value v) {
    const Insn* pc = do_return(v);
    ensure_stack(top);
    return pc;
  }
  // `nfp`: the call's base, where the stack the continuation keeps ends (not in tail position).
  // `session`: the machine-code run capturing (jit/x64_emit.cpp), 0 from the interpreter. The
  // frames that run's machine calls pushed get kFrameMarked: their return lowers low_frame.
  Value capture(int64_t nfp, const Insn* ret_pc, int64_t dst, bool tail, uint64_t session = 0);
  Value capture_escape(const Insn* ret_pc, int64_t dst, bool tail);
  // The continuation of the kCallCC at pc (vm/proto.hpp): resumes after its slow code with the
  // value in the call's register, or returns from this frame in tail position. The registers
  // from the slow code's call base (k's register - 1) up are dead where it resumes.
  Value capture_inline(const Insn* pc, uint64_t session = 0) {
    const Insn* resume = callcc_resume_pc(pc);
    return capture(fp + pc->a - 1, resume, resume ? pc[1].b : 0, !resume, session);
  }
  Value capture_context();
  void set_resume_point(Continuation* k, const Insn* ret_pc, int64_t dst, bool tail, Value context);
  const Insn* raise_from_error(Value payload);
  void push_frame(const Insn* ret_pc, int64_t dst);
  void ensure_stack(int64_t needed_top) {
    if (needed_top > stack_soft_limit) grow_value_stack(needed_top);
    if (needed_top > high_water) high_water = needed_top;
  }
  void grow_value_stack(int64_t needed_top);  // ensure_stack past the soft limit
  void grow_stack_slow(int64_t needed, int64_t& charged, int64_t limit, int64_t headroom, int64_t unit_bytes);
  void reset();  // after an uncaught error: drop every frame
  void restore_limits();
  // Unwinding past a stack overflow (a continuation, a reset) brings the soft limits back down
  // from the hard ones its handlers were given (grow_stack_slow raises both together).
  void unwind_limits() {
    if (stack_soft_limit == stack_limit || frames_soft_limit == frames_limit) restore_limits();
  }
  // The slow path of a poll point at `pc` (see poll_countdown). Raises on interrupt or a limit.
  void poll(const Insn* pc);
  // Rearms the countdown for the next period (bounded by what is left of the step limit).
  void rearm_poll();
  void cell_written(Value cell, Value v);
  Value call_redefined(const Insn* pc, int n, Value a0, Value a1, Value a2);
  Value call_redefined_chain(const Insn* pc);

  SrcLoc location_of(const Insn* pc) const;  // of an instruction of the running procedure
  // The frames for Condition::backtrace; *library_entry = the name of the library procedure
  // the user called when the error is raised inside library code (vm/call.cpp).
  Value backtrace(Value* library_entry = nullptr) const;
  SrcLoc user_location() const;              // innermost call site outside library code
  SrcLoc error_location() const;             // error_pc's location, or user_location() when that is in library code
};

// Machine code's continuation operations (jit/x64_emit.cpp calls them; defined beside capture
// and reinstate, which they inline). jit_capture_inline: the continuation of the kCallCC at pc,
// captured in JIT run `session`; 0 hands the instruction to the interpreter, which repeats it.
// jit_continue: continuation k called with argc values at args, reinstated as VmImpl::enter does
// it when no dynamic-wind extent or handler stack has to change and k belongs to this run.
// Returns the pc to resume at in the VM state it set up (fp, top, cur_proto, nframes), 1 when k
// returned through a barrier frame (the run ends, the value in barrier_value), 0 to hand the
// call to the interpreter (other extents, other runs, errors): nothing was changed then.
uint64_t jit_capture_inline(VmImpl* vm, const Insn* pc, uint64_t session) noexcept;
uint64_t jit_continue(VmImpl* vm, uint64_t kbits, int64_t argc, Value* args) noexcept;

}  // namespace quasi
