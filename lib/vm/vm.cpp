#include <sys/mman.h>

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
  Continuation* k = gc_alloc_object<Continuation>(Type::Continuation, sizeof(Continuation));
  int64_t nstack = tail ? fp : top;
  k->stack = static_cast<Value*>(gc_alloc(sizeof(Value) * (nstack + 1)));
  std::memcpy(k->stack, stack, sizeof(Value) * nstack);
  k->nstack = nstack;
  k->frames = static_cast<Frame*>(gc_alloc(sizeof(Frame) * (nframes + 1)));
  std::memcpy(static_cast<void*>(k->frames), frames, sizeof(Frame) * nframes);
  k->nframes = nframes;
  k->resume_pc = tail ? nullptr : ret_pc;
  k->resume_fp = fp;
  k->resume_top = top;
  k->resume_dst = dst;
  k->resume_proto = cur_proto;
  k->run_id = run_id;
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

const Insn* VmImpl::raise_from_error(Value payload) {
  if (is_condition(payload)) {
    Condition* c = payload.as<Condition>();
    if (c->loc == 0) c->loc = location_of(error_pc).pack();
    if (c->backtrace == kNil) c->backtrace = backtrace();
  }
  Value raise_proc = raise_cell == kFalse ? kUnbound : raise_cell.as<GlobalCell>()->value;
  if (raise_proc == kUnbound || run_depth == 0) throw UncaughtRaise{payload};
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
  if (c->header & kInlinedCell) builtins_redefined = true;
  if ((c->header & kWatchedCell) && watched_cell_written) watched_cell_written(cell);
}

[[noreturn]] static void unbound_variable(Value cell) {
  throw_condition("unbound", nullptr, std::string("unbound variable: ") + symbol_name(cell.as<GlobalCell>()->name),
                  list({cell.as<GlobalCell>()->name}));
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
    bool done = false;
    ~State() {
      vm->run_depth--;
      vm->run_id = run_id;
      if (!vm->active_runs.empty()) vm->active_runs.pop_back();
      if (!done) {
        vm->nframes = nframes;
        vm->fp = fp;
        vm->top = top;
        vm->cur_proto = proto;
      }
    }
  } saved{this, nframes, fp, top, cur_proto, run_id};
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

#define RELOAD()        \
  do {                  \
    R = stack + fp;     \
    K = cur_proto->consts; \
  } while (0)

#define CHECK_INTERRUPT()                                                  \
  do {                                                                     \
    if (vm->interrupt_requested.load(std::memory_order_relaxed)) {         \
      vm->interrupt_requested.store(false);                                \
      error_pc = pc;                                                       \
      throw_condition("interrupt", nullptr, "interrupted");                \
    }                                                                      \
  } while (0)

// Calls the current value of a builtin that compiled code inlined, after it was redefined.
#define CALL_REDEFINED(nargs, a0, a1, a2, dstreg)                                    \
  do {                                                                               \
    error_pc = pc;                                                                   \
    Value target = K[pc[1].a];                                                       \
    if (has_type(target, Type::GlobalCell)) target = target.as<GlobalCell>()->value; \
    int64_t nfp = top;                                                               \
    ensure_stack(nfp + 5);                                                           \
    top = nfp + 4;                                                                   \
    stack[nfp] = target;                                                             \
    stack[nfp + 1] = (a0);                                                           \
    stack[nfp + 2] = (a1);                                                           \
    stack[nfp + 3] = (a2);                                                           \
    pc = enter(nfp, (nargs), pc + 2, (dstreg), false);                               \
    if (!pc) return nullptr;                                                         \
    RELOAD();                                                                        \
  } while (0)

