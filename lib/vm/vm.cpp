#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#define GC_THREADS 1
#include <gc/gc_mark.h>

#include "core/error.hpp"
#include "core/numbers.hpp"
#include "eval/environment.hpp"
#include "vm/compiler.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {

// ---- stack memory and GC roots ---------------------------------------------------------------

namespace {
// Reserved, not committed: pages are touched only as deep as the program goes.
constexpr int64_t kStackValues = int64_t(64) << 20;  // 512 MiB of address space
constexpr int64_t kMaxFrames = int64_t(16) << 20;
// Kept free below the limits so a stack-overflow error can still run its handlers.
constexpr int64_t kStackHeadroom = 1 << 16;
constexpr int64_t kFramesHeadroom = 1 << 14;

void* reserve(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

// Every live VM, scanned by the collector. Changed only under the collector's allocation lock,
// so the scan never sees it half-updated (and never waits on a lock held by a stopped thread).
std::vector<VmImpl*>* live_vms = nullptr;
GC_push_other_roots_proc previous_push_roots = nullptr;

void push_vm_roots() {
  if (live_vms)
    for (VmImpl* vm : *live_vms) {
      GC_push_all(vm->stack, vm->stack + vm->high_water + 8);
      GC_push_all(vm->frames, vm->frames + vm->nframes + 1);
    }
  if (previous_push_roots) previous_push_roots();
}

void* add_vm_locked(void* vm) {
  if (!live_vms) {
    live_vms = new std::vector<VmImpl*>;
    previous_push_roots = GC_get_push_other_roots();
    GC_set_push_other_roots(push_vm_roots);
  }
  live_vms->push_back(static_cast<VmImpl*>(vm));
  return nullptr;
}
void* remove_vm_locked(void* vm) {
  auto& v = *live_vms;
  for (size_t i = 0; i < v.size(); i++)
    if (v[i] == vm) { v.erase(v.begin() + i); break; }
  return nullptr;
}

[[noreturn]] void stack_overflow() {
  throw_condition("stack-overflow", nullptr, "recursion too deep: the Scheme stack is exhausted");
}

std::string name_of(Value proc) {
  std::string n = procedure_name(proc);
  return n.empty() ? "#<procedure>" : n;
}
}  // namespace

VmImpl::VmImpl(Vm* owner) : vm(owner) {
  set_jit_mode(jit_default_mode());
  stack = static_cast<Value*>(reserve(sizeof(Value) * kStackValues));
  stack_limit = kStackValues;
  frames = static_cast<Frame*>(reserve(sizeof(Frame) * kMaxFrames));
  frames_limit = kMaxFrames;
  restore_limits();
  GC_call_with_alloc_lock(add_vm_locked, this);
}

VmImpl::~VmImpl() {
  GC_call_with_alloc_lock(remove_vm_locked, this);
  munmap(stack, sizeof(Value) * kStackValues);
  munmap(frames, sizeof(Frame) * kMaxFrames);
}

void VmImpl::ensure_stack(int64_t needed_top) {
  if (needed_top > stack_soft_limit) {
    if (stack_soft_limit == stack_limit) throw std::bad_alloc();
    // Let the error's handlers run in the headroom; the limit comes back when the stack is
    // unwound by a continuation or a reset.
    stack_soft_limit = stack_limit;
    frames_soft_limit = frames_limit;
    stack_overflow();
  }
  if (needed_top > high_water) high_water = needed_top;
}

void VmImpl::push_frame(const Insn* ret_pc, int64_t dst) {
  if (nframes >= frames_soft_limit) {
    if (frames_soft_limit == frames_limit) throw std::bad_alloc();
    stack_soft_limit = stack_limit;
    frames_soft_limit = frames_limit;
    stack_overflow();
  }
  frames[nframes++] = Frame{ret_pc, fp, top, dst, cur_proto};
}

void VmImpl::restore_limits() {
  stack_soft_limit = stack_limit - kStackHeadroom;
  frames_soft_limit = frames_limit - kFramesHeadroom;
}

void VmImpl::reset() {
  nframes = 0;
  fp = top = 0;
  cur_proto = nullptr;
  run_depth = 0;
  run_id = 0;
  active_runs.clear();
  // Drop stale references left above the stack so they do not keep garbage alive.
  if (high_water > 0) std::memset(stack, 0, sizeof(Value) * std::min<int64_t>(high_water + 8, stack_limit));
  high_water = 0;
  restore_limits();
}

// ---- calls and returns -----------------------------------------------------------------------

const Insn* VmImpl::do_return(Value v) {
  Frame& f = frames[--nframes];
  fp = f.fp;
  top = f.top;
  cur_proto = f.proto;
  if (!f.pc) {
    barrier_value = v;
    return nullptr;
  }
  stack[fp + f.dst] = v;
  return f.pc;
}

Value VmImpl::capture(int64_t nfp, const Insn* ret_pc, int64_t dst, bool tail) {
  int64_t nstack = tail ? fp : top;
  // One block: the object, then the stack copy, then the frames copy.
  Continuation* k = gc_alloc_object<Continuation>(
      Type::Continuation, sizeof(Continuation) + sizeof(Value) * nstack + sizeof(Frame) * nframes);
  k->stack = reinterpret_cast<Value*>(k + 1);
  std::memcpy(k->stack, stack, sizeof(Value) * nstack);
  k->nstack = nstack;
  k->frames = reinterpret_cast<Frame*>(k->stack + nstack);
  std::memcpy(static_cast<void*>(k->frames), frames, sizeof(Frame) * nframes);
  k->nframes = nframes;
  k->resume_pc = tail ? nullptr : ret_pc;
  k->resume_fp = fp;
  k->resume_top = top;
  k->resume_dst = dst;
  k->resume_proto = cur_proto;
  k->run_id = run_id;
  k->winders = winders_cell == kFalse ? kNil : winders_cell.as<GlobalCell>()->value;
  (void)nfp;
  return make_ptr(k);
}

const Insn* VmImpl::reinstate(Continuation* k, Value v) {
  restore_limits();
  ensure_stack(std::max(k->nstack, k->resume_top));
  std::memcpy(stack, k->stack, sizeof(Value) * k->nstack);
  std::memcpy(static_cast<void*>(frames), k->frames, sizeof(Frame) * k->nframes);
  nframes = k->nframes;
  fp = k->resume_fp;
  top = k->resume_top;
  cur_proto = k->resume_proto;
  if (!k->resume_pc) return do_return(v);
  stack[fp + k->resume_dst] = v;
  return k->resume_pc;
}

const Insn* VmImpl::enter(int64_t nfp, int64_t argc, const Insn* ret_pc, int64_t dst, bool tail) {
  if (tail && nfp != fp) {
    std::memmove(stack + fp, stack + nfp, sizeof(Value) * (argc + 1));
    nfp = fp;
  }
  for (;;) {
    Value f = stack[nfp];
    if (!f.is_ptr()) type_error("application", "a procedure", f);
    switch (f.obj()->type()) {
      case Type::Closure: {
        Proto* p = f.as<Closure>()->proto;
        while (p && !(argc == p->nparams || (p->has_rest && argc >= p->nparams))) p = p->next_clause;
        if (!p) {
          Proto* first = f.as<Closure>()->proto;
          if (first->next_clause)
            throw_condition("arity", name_of(f).c_str(), "no clause accepts " + std::to_string(argc) + " argument" + (argc == 1 ? "" : "s"));
          arity_error(name_of(f).c_str(), first->nparams, first->has_rest ? -1 : first->nparams, int(argc));
        }
        ensure_stack(nfp + p->nregs + 1);
        if (!tail) push_frame(ret_pc, dst);
        fp = nfp;
        top = nfp + p->nregs;
        cur_proto = p;
        if (p->has_rest) {
          Value rest = kNil;
          for (int64_t k = argc; k > p->nparams; k--) rest = cons(stack[fp + k], rest);
          stack[fp + 1 + p->nparams] = rest;
        }
        return p->code;
      }
      case Type::Primitive: {
        Primitive* pr = f.as<Primitive>();
        if (argc < pr->min_args || (pr->max_args >= 0 && argc > pr->max_args))
          arity_error(pr->name, pr->min_args, pr->max_args, int(argc));
        if (pr->flags & kVmSpecial) {
          switch (pr->vm_op) {
            case kVmApply: {
              Value lst = stack[nfp + argc];
              int64_t n = list_length(lst);
              if (n < 0) type_error("apply", "a proper list", lst);
              int64_t fixed = argc - 2;
              ensure_stack(nfp + 2 + fixed + n + 1);
              if (nfp + 2 + fixed + n + 1 > top && !tail) top = nfp + 2 + fixed + n + 1;
              stack[nfp] = stack[nfp + 1];
              for (int64_t k = 0; k < fixed; k++) stack[nfp + 1 + k] = stack[nfp + 2 + k];
              for (int64_t k = 0; k < n; k++, lst = cdr(lst)) stack[nfp + 1 + fixed + k] = car(lst);
              argc = fixed + n;
              continue;
            }
            case kVmApplyValues: {
              Value vals = stack[nfp + 2];
              stack[nfp] = stack[nfp + 1];
              if (has_type(vals, Type::Values)) {
                MultipleValues* mv = vals.as<MultipleValues>();
                ensure_stack(nfp + mv->count() + 2);
                if (nfp + mv->count() + 2 > top && !tail) top = nfp + mv->count() + 2;
                for (int64_t k = 0; k < mv->count(); k++) stack[nfp + 1 + k] = mv->items()[k];
                argc = mv->count();
              } else {
                stack[nfp + 1] = vals;
                argc = 1;
              }
              continue;
            }
            case kVmCallCC: {
              Value k = capture(nfp, ret_pc, dst, tail);
              stack[nfp] = stack[nfp + 1];
              stack[nfp + 1] = k;
              argc = 1;
              continue;
            }
            case kVmEval: {
              Value thunk = pr->fn(*vm, pr, int(argc), stack + nfp + 1);
              stack[nfp] = thunk;
              argc = 0;
              continue;
            }
            default:
              break;
          }
        }
        Value r = pr->fn(*vm, pr, int(argc), stack + nfp + 1);
        if (tail) return do_return(r);
        if (!ret_pc) {
          barrier_value = r;
          return nullptr;
        }
        stack[fp + dst] = r;
        return ret_pc;
      }
      case Type::Continuation: {
        Continuation* k = f.as<Continuation>();
        if (winders_cell != kFalse && k->winders != winders_cell.as<GlobalCell>()->value &&
            wind_continue_cell != kFalse && wind_continue_cell.as<GlobalCell>()->value != kUnbound) {
          // Leave and enter dynamic-wind extents first: (%wind-and-continue k arg ...).
          ensure_stack(nfp + argc + 3);
          if (!tail && nfp + argc + 2 > top) top = nfp + argc + 2;
          for (int64_t a = argc; a >= 0; a--) stack[nfp + 1 + a] = stack[nfp + a];
          stack[nfp] = wind_continue_cell.as<GlobalCell>()->value;
          argc += 1;
          continue;
        }
        Value v = argc == 1 ? stack[nfp + 1] : make_values(argc, stack + nfp + 1);
        if (k->run_id == run_id) return reinstate(k, v);
        for (uint64_t id : active_runs)
          if (id == k->run_id) throw ContinuationJump{k, v};
        throw_condition("error", "continuation", "cannot resume a continuation captured inside a C++ call that has returned");
      }
      case Type::Parameter: {
        if (argc != 0) arity_error("parameter", 0, 0, int(argc));
        Value r = f.as<Parameter>()->value;
        if (tail) return do_return(r);
        if (!ret_pc) {
          barrier_value = r;
          return nullptr;
        }
        stack[fp + dst] = r;
        return ret_pc;
      }
      default:
        type_error("application", "a procedure", f);
    }
  }
}

// ---- errors ----------------------------------------------------------------------------------

SrcLoc VmImpl::location_of(const Insn* pc) const {
  if (!cur_proto || !pc || pc < cur_proto->code || pc >= cur_proto->code + cur_proto->ncode) return {};
  return SrcLoc::unpack(cur_proto->locs[pc - cur_proto->code]);
}

Value VmImpl::backtrace() const {
  constexpr int kMaxEntries = 24;
  std::vector<Value> names;
  auto add = [&](Proto* p) {
    if (!p) return;
    std::string n = is_symbol(p->name) ? symbol_name(p->name) : "#<procedure>";
    if (n == "toplevel") return;
    names.push_back(make_string_utf8(n));
  };
  add(cur_proto);
  for (int64_t i = nframes - 1; i >= 0 && int(names.size()) < kMaxEntries; i--)
    if (frames[i].pc) add(frames[i].proto);
  Value l = kNil;
  for (auto it = names.rbegin(); it != names.rend(); ++it) l = cons(*it, l);
  return l;
}

SrcLoc VmImpl::user_location() const {
  auto in_user_code = [](SrcLoc l) {
    return l.known() && source_file_name(l.file).rfind("prelude/", 0) != 0;
  };
  SrcLoc here = location_of(error_pc);
  if (in_user_code(here)) return here;
  for (int64_t i = nframes - 1; i >= 0; i--) {
    const Frame& f = frames[i];
    if (!f.pc || !f.proto) continue;
    SrcLoc l = SrcLoc::unpack(f.proto->locs[f.pc - 1 - f.proto->code]);
    if (in_user_code(l)) return l;
  }
  return {};
}

const Insn* VmImpl::raise_from_error(Value payload) {
  if (is_condition(payload)) {
    Condition* c = payload.as<Condition>();
    if (c->loc == 0) c->loc = location_of(error_pc).pack();
    if (c->backtrace == kNil) c->backtrace = backtrace();
  }
  last_raise_where = location_of(error_pc);
  Value raise_proc = raise_cell == kFalse ? kUnbound : raise_cell.as<GlobalCell>()->value;
  if (raise_proc == kUnbound || run_depth == 0) throw UncaughtRaise{payload, location_of(error_pc)};
  int64_t nfp = top;
  ensure_stack(nfp + 3);
  top = nfp + 2;
  stack[nfp] = raise_proc;
  stack[nfp + 1] = payload;
  // `raise` never returns for errors; if a handler does, resuming at the next instruction is
  // as good a place as any.
  const Insn* resume = error_pc ? error_pc + 1 : nullptr;
  return enter(nfp, 1, resume, nfp - fp, false);
}

void (*watched_cell_written)(Value cell) = nullptr;

// The rare path of a global assignment: the cell is inlined by compiled code or watched.
void VmImpl::cell_written(Value cell, Value v) {
  GlobalCell* c = cell.as<GlobalCell>();
  c->value = v;
  if (c->header & kInlinedCell) {
    builtins_redefined = true;
    refresh_jit();  // compiled code inlines the builtins: from now on only the interpreter runs
  }
  if ((c->header & kWatchedCell) && watched_cell_written) watched_cell_written(cell);
}

bool zero_p(Value x) {
  if (!is_number(x)) type_error("zero?", "a number", x);
  return is_flonum(x) ? flonum_value(x) == 0.0 : num_eq(x, make_fixnum(0));
}

[[noreturn]] static void unbound_variable(Value cell) {
  throw_condition("unbound", nullptr, std::string("unbound variable: ") + symbol_name(cell.as<GlobalCell>()->name));
}

// ---- the JIT's checkpoints ----

void VmImpl::set_jit_mode(JitMode mode) {
  jit_mode = mode;
  jit_threshold = mode == JitMode::kForce ? 1 : kJitHotThreshold;
  refresh_jit();
}

const Insn* VmImpl::checkpoint(const Insn* pc) {
  Proto* p = cur_proto;
  if (!p->jit) {
    if (p->jit_state != kJitNone || ++p->hotness < jit_threshold) return pc;
    if (!jit_compile(*this, p, jit_mode == JitMode::kForce ? "forced" : "hot")) return pc;
  }
  void* target = jit_entry(p->jit, pc - p->code);
  if (!target) return pc;
  const Insn* next = jit_run(*this, target);
  if (jit_pending) {
    std::exception_ptr e = jit_pending;
    jit_pending = nullptr;
    error_pc = next;
    std::rethrow_exception(e);
  }
  return next;
}

// ---- the run loop ----------------------------------------------------------------------------

Value VmImpl::execute(const Insn* pc) {
  for (;;) {
    try {
      if (pc) pc = loop(pc);
      return barrier_value;
    } catch (SchemeError& e) {
      pc = raise_from_error(e.payload);
    } catch (ContinuationJump& j) {
      if (j.k->run_id != run_id) throw;
      pc = reinstate(j.k, j.value);
    }
  }
}

Value VmImpl::apply(Value proc, int argc, const Value* argv) {
  // Saved so a C++ exception leaving this call leaves the caller's frames intact.
  struct State {
    VmImpl* vm;
    int64_t nframes, fp, top;
    Proto* proto;
    uint64_t run_id;
    const Insn* error_pc;  // the caller's call site: an error leaving this run is located there
    bool done = false;
    ~State() {
      vm->run_depth--;
      vm->run_id = run_id;
      vm->error_pc = error_pc;
      if (!vm->active_runs.empty()) vm->active_runs.pop_back();
      if (!done) {
        vm->nframes = nframes;
        vm->fp = fp;
        vm->top = top;
        vm->cur_proto = proto;
      }
    }
  } saved{this, nframes, fp, top, cur_proto, run_id, error_pc};
  active_runs.push_back(run_id);
  run_depth++;
  run_id = run_depth == 1 ? 0 : ++run_counter;

  int64_t nfp = top;
  ensure_stack(nfp + argc + 2);
  top = nfp + argc + 1;
  stack[nfp] = proc;
  for (int i = 0; i < argc; i++) stack[nfp + 1 + i] = argv[i];
  const Insn* pc;
  try {
    pc = enter(nfp, argc, nullptr, nfp - fp, false);
  } catch (SchemeError& e) {
    error_pc = nullptr;
    pc = raise_from_error(e.payload);
  }
  Value v = execute(pc);
  saved.done = true;
  return v;
}

Value Vm::apply(Value proc, int argc, const Value* argv) { return impl->apply(proc, argc, argv); }

// ---- poll points: interrupts and resource limits ---------------------------------------------

namespace {
int64_t steady_now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
}  // namespace

void Vm::begin_evaluation() {
  steps = 0;
  deadline_ns = time_limit_ns > 0 ? steady_now_ns() + time_limit_ns : 0;
  alloc_base = alloc_limit ? GC_get_total_bytes() : 0;
  limit_error.set(kFalse);
  interrupt_requested.store(false);  // an interrupt sent while nothing ran is dropped
  if (impl) impl->rearm_poll();
}

void Vm::request_interrupt() {
  interrupt_requested.store(true);
  if (impl) impl->poll_countdown.store(0, std::memory_order_relaxed);
}

void VmImpl::rearm_poll() {
  poll_period = kPollInterval;
  if (vm->step_limit) {
    uint64_t left = vm->step_limit > vm->steps ? vm->step_limit - vm->steps : 1;
    if (left < uint64_t(poll_period)) poll_period = int64_t(left);
  }
  poll_countdown.store(poll_period, std::memory_order_relaxed);
}

void VmImpl::poll(const Insn* pc) {
  vm->steps += uint64_t(poll_period);
  rearm_poll();
  error_pc = pc;
  if (vm->interrupt_requested.load(std::memory_order_relaxed)) {
    vm->interrupt_requested.store(false);
    throw_condition("interrupt", nullptr, "interrupted");
  }
  const char* exceeded = nullptr;
  if (vm->step_limit && vm->steps >= vm->step_limit) exceeded = "step limit exceeded";
  else if (vm->deadline_ns && steady_now_ns() >= vm->deadline_ns) exceeded = "time limit exceeded";
  else if (vm->alloc_limit && GC_get_total_bytes() - vm->alloc_base > vm->alloc_limit)
    exceeded = "allocation limit exceeded";
  if (!exceeded) return;
  // Not raised in Scheme: a handler in the runaway script must not be able to swallow it.
  Value c = make_condition(intern("limit"), kFalse, make_string_utf8(exceeded), kNil, location_of(pc));
  c.as<Condition>()->backtrace = backtrace();
  vm->limit_error.set(c);
  throw UncaughtRaise{c, SrcLoc{}};
}

// Calls the current value of a builtin that compiled code inlined, after it was redefined. Rare
// by construction (user code cannot assign imported cells), so a nested run is good enough.
Value VmImpl::call_redefined(const Insn* pc, int n, Value a0, Value a1, Value a2) {
  error_pc = pc;
  Value target = cur_proto->consts[pc[1].a];
  if (has_type(target, Type::GlobalCell)) target = target.as<GlobalCell>()->value;
  Value args[3] = {a0, a1, a2};
  return apply(target, n, args);
}

namespace {
inline Value imm_fixnum(uint16_t raw) { return make_fixnum(int16_t(raw)); }
}  // namespace

#define RELOAD()           \
  do {                     \
    R = stack + fp;        \
    K = cur_proto->consts; \
  } while (0)

#define DISPATCH() goto* kDispatch[size_t(pc->op)]
// Where machine code may take over (see VmImpl::checkpoint).
#define CHECKPOINT()                  \
  do {                                \
    if (jit_active) {                 \
      pc = checkpoint(pc);            \
      if (!pc) return nullptr;        \
      RELOAD();                       \
    }                                 \
  } while (0)
#define NEXT(n)  \
  do {           \
    pc += (n);   \
    DISPATCH();  \
  } while (0)

// A poll point (see VmImpl::poll_countdown): one decrement and a well-predicted branch; poll()
// handles interrupts and the step, time and allocation limits.
#define CHECK_INTERRUPT()                                                \
  do {                                                                   \
    int64_t left_ = poll_countdown.load(std::memory_order_relaxed) - 1;  \
    poll_countdown.store(left_, std::memory_order_relaxed);              \
    if (__builtin_expect(left_ <= 0, 0)) poll(pc);                       \
  } while (0)

// The branch of a fused test: fall through past the data word, or jump.
#define BRANCH_ON(test)                       \
  do {                                        \
    if (test) NEXT(2);                        \
    pc += 2 + jump_offset(pc[1]);             \
    DISPATCH();                               \
  } while (0)

const Insn* VmImpl::loop(const Insn* pc) {
  static void* const kDispatch[] = {
      &&L_kMove, &&L_kConst, &&L_kGlobalRef, &&L_kGlobalSet, &&L_kGlobalDef, &&L_kFree,
      &&L_kFreeUnbox, &&L_kBox, &&L_kUnbox, &&L_kSetBox, &&L_kClosure, &&L_kFixClosure,
      &&L_kJump, &&L_kJumpIfFalse, &&L_kCall, &&L_kTailCall, &&L_kReturn, &&L_kCheckBound,
      &&L_kAdd, &&L_kSub, &&L_kMul, &&L_kLt, &&L_kLe, &&L_kGt, &&L_kGe, &&L_kNumEq, &&L_kEq,
      &&L_kCar, &&L_kCdr, &&L_kCons, &&L_kNullP, &&L_kPairP, &&L_kNot, &&L_kZeroP,
      &&L_kVectorRef, &&L_kVectorSet, &&L_kAddI, &&L_kSubI,
      &&L_kStringRef, &&L_kStringLength, &&L_kVectorLength,
      &&L_kBrLt, &&L_kBrLe, &&L_kBrGt, &&L_kBrGe, &&L_kBrNumEq, &&L_kBrEq,
      &&L_kBrLtI, &&L_kBrLeI, &&L_kBrGtI, &&L_kBrGeI, &&L_kBrNumEqI,
      &&L_kBrNull, &&L_kBrPair, &&L_kBrZero, &&L_kBrNot, &&L_kCount,
  };
  static_assert(sizeof(kDispatch) / sizeof(kDispatch[0]) == size_t(Op::kCount) + 1, "one label per op");
  Value* R;
  Value* K;
  RELOAD();
  CHECKPOINT();
  DISPATCH();

L_kMove:
  R[pc->a] = R[pc->b];
  NEXT(1);
L_kConst:
  R[pc->a] = K[pc->b];
  NEXT(1);
L_kGlobalRef: {
  Value v = K[pc->b].as<GlobalCell>()->value;
  if (v == kUnbound) {
    error_pc = pc;
    unbound_variable(K[pc->b]);
  }
  R[pc->a] = v;
  NEXT(1);
}
L_kGlobalSet: {
  GlobalCell* c = K[pc->b].as<GlobalCell>();
  if (c->value == kUnbound) {
    error_pc = pc;
    throw_condition("unbound", "set!", std::string("unbound variable: ") + symbol_name(c->name));
  }
  if (c->header & (kInlinedCell | kWatchedCell)) {
    error_pc = pc;
    cell_written(K[pc->b], R[pc->a]);
  } else {
    c->value = R[pc->a];
  }
  NEXT(1);
}
L_kGlobalDef: {
  GlobalCell* c = K[pc->b].as<GlobalCell>();
  if (c->header & (kInlinedCell | kWatchedCell)) {
    error_pc = pc;
    cell_written(K[pc->b], R[pc->a]);
  } else {
    c->value = R[pc->a];
  }
  NEXT(1);
}
L_kFree:
  R[pc->a] = R[0].as<Closure>()->free()[pc->b];
  NEXT(1);
L_kFreeUnbox:
  R[pc->a] = R[0].as<Closure>()->free()[pc->b].as<Box>()->value;
  NEXT(1);
L_kBox:
  R[pc->a] = make_box(R[pc->a]);
  NEXT(1);
L_kUnbox:
  R[pc->a] = R[pc->b].as<Box>()->value;
  NEXT(1);
L_kSetBox:
  R[pc->a].as<Box>()->value = R[pc->b];
  NEXT(1);
L_kClosure:
  R[pc->a] = close_over(K[pc->b].as<Proto>(), R);
  NEXT(1);
L_kFixClosure:
  R[pc->a].as<Closure>()->free()[pc->b] = R[pc->c];
  NEXT(1);
L_kJump: {
  int32_t off = jump_offset(*pc);
  pc += 1 + off;
  if (off < 0) {
    CHECK_INTERRUPT();
    CHECKPOINT();
  }
  DISPATCH();
}
L_kJumpIfFalse:
  if (R[pc->a] == kFalse) NEXT(1 + jump_offset(*pc));
  NEXT(1);
L_kCall: {
  CHECK_INTERRUPT();
  Value f = R[pc->a];
  if (is_closure(f)) {  // fast path: a closure of fixed arity called with that many arguments
    Proto* p = f.as<Closure>()->proto;
    if (p->nparams == pc->b && !p->has_rest) {
      int64_t nfp = fp + pc->a, ntop = nfp + p->nregs;
      if (ntop + 1 <= stack_soft_limit && nframes < frames_soft_limit) {
        if (ntop + 1 > high_water) high_water = ntop + 1;
        frames[nframes++] = Frame{pc + 1, fp, top, pc->a, cur_proto};
        fp = nfp;
        top = ntop;
        cur_proto = p;
        pc = p->code;
        RELOAD();
        CHECKPOINT();
        DISPATCH();
      }
    }
  }
  error_pc = pc;
  pc = enter(fp + pc->a, pc->b, pc + 1, pc->a, false);
  if (!pc) return nullptr;
  RELOAD();
  CHECKPOINT();
  DISPATCH();
}
L_kTailCall: {
  CHECK_INTERRUPT();
  Value f = R[pc->a];
  if (is_closure(f)) {
    Proto* p = f.as<Closure>()->proto;
    if (p->nparams == pc->b && !p->has_rest) {
      int64_t ntop = fp + p->nregs;
      if (ntop + 1 <= stack_soft_limit) {
        if (ntop + 1 > high_water) high_water = ntop + 1;
        Value* src = R + pc->a;  // above R: a forward copy is safe
        for (int k = 0; k <= pc->b; k++) R[k] = src[k];
        top = ntop;
        cur_proto = p;
        pc = p->code;
        K = p->consts;
        CHECKPOINT();
        DISPATCH();
      }
    }
  }
  error_pc = pc;
  pc = enter(fp + pc->a, pc->b, nullptr, 0, true);
  if (!pc) return nullptr;
  RELOAD();
  CHECKPOINT();
  DISPATCH();
}
L_kReturn: {
  Value v = R[pc->a];
  Frame& f = frames[--nframes];
  fp = f.fp;
  top = f.top;
  cur_proto = f.proto;
  if (!f.pc) {
    barrier_value = v;
    return nullptr;
  }
  stack[fp + f.dst] = v;
  pc = f.pc;
  RELOAD();
  CHECKPOINT();
  DISPATCH();
}
L_kCheckBound:
  if (R[pc->a] == kUnbound) {
    error_pc = pc;
    throw_condition("unbound", nullptr, "variable used before its initialization");
  }
  NEXT(1);

// ---- inline primitives: a fixnum (or pair, vector) fast path, the generic routine otherwise
L_kAdd: {
  Value x = R[pc->b], y = R[pc->c];
  int64_t r;
  if ((x.bits & y.bits & 1) && !builtins_redefined && !__builtin_add_overflow(int64_t(x.bits), int64_t(y.bits - 1), &r))
    R[pc->a] = Value{uint64_t(r)};
  else if (builtins_redefined)
    R[pc->a] = call_redefined(pc, 2, x, y, kFalse);
  else
    error_pc = pc, R[pc->a] = num_add(x, y);
  NEXT(2);
}
L_kSub: {
  Value x = R[pc->b], y = R[pc->c];
  int64_t r;
  if ((x.bits & y.bits & 1) && !builtins_redefined && !__builtin_sub_overflow(int64_t(x.bits), int64_t(y.bits - 1), &r))
    R[pc->a] = Value{uint64_t(r)};
  else if (builtins_redefined)
    R[pc->a] = call_redefined(pc, 2, x, y, kFalse);
  else
    error_pc = pc, R[pc->a] = num_sub(x, y);
  NEXT(2);
}
L_kMul: {
  Value x = R[pc->b], y = R[pc->c];
  int64_t r;
  if ((x.bits & y.bits & 1) && !builtins_redefined && !__builtin_mul_overflow(x.fixnum(), int64_t(y.bits - 1), &r))
    R[pc->a] = Value{uint64_t(r) + 1};
  else if (builtins_redefined)
    R[pc->a] = call_redefined(pc, 2, x, y, kFalse);
  else
    error_pc = pc, R[pc->a] = num_mul(x, y);
  NEXT(2);
}
L_kAddI: {
  Value x = R[pc->b];
  int64_t r;
  if (x.is_fixnum() && !builtins_redefined && !__builtin_add_overflow(int64_t(x.bits), int64_t(int16_t(pc->c)) * 2, &r))
    R[pc->a] = Value{uint64_t(r)};
  else if (builtins_redefined)
    R[pc->a] = call_redefined(pc, 2, x, imm_fixnum(pc->c), kFalse);
  else
    error_pc = pc, R[pc->a] = num_add(x, imm_fixnum(pc->c));
  NEXT(2);
}
L_kSubI: {
  Value x = R[pc->b];
  int64_t r;
  if (x.is_fixnum() && !builtins_redefined && !__builtin_sub_overflow(int64_t(x.bits), int64_t(int16_t(pc->c)) * 2, &r))
    R[pc->a] = Value{uint64_t(r)};
  else if (builtins_redefined)
    R[pc->a] = call_redefined(pc, 2, x, imm_fixnum(pc->c), kFalse);
  else
    error_pc = pc, R[pc->a] = num_sub(x, imm_fixnum(pc->c));
  NEXT(2);
}

#define COMPARE_OP(OPNAME, CMP, SLOW)                                    \
  L_##OPNAME : {                                                         \
    Value x = R[pc->b], y = R[pc->c];                                    \
    if ((x.bits & y.bits & 1) && !builtins_redefined)                    \
      R[pc->a] = make_bool(int64_t(x.bits) CMP int64_t(y.bits));         \
    else if (builtins_redefined)                                         \
      R[pc->a] = call_redefined(pc, 2, x, y, kFalse);                    \
    else                                                                 \
      error_pc = pc, R[pc->a] = make_bool(SLOW(x, y));                   \
    NEXT(2);                                                             \
  }
  COMPARE_OP(kLt, <, num_lt)
  COMPARE_OP(kLe, <=, num_le)
  COMPARE_OP(kGt, >, num_gt)
  COMPARE_OP(kGe, >=, num_ge)
  COMPARE_OP(kNumEq, ==, num_eq)
#undef COMPARE_OP

// The slow path names the procedure the program called: a swapped immediate test (c == 1:
// `(< 0 x)` compiled as x > 0) reports itself as `<` through MIRROR with the operands swapped.
#define BRANCH_COMPARE(OPNAME, CMP, SLOW, YEXPR, MIRROR)                   \
  L_##OPNAME : {                                                          \
    Value x = R[pc->a], y = YEXPR;                                        \
    if ((x.bits & y.bits & 1) && !builtins_redefined)                     \
      BRANCH_ON(int64_t(x.bits) CMP int64_t(y.bits));                     \
    if (builtins_redefined)                                               \
      BRANCH_ON((pc->c ? call_redefined(pc, 2, y, x, kFalse) : call_redefined(pc, 2, x, y, kFalse)).is_true()); \
    error_pc = pc;                                                        \
    BRANCH_ON(pc->c ? MIRROR(y, x) : SLOW(x, y));                         \
  }
  BRANCH_COMPARE(kBrLt, <, num_lt, R[pc->b], num_gt)
  BRANCH_COMPARE(kBrLe, <=, num_le, R[pc->b], num_ge)
  BRANCH_COMPARE(kBrGt, >, num_gt, R[pc->b], num_lt)
  BRANCH_COMPARE(kBrGe, >=, num_ge, R[pc->b], num_le)
  BRANCH_COMPARE(kBrNumEq, ==, num_eq, R[pc->b], num_eq)
  BRANCH_COMPARE(kBrLtI, <, num_lt, imm_fixnum(pc->b), num_gt)
  BRANCH_COMPARE(kBrLeI, <=, num_le, imm_fixnum(pc->b), num_ge)
  BRANCH_COMPARE(kBrGtI, >, num_gt, imm_fixnum(pc->b), num_lt)
  BRANCH_COMPARE(kBrGeI, >=, num_ge, imm_fixnum(pc->b), num_le)
  BRANCH_COMPARE(kBrNumEqI, ==, num_eq, imm_fixnum(pc->b), num_eq)
