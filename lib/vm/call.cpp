// call.cpp — calls and returns in the VM: entering any kind of procedure (closures, primitives,
// the VM's control operations, continuations, parameters), the nested runs that C++ calls into
// Scheme start, errors turned into Scheme raises with locations and backtraces, poll points
// (interrupts and limits), and the hand-over to machine code at checkpoints.
//
// Owner: ir (split out of vm.cpp). Invariants: vm_impl.hpp.
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/cstack.hpp"
#include "core/error.hpp"
#include "eval/embedded.hpp"
#include "ir/ir.hpp"
#include "jit/jit.hpp"  // the checkpoint's entry points into the backend (the VM's one upward include)
#include "vm/profile.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {

namespace {
// The name an arity error gives the procedure: an anonymous lambda is named by where it is
// written, so "(map (lambda (a b) ...) l)" says which lambda takes two arguments.
std::string name_of(Value proc) {
  std::string n = procedure_name(proc);
  if (!n.empty()) return n;
  SrcLoc at = is_closure(proc) ? SrcLoc::unpack(proc.as<Closure>()->proto->loc) : SrcLoc{};
  return at.known() ? "#<procedure at " + at.to_string() + ">" : "#<procedure>";
}
}  // namespace

// ---- calls and returns -----------------------------------------------------------------------