const Insn* VmImpl::loop(const Insn* pc) {
  Value* R;
  Value* K;
  RELOAD();
  for (;;) {
    const Insn i = *pc;
    switch (i.op) {
      case Op::kMove:
        R[i.a] = R[i.b];
        pc++;
        break;
      case Op::kConst:
        R[i.a] = K[i.b];
        pc++;
        break;
      case Op::kGlobalRef: {
        Value v = K[i.b].as<GlobalCell>()->value;
        if (v == kUnbound) {
          error_pc = pc;
          unbound_variable(K[i.b]);
        }
        R[i.a] = v;
        pc++;
        break;
      }
      case Op::kGlobalSet: {
        GlobalCell* c = K[i.b].as<GlobalCell>();
        if (c->value == kUnbound) {
          error_pc = pc;
          throw_condition("unbound", "set!", std::string("unbound variable: ") + symbol_name(c->name));
        }
        if (c->header & (kInlinedCell | kWatchedCell)) {
          error_pc = pc;
          cell_written(K[i.b], R[i.a]);
        } else {
          c->value = R[i.a];
        }
        pc++;
        break;
      }
      case Op::kGlobalDef: {
        GlobalCell* c = K[i.b].as<GlobalCell>();
        if (c->header & (kInlinedCell | kWatchedCell)) {
          error_pc = pc;
          cell_written(K[i.b], R[i.a]);
        } else {
          c->value = R[i.a];
        }
        pc++;
        break;
      }
      case Op::kFree:
        R[i.a] = R[0].as<Closure>()->free()[i.b];
        pc++;
        break;
      case Op::kFreeUnbox:
        R[i.a] = R[0].as<Closure>()->free()[i.b].as<Box>()->value;
        pc++;
        break;
      case Op::kBox:
        R[i.a] = make_box(R[i.a]);
        pc++;
        break;
      case Op::kUnbox:
        R[i.a] = R[i.b].as<Box>()->value;
        pc++;
        break;
      case Op::kSetBox:
        R[i.a].as<Box>()->value = R[i.b];
        pc++;
        break;
      case Op::kClosure: {
        Proto* p = K[i.b].as<Proto>();
        Value cv = make_closure(p, p->ncaptures);
        Closure* c = cv.as<Closure>();
        Value* self_free = p->ncaptures ? R[0].as<Closure>()->free() : nullptr;
        for (int32_t k = 0; k < p->ncaptures; k++) {
          Capture cap = p->captures[k];
          c->free()[k] = cap.from_free ? self_free[cap.index] : R[cap.index];
        }
        R[i.a] = cv;
        pc++;
        break;
      }
      case Op::kFixClosure:
        R[i.a].as<Closure>()->free()[i.b] = R[i.c];
        pc++;
        break;
      case Op::kJump: {
        int32_t off = jump_offset(i);
        pc += 1 + off;
        if (off < 0) CHECK_INTERRUPT();
        break;
      }
      case Op::kJumpIfFalse:
        if (R[i.a] == kFalse) pc += 1 + jump_offset(i);
        else pc++;
        break;
      case Op::kCall:
        CHECK_INTERRUPT();
        error_pc = pc;
        pc = enter(fp + i.a, i.b, pc + 1, i.a, false);
        if (!pc) return nullptr;
        RELOAD();
        break;
      case Op::kTailCall:
        CHECK_INTERRUPT();
        error_pc = pc;
        pc = enter(fp + i.a, i.b, nullptr, 0, true);
        if (!pc) return nullptr;
        RELOAD();
        break;
      case Op::kReturn:
        pc = do_return(R[i.a]);
        if (!pc) return nullptr;
        RELOAD();
        break;
      case Op::kCheckBound:
        if (R[i.a] == kUnbound) {
          error_pc = pc;
          throw_condition("unbound", nullptr, "variable used before its initialization");
        }
        pc++;
        break;

      // ---- inline primitives ----
      case Op::kAdd: {
        Value x = R[i.b], y = R[i.c];
        int64_t r;
        if ((x.bits & y.bits & 1) && !builtins_redefined &&
            !__builtin_add_overflow(int64_t(x.bits), int64_t(y.bits - 1), &r)) {
          R[i.a] = Value{uint64_t(r)};
        } else if (builtins_redefined) {
          CALL_REDEFINED(2, x, y, kFalse, i.a);
          break;
        } else {
          error_pc = pc;
          R[i.a] = num_add(x, y);
        }
        pc += 2;
        break;
      }
      case Op::kSub: {
        Value x = R[i.b], y = R[i.c];
        int64_t r;
        if ((x.bits & y.bits & 1) && !builtins_redefined &&
            !__builtin_sub_overflow(int64_t(x.bits), int64_t(y.bits - 1), &r)) {
          R[i.a] = Value{uint64_t(r)};
        } else if (builtins_redefined) {
          CALL_REDEFINED(2, x, y, kFalse, i.a);
          break;
        } else {
          error_pc = pc;
          R[i.a] = num_sub(x, y);
        }
        pc += 2;
        break;
      }
      case Op::kMul: {
        Value x = R[i.b], y = R[i.c];
        int64_t r;
        if ((x.bits & y.bits & 1) && !builtins_redefined &&
            !__builtin_mul_overflow(x.fixnum(), int64_t(y.bits - 1), &r)) {
          R[i.a] = Value{uint64_t(r) + 1};
        } else if (builtins_redefined) {
          CALL_REDEFINED(2, x, y, kFalse, i.a);
          break;
        } else {
          error_pc = pc;
          R[i.a] = num_mul(x, y);
        }
        pc += 2;
        break;
      }
#define COMPARE_OP(OPNAME, CMP, SLOW)                                  \
  case Op::OPNAME: {                                                   \
    Value x = R[i.b], y = R[i.c];                                      \
    if ((x.bits & y.bits & 1) && !builtins_redefined) {                \
      R[i.a] = make_bool(int64_t(x.bits) CMP int64_t(y.bits));         \
    } else if (builtins_redefined) {                                   \
      CALL_REDEFINED(2, x, y, kFalse, i.a);                            \
      break;                                                           \
    } else {                                                           \
      error_pc = pc;                                                   \
      R[i.a] = make_bool(SLOW(x, y));                                  \
    }                                                                  \
    pc += 2;                                                           \
    break;                                                             \
  }
      COMPARE_OP(kLt, <, num_lt)
      COMPARE_OP(kLe, <=, num_le)
      COMPARE_OP(kGt, >, num_gt)
      COMPARE_OP(kGe, >=, num_ge)
      COMPARE_OP(kNumEq, ==, num_eq)
#undef COMPARE_OP
      case Op::kEq:
        if (builtins_redefined) {
          CALL_REDEFINED(2, R[i.b], R[i.c], kFalse, i.a);
          break;
        }
        R[i.a] = make_bool(R[i.b] == R[i.c]);
        pc += 2;
        break;
      case Op::kCar:
      case Op::kCdr: {
        Value x = R[i.b];
        if (builtins_redefined) {
          CALL_REDEFINED(1, x, kFalse, kFalse, i.a);
          break;
        }
        if (!is_pair(x)) {
          error_pc = pc;
          type_error(i.op == Op::kCar ? "car" : "cdr", "a pair", x);
        }
        R[i.a] = i.op == Op::kCar ? car(x) : cdr(x);
        pc += 2;
        break;
      }
      case Op::kCons:
        if (builtins_redefined) {
          CALL_REDEFINED(2, R[i.b], R[i.c], kFalse, i.a);
          break;
        }
        R[i.a] = cons(R[i.b], R[i.c]);
        pc += 2;
        break;
      case Op::kNullP:
      case Op::kPairP:
      case Op::kNot: {
        Value x = R[i.b];
        if (builtins_redefined) {
          CALL_REDEFINED(1, x, kFalse, kFalse, i.a);
          break;
        }
        R[i.a] = make_bool(i.op == Op::kNullP ? x == kNil : i.op == Op::kPairP ? is_pair(x) : x == kFalse);
        pc += 2;
        break;
      }
      case Op::kZeroP: {
        Value x = R[i.b];
        if (builtins_redefined) {
          CALL_REDEFINED(1, x, kFalse, kFalse, i.a);
          break;
        }
        if (x.is_fixnum()) {
          R[i.a] = make_bool(x.bits == make_fixnum(0).bits);
        } else {
          error_pc = pc;
          if (!is_number(x)) type_error("zero?", "a number", x);
          R[i.a] = make_bool(is_flonum(x) ? flonum_value(x) == 0.0 : num_eq(x, make_fixnum(0)));
        }
        pc += 2;
        break;
      }
      case Op::kVectorRef: {
        Value v = R[i.b], k = R[i.c];
        if (builtins_redefined) {
          CALL_REDEFINED(2, v, k, kFalse, i.a);
          break;
        }
        if (is_vector(v) && k.is_fixnum() && uint64_t(k.fixnum()) < uint64_t(v.as<Vector>()->length())) {
          R[i.a] = v.as<Vector>()->items()[k.fixnum()];
        } else {
          error_pc = pc;
          if (!is_vector(v)) type_error("vector-ref", "a vector", v);
          check_index("vector-ref", k, v.as<Vector>()->length());
        }
        pc += 2;
        break;
      }
      case Op::kVectorSet: {
        Value v = R[i.a], k = R[i.b], x = R[i.c];
        if (builtins_redefined) {
          CALL_REDEFINED(3, v, k, x, nfp - fp);
          break;
        }
        if (is_vector(v) && k.is_fixnum() && uint64_t(k.fixnum()) < uint64_t(v.as<Vector>()->length()) &&
            !v.obj()->immutable()) {
          v.as<Vector>()->items()[k.fixnum()] = x;
        } else {
          error_pc = pc;
          if (!is_vector(v)) type_error("vector-set!", "a vector", v);
          if (v.obj()->immutable()) type_error("vector-set!", "a mutable vector", v);
          check_index("vector-set!", k, v.as<Vector>()->length());
        }
        pc += 2;
        break;
      }
      case Op::kCount:
        throw_condition("error", nullptr, "internal error: bad instruction");
    }
  }
}

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