#undef BRANCH_COMPARE

L_kBrEq:
  if (builtins_redefined) BRANCH_ON(call_redefined(pc, 2, R[pc->a], R[pc->b], kFalse).is_true());
  BRANCH_ON(R[pc->a] == R[pc->b]);
L_kBrNull:
  if (builtins_redefined) BRANCH_ON(call_redefined(pc, 1, R[pc->a], kFalse, kFalse).is_true());
  BRANCH_ON(R[pc->a] == kNil);
L_kBrPair:
  if (builtins_redefined) BRANCH_ON(call_redefined(pc, 1, R[pc->a], kFalse, kFalse).is_true());
  BRANCH_ON(is_pair(R[pc->a]));
L_kBrNot:
  if (builtins_redefined) BRANCH_ON(call_redefined(pc, 1, R[pc->a], kFalse, kFalse).is_true());
  BRANCH_ON(R[pc->a] == kFalse);
L_kBrZero: {
  Value x = R[pc->a];
  if (builtins_redefined) BRANCH_ON(call_redefined(pc, 1, x, kFalse, kFalse).is_true());
  if (x.is_fixnum()) BRANCH_ON(x.bits == make_fixnum(0).bits);
  error_pc = pc;
  BRANCH_ON(zero_p(x));
}

L_kEq:
  if (builtins_redefined) R[pc->a] = call_redefined(pc, 2, R[pc->b], R[pc->c], kFalse);
  else R[pc->a] = make_bool(R[pc->b] == R[pc->c]);
  NEXT(2);