const Insn* VmImpl::enter(int64_t nfp, int64_t argc, const Insn* ret_pc, int64_t dst, bool tail) {
  for (;;) {
    Value f = stack[nfp];
    if (!f.is_ptr()) type_error("application", "a procedure", f);
    switch (f.obj()->type()) {
      case Type::Closure: {
        Proto* p = clause_accepting(f.as<Closure>()->proto, argc);
        if (!p) {
          Proto* first = f.as<Closure>()->proto;
          if (first->next_clause)
            throw_condition("arity", name_of(f).c_str(), "no clause accepts " + std::to_string(argc) + " argument" + (argc == 1 ? "" : "s"));
          arity_error(name_of(f).c_str(), first->nparams, first->has_rest ? -1 : first->nparams, int(argc));
        }
        // A tail call reuses the caller's frame: the callee and its arguments move down to fp.
        // Only here, once the call is known to go ahead: the other kinds of procedure run on
        // their arguments where they are (a primitive returns from the caller's frame; apply,
        // call/cc, ... rearrange them and come back here), so until a closure is entered the
        // caller's parameters stay in their registers and an error shows the caller's own
        // arguments in its backtrace line, not the callee's.
        if (tail && nfp != fp) {
          std::memmove(stack + fp, stack + nfp, sizeof(Value) * (argc + 1));
          nfp = fp;
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
              if (!is_procedure(stack[nfp + 1])) type_error("apply", "a procedure", stack[nfp + 1]);
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
            case kVmCallCC:
            case kVmCallEC: {
              // Checked before the capture, so the error names call/cc, not the application.
              if (!is_procedure(stack[nfp + 1])) type_error(pr->name, "a procedure", stack[nfp + 1]);
              Value k = pr->vm_op == kVmCallEC ? capture_escape(ret_pc, dst, tail) : capture(nfp, ret_pc, dst, tail);
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
        return deliver(pr->fn(*vm, pr, int(argc), stack + nfp + 1), ret_pc, dst, tail);
      }
      case Type::Continuation: {
        Continuation* k = f.as<Continuation>();
        // A continuation of a C++ call that has returned cannot be resumed: say so here, in the
        // caller's dynamic state, before any dynamic-wind extent is left (a guard around the call
        // catches it).
        if (k->run_id() != run_id && std::find(active_runs.begin(), active_runs.end(), k->run_id()) == active_runs.end())
          throw_condition("error", "continuation", "cannot resume a continuation captured inside a C++ call that has returned");
        if (dynamic_state_differs(k) &&
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
        if (k->run_id() == run_id) return reinstate(k, v);
        throw ContinuationJump{k, v};  // a run below this one (checked above)
      }
      case Type::Parameter: {
        Parameter* prm = f.as<Parameter>();
        if (argc == 0) return deliver(prm->value, ret_pc, dst, tail);
        // (p v) sets the current value (as Chez, Chibi and Larceny do; R7RS leaves it open),
        // through the converter: (%parameter-assign p v) when there is one.
        if (argc != 1) arity_error("parameter", 0, 1, int(argc));
        if (prm->converter == kFalse) {
          prm->value = stack[nfp + 1];
          return deliver(kUnspecified, ret_pc, dst, tail);
        }
        if (parameter_assign_cell == kFalse || parameter_assign_cell.as<GlobalCell>()->value == kUnbound)
          arity_error("parameter", 0, 0, int(argc));
        ensure_stack(nfp + 4);
        if (!tail && nfp + 3 > top) top = nfp + 3;
        stack[nfp + 2] = stack[nfp + 1];
        stack[nfp + 1] = f;
        stack[nfp] = parameter_assign_cell.as<GlobalCell>()->value;
        argc = 2;
        continue;
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

namespace {

// A frame's parameters (and rest list) as ((name . value) ...), name #f when unknown, read from
// its registers: parameters keep
// their registers for the whole call (the compiler allocates temporaries above them), so these
// are the arguments, or the values a loop last gave them. Assigned parameters live in boxes.
constexpr int kMaxFrameArguments = 8;

Value frame_arguments(const Proto* p, const Value* base) {
  const LambdaClause* clause = nullptr;
  if (p->source)
    for (LambdaClause* c : p->source->clauses)
      if (int32_t(c->params.size()) == p->nparams && (c->rest != nullptr) == p->has_rest) clause = c;
  int n = std::min(p->nparams + (p->has_rest ? 1 : 0), kMaxFrameArguments);
  Value args = kNil;
  for (int i = n - 1; i >= 0; i--) {
    Value v = base[1 + i];
    const Var* var = clause ? (i < p->nparams ? clause->params[i] : clause->rest) : nullptr;
    if (var && var->assigned && has_type(v, Type::Box)) v = v.as<Box>()->value;
    if (v == kUnbound) v = kUnspecified;
    args = cons(cons(var ? var->name : kFalse, v), args);
  }
  return args;
}

// Scheme code that ships with Quasi: the prelude ("prelude/...") and the embedded libraries
// ("<quasi>/srfi/1-body.scm"). An error raised in it is reported at the user's call site, and
// the library procedure the user called is the backtrace line that names it.
bool in_library_code(SrcLoc l) {
  if (!l.known()) return false;
  const std::string& f = source_file_name(l.file);
  return f.rfind("prelude/", 0) == 0 || is_embedded_name(f);
}

}  // namespace

Value VmImpl::backtrace(Value* library_entry) const {
  constexpr int kMaxFrames = 64;
  gc_vector<Value> records;  // visible to the collector while more records are allocated
  int64_t total = 0;
  auto add = [&](Proto* p, int64_t base, SrcLoc at) {
    if (!p || (is_symbol(p->name) && std::string_view(symbol_name(p->name)) == "toplevel")) return;
    total++;
    if (int(records.size()) >= kMaxFrames) return;
    Value name = is_symbol(p->name) ? make_string_utf8(symbol_name(p->name)) : kFalse;
    Value where = at.known() ? make_string_utf8(at.to_string()) : kFalse;
    bool internal = in_library_code(SrcLoc::unpack(p->loc));
    Value record = make_vector(5);
    Value* r = record.as<Vector>()->items();
    r[0] = name;
    r[1] = where;
    r[2] = frame_arguments(p, stack + base);
    r[3] = make_bool(internal);
    r[4] = make_bool(p->has_rest && p->nparams < kMaxFrameArguments);  // the last is the rest list
    records.push_back(record);
  };
  add(cur_proto, fp, location_of(error_pc));
  // frames[i] is the state of a caller, saved when it made the call now running above it.
  for (int64_t i = nframes - 1; i >= 0; i--) {
    const Frame& f = frames[i];
    if (!f.pc || !f.proto) continue;  // a barrier (C++ called Scheme)
    add(f.proto, f.fp, SrcLoc::unpack(f.proto->locs[f.pc - 1 - f.proto->code]));
  }
  // Raised inside library code: the outermost library frame of the innermost run, the
  // procedure the user's code called, is shown (not hidden as internal) at the user's call site
  // (the caller's record says where it made the call; without one, a tail call or the top level
  // made it: user_location finds the site). Unless that frame is a %helper the procedure
  // tail-called: the error message names the procedure.
  if (in_library_code(location_of(error_pc)) && !records.empty()) {
    size_t entry = 0;
    while (entry + 1 < records.size() && records[entry + 1].as<Vector>()->items()[3] == kTrue) entry++;
    Value* r = records[entry].as<Vector>()->items();
    if (r[3] == kTrue && !(is_string(r[0]) && string_to_utf8(r[0]).rfind('%', 0) == 0)) {
      if (library_entry) *library_entry = r[0];
      SrcLoc site = user_location();
      r[1] = entry + 1 < records.size() ? records[entry + 1].as<Vector>()->items()[1]
             : site.known()               ? make_string_utf8(site.to_string())
                                          : kFalse;
      r[3] = kFalse;
    }
  }
  Value v = make_vector(int64_t(records.size()) + 1, make_fixnum(total));
  std::copy(records.begin(), records.end(), v.as<Vector>()->items() + 1);
  return v;
}

SrcLoc VmImpl::error_location() const {
  SrcLoc here = location_of(error_pc);
  if (!in_library_code(here)) return here;
  SrcLoc user = user_location();
  return user.known() ? user : here;
}

SrcLoc VmImpl::user_location() const {
  auto in_user_code = [](SrcLoc l) { return l.known() && !in_library_code(l); };
  SrcLoc here = location_of(error_pc);
  if (in_user_code(here)) return here;
  for (int64_t i = nframes - 1; i >= 0; i--) {
    const Frame& f = frames[i];
    if (!f.pc || !f.proto) continue;
    SrcLoc l = SrcLoc::unpack(f.proto->locs[f.pc - 1 - f.proto->code]);
    if (in_user_code(l)) return l;
  }
  return in_user_code(form_location) ? form_location : SrcLoc{};
}

const Insn* VmImpl::raise_from_error(Value payload) {
  if (is_condition(payload)) {
    Condition* c = payload.as<Condition>();
    if (c->loc == 0) c->loc = error_location().pack();
    if (!is_vector(c->backtrace)) {
      Value entry = kFalse;
      c->backtrace = backtrace(&entry);
      // A library procedure calling something the user gave it that is no procedure, as in
      // (call-with-values 5 list): the error names the library procedure the user called, not
      // the application inside it (the message is the same as a primitive's own check).
      if (is_string(entry) && c->who == intern("application")) c->who = intern(string_to_utf8(entry).c_str());
    }
  }
  last_raise_where = error_location();
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

// ---- the JIT's checkpoints ----

const Insn* VmImpl::checkpoint(const Insn* pc) {
  Proto* p = cur_proto;
  if (!p->jit) {
    if (p->jit_state != kJitNone || !jit.compile_now(p->hotness)) return pc;
    if (!jit_compile(*this, p, jit.reason())) return pc;
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
      if (j.k->run_id() != run_id) throw;
      pc = reinstate(j.k, j.value);
    }
  }
}

namespace {
thread_local Vm* t_running_vm = nullptr;
}  // namespace

Vm* running_vm() { return t_running_vm; }

void raise_pending_interrupt() {
  Vm* vm = t_running_vm;
  if (vm && vm->interrupt_requested.exchange(false)) throw_condition("interrupt", nullptr, "interrupted");
}

Value VmImpl::apply(Value proc, int argc, const Value* argv) {
  // Scheme -> C++ (a host procedure, a primitive taking a procedure) -> apply -> Scheme ... nests
  // on the C stack, which the VM's own stack limits do not see.
  if (stack_exhausted())
    throw_condition("stack-overflow", nullptr,
                    "recursion too deep: the C stack is exhausted by calls nested through C++");
  // The caller's state, put back however this call ends: a C++ exception leaves the caller's
  // frames intact, and a normal return leaves its top where it was. (The barrier frame records
  // the top with the arguments above it, and a continuation of an earlier outermost run returns
  // through that run's barrier: restoring from the frame leaked argc + 1 slots per call, so
  // every top-level form grew the stack each later capture copies.)
  struct State {
    Vm* running;  // the thread's running VM before this call
    VmImpl* vm;
    int64_t nframes, fp, top;
    Proto* proto;
    uint64_t run_id;
    const Insn* error_pc;  // the caller's call site: an error leaving this run is located there
    Continuation* shared_k;
    ~State() {
      t_running_vm = running;
      vm->run_depth--;
      vm->run_id = run_id;
      vm->error_pc = error_pc;
      if (!vm->active_runs.empty()) vm->active_runs.pop_back();
      if (nframes < vm->low_frame) vm->low_frame = nframes;
      // Machine code that made this call returns through its own frames with `ret`, which does
      // not lower the mark (x64_emit.cpp, lower_shared_mark): a capture or re-entry in here
      // must not be shared from once it returns.
      if (vm->shared_k != shared_k) {
        vm->shared_k = nullptr;
        vm->low_frame = 0;
      }
      vm->nframes = nframes;
      vm->fp = fp;
      vm->top = top;
      vm->cur_proto = proto;
    }
  } saved{t_running_vm, this, nframes, fp, top, cur_proto, run_id, error_pc, shared_k};
  t_running_vm = vm;
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
  return execute(pc);
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
  alloc_base = tl_allocated_bytes;
  limit_error.set(kFalse);
  interrupt_requested.store(false);  // an interrupt sent while nothing ran is dropped
  if (impl) impl->rearm_poll();
}

void Vm::request_interrupt() {
  interrupt_requested.store(true);
  if (impl) impl->poll_countdown.store(0, std::memory_order_relaxed);
}

void Vm::request_profile_sample() {
  profile_sample_requested.store(true, std::memory_order_relaxed);
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
  if (vm->profile_sample_requested.load(std::memory_order_relaxed)) {
    vm->profile_sample_requested.store(false, std::memory_order_relaxed);
    if (vm->profiler) vm->profiler->sample(*this);
  }
  if (vm->interrupt_requested.load(std::memory_order_relaxed)) {
    vm->interrupt_requested.store(false);
    throw_condition("interrupt", nullptr, "interrupted");
  }
  const char* exceeded = nullptr;
  if (vm->step_limit && vm->steps >= vm->step_limit) exceeded = "step limit exceeded";
  else if (vm->deadline_ns && steady_now_ns() >= vm->deadline_ns) exceeded = "time limit exceeded";
  else if (vm->alloc_limit && tl_allocated_bytes - vm->alloc_base > vm->alloc_limit)
    exceeded = "allocation limit exceeded";
  if (!exceeded) return;
  // Not raised in Scheme: a handler in the runaway script must not be able to swallow it.
  Value c = make_condition(intern("limit"), kFalse, make_string_utf8(exceeded), kNil, location_of(pc));
  c.as<Condition>()->backtrace = backtrace();
  vm->limit_error.set(c);
  throw UncaughtRaise{c, SrcLoc{}};
}

// ---- limits inside one long primitive call (core/alloc_watch.hpp) ----------------------------

namespace {
thread_local Vm* t_limited_vm = nullptr;
thread_local bool t_in_watch = false;  // making the limit's condition allocates too
// Interned once, outside the watch: the watch runs inside allocations, some of them made while
// the symbol table's lock is held (intern allocating a new symbol), so it must not intern.
// Statics are roots of the collector, so these symbols stay alive.
struct LimitSymbols {
  Value limit, interrupt;
};
const LimitSymbols& limit_symbols() {
  static const LimitSymbols s{intern("limit"), intern("interrupt")};
  return s;
}

void check_limits(size_t upcoming, const char* who, uint64_t steps) {
  Vm* vm = t_limited_vm;
  if (!vm || t_in_watch) return;
  // Once stopped, every further check stops again: compiled code's runtime routines swallow the
  // first throw and hand the instruction back to the interpreter, and C++ code may catch it.
  if (vm->limit_error.get() != kFalse) throw UncaughtRaise{vm->limit_error.get(), SrcLoc{}};
  // `who` is interned below only when given: the callers that name themselves (big numbers,
  // equal?, write) never run inside intern.
  if (vm->interrupt_requested.load(std::memory_order_relaxed)) {
    vm->interrupt_requested.store(false);
    t_in_watch = true;
    Value c;
    try {
      c = make_condition(limit_symbols().interrupt, who ? intern(who) : kFalse, make_string_utf8("interrupted"), kNil);
    } catch (...) {
      t_in_watch = false;
      throw;
    }
    t_in_watch = false;
    throw SchemeError{c};
  }
  const char* exceeded = nullptr;
  vm->steps += steps;
  if (vm->step_limit && vm->steps >= vm->step_limit)
    exceeded = "step limit exceeded";
  else if (vm->alloc_limit && tl_allocated_bytes + upcoming - vm->alloc_base > vm->alloc_limit)
    exceeded = "allocation limit exceeded";
  else if (vm->deadline_ns && steady_now_ns() >= vm->deadline_ns)
    exceeded = "time limit exceeded";
  if (!exceeded) return;
  t_in_watch = true;
  try {
    SrcLoc at;
    Value bt = kFalse;
    if (VmImpl* impl = vm->impl) {
      at = impl->location_of(impl->error_pc);
      bt = impl->backtrace();
    }
    Value c = make_condition(limit_symbols().limit, who ? intern(who) : kFalse, make_string_utf8(exceeded), kNil, at);
    if (is_vector(bt)) c.as<Condition>()->backtrace = bt;
    vm->limit_error.set(c);
  } catch (...) {
    t_in_watch = false;
    throw;
  }
  t_in_watch = false;
  throw UncaughtRaise{vm->limit_error.get(), SrcLoc{}};
}
}  // namespace

LimitScope::LimitScope(Vm* vm)
    : prev_vm_(t_limited_vm), prev_watch_(tl_alloc_watch), prev_set_(tl_limits_set) {
  limit_symbols();  // interned here, never inside the watch
  t_limited_vm = vm;
  tl_alloc_watch = check_limits;
  tl_limits_set = vm->time_limit_ns > 0 || vm->alloc_limit > 0;
}

LimitScope::~LimitScope() {
  t_limited_vm = prev_vm_;
  tl_alloc_watch = prev_watch_;
  tl_limits_set = prev_set_;
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

// The same for a chain of an arithmetic op (vm/proto.hpp): one call with every operand.
Value VmImpl::call_redefined_chain(const Insn* pc) {
  error_pc = pc;
  int n = pc[1].b;
  Value target = cur_proto->consts[pc[1].a];
  if (has_type(target, Type::GlobalCell)) target = target.as<GlobalCell>()->value;
  const Value* R = stack + fp;
  Value args[kMaxOpChain];
  args[0] = R[pc->b];
  args[1] = R[pc->c];
  for (int i = 1; i + 1 < n; i++) args[i + 1] = R[pc[2 * i].c];
  return apply(target, n, args);
}

}  // namespace quasi