L_kCar: {
  Value x = R[pc->b];
  if (builtins_redefined) R[pc->a] = call_redefined(pc, 1, x, kFalse, kFalse);
  else if (is_pair(x)) R[pc->a] = car(x);
  else error_pc = pc, type_error("car", "a pair", x);
  NEXT(2);
}
L_kCdr: {
  Value x = R[pc->b];
  if (builtins_redefined) R[pc->a] = call_redefined(pc, 1, x, kFalse, kFalse);
  else if (is_pair(x)) R[pc->a] = cdr(x);
  else error_pc = pc, type_error("cdr", "a pair", x);
  NEXT(2);
}
L_kCons:
  if (builtins_redefined) R[pc->a] = call_redefined(pc, 2, R[pc->b], R[pc->c], kFalse);
  else R[pc->a] = cons(R[pc->b], R[pc->c]);
  NEXT(2);
L_kNullP:
  if (builtins_redefined) R[pc->a] = call_redefined(pc, 1, R[pc->b], kFalse, kFalse);
  else R[pc->a] = make_bool(R[pc->b] == kNil);
  NEXT(2);
L_kPairP:
  if (builtins_redefined) R[pc->a] = call_redefined(pc, 1, R[pc->b], kFalse, kFalse);
  else R[pc->a] = make_bool(is_pair(R[pc->b]));
  NEXT(2);
L_kNot:
  if (builtins_redefined) R[pc->a] = call_redefined(pc, 1, R[pc->b], kFalse, kFalse);
  else R[pc->a] = make_bool(R[pc->b] == kFalse);
  NEXT(2);
L_kZeroP: {
  Value x = R[pc->b];
  if (builtins_redefined) R[pc->a] = call_redefined(pc, 1, x, kFalse, kFalse);
  else if (x.is_fixnum()) R[pc->a] = make_bool(x.bits == make_fixnum(0).bits);
  else error_pc = pc, R[pc->a] = make_bool(zero_p(x));
  NEXT(2);
}
L_kVectorRef: {
  Value v = R[pc->b], k = R[pc->c];
  if (builtins_redefined) {
    R[pc->a] = call_redefined(pc, 2, v, k, kFalse);
  } else if (is_vector(v) && k.is_fixnum() && uint64_t(k.fixnum()) < uint64_t(v.as<Vector>()->length())) {
    R[pc->a] = v.as<Vector>()->items()[k.fixnum()];
  } else {
    error_pc = pc;
    if (!is_vector(v)) type_error("vector-ref", "a vector", v);
    check_index("vector-ref", k, v.as<Vector>()->length());
  }
  NEXT(2);
}
L_kVectorSet: {
  Value v = R[pc->a], k = R[pc->b], x = R[pc->c];
  if (builtins_redefined) {
    call_redefined(pc, 3, v, k, x);
  } else if (is_vector(v) && k.is_fixnum() && uint64_t(k.fixnum()) < uint64_t(v.as<Vector>()->length()) &&
             !v.obj()->immutable()) {
    v.as<Vector>()->items()[k.fixnum()] = x;
  } else {
    error_pc = pc;
    if (!is_vector(v)) type_error("vector-set!", "a vector", v);
    if (v.obj()->immutable()) type_error("vector-set!", "a mutable vector", v);
    check_index("vector-set!", k, v.as<Vector>()->length());
  }
  NEXT(2);
}
L_kStringRef: {
  Value s = R[pc->b], k = R[pc->c];
  if (builtins_redefined) {
    R[pc->a] = call_redefined(pc, 2, s, k, kFalse);
  } else if (is_string(s) && k.is_fixnum() && uint64_t(k.fixnum()) < uint64_t(s.as<String>()->length())) {
    R[pc->a] = make_char(s.as<String>()->chars()[k.fixnum()]);
  } else {
    error_pc = pc;
    if (!is_string(s)) type_error("string-ref", "a string", s);
    check_index("string-ref", k, s.as<String>()->length());
  }
  NEXT(2);
}
L_kStringLength: {
  Value s = R[pc->b];
  if (builtins_redefined) R[pc->a] = call_redefined(pc, 1, s, kFalse, kFalse);
  else if (is_string(s)) R[pc->a] = make_fixnum(s.as<String>()->length());
  else error_pc = pc, type_error("string-length", "a string", s);
  NEXT(2);
}
L_kVectorLength: {
  Value v = R[pc->b];
  if (builtins_redefined) R[pc->a] = call_redefined(pc, 1, v, kFalse, kFalse);
  else if (is_vector(v)) R[pc->a] = make_fixnum(v.as<Vector>()->length());
  else error_pc = pc, type_error("vector-length", "a vector", v);
  NEXT(2);
}
L_kCount:
  throw_condition("error", nullptr, "internal error: bad instruction");
}

#undef NEXT
#undef DISPATCH
#undef RELOAD
#undef BRANCH_ON
#undef CHECK_INTERRUPT
#undef CHECKPOINT

// ---- inline op registry ----------------------------------------------------------------------

void VmImpl::register_inline_ops(Environment* core) {
  static const struct {
    const char* name;
    Op op;
  } kInline[] = {
      {"+", Op::kAdd},     {"-", Op::kSub},       {"*", Op::kMul},         {"<", Op::kLt},
      {"<=", Op::kLe},     {">", Op::kGt},        {">=", Op::kGe},         {"=", Op::kNumEq},
      {"eq?", Op::kEq},    {"car", Op::kCar},     {"cdr", Op::kCdr},       {"cons", Op::kCons},
      {"null?", Op::kNullP}, {"pair?", Op::kPairP}, {"not", Op::kNot},     {"zero?", Op::kZeroP},
      {"vector-ref", Op::kVectorRef}, {"vector-set!", Op::kVectorSet},
      {"string-ref", Op::kStringRef}, {"string-length", Op::kStringLength},
      {"vector-length", Op::kVectorLength},
  };
  for (auto& e : kInline) {
    Value b = core->lookup(intern(e.name));
    if (!has_type(b, Type::GlobalCell)) continue;
    Value prim = b.as<GlobalCell>()->value;
    if (!is_primitive(prim)) continue;
    inline_ops[prim.bits] = e.op;
    roots.push_back(prim);
    b.obj()->header |= kInlinedCell;
  }
}

// ---- small public helpers --------------------------------------------------------------------

Value parameter_value(Vm&, Value param) { return param.as<Parameter>()->value; }

Value make_parameter(Value init, Value converter) {
  Parameter* p = gc_alloc_object<Parameter>(Type::Parameter, sizeof(Parameter));
  p->value = init;
  p->converter = converter;
  return make_ptr(p);
}

std::string procedure_name(Value proc) {
  if (is_closure(proc)) {
    Value n = proc.as<Closure>()->proto->name;
    return is_symbol(n) ? symbol_name(n) : "";
  }
  if (is_primitive(proc)) return proc.as<Primitive>()->name;
  return "";
}

bool is_procedure(Value v) {
  if (!v.is_ptr()) return false;
  Type t = v.obj()->type();
  return t == Type::Closure || t == Type::Primitive || t == Type::Continuation || t == Type::Parameter;
}

}  // namespace quasi
