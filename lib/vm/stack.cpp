// stack.cpp — the VM's stacks: reserving the value and frame stacks, registering them with the
// collector, growing the used part, frames, resetting after an error, and continuations (which
// copy what changed of the used stacks since the last capture or re-entry, and copy the chain of
// segments back).
//
// Owner: ir (split out of vm.cpp). Invariants: vm_impl.hpp.
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <vector>

#define GC_THREADS 1
#include <gc/gc_mark.h>

#include "core/alloc_watch.hpp"
#include "core/error.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {

// ---- stack memory and GC roots ---------------------------------------------------------------

namespace {
// Reserved, not committed: pages are touched only as deep as the program goes.
constexpr int64_t kStackValues = int64_t(64) << 20;  // 512 MiB of address space
constexpr int64_t kMaxFrames = int64_t(16) << 20;
// Both regions start page-aligned, so the value stack's and the frame stack's busy ends would sit
// at equal offsets within a page; x86 then sees false store-to-load dependencies between them
// (4K aliasing). The frame stack starts this far into its first page instead.
constexpr size_t kFramesSkew = 2048 + 64 * 3;
// Kept free below the limits so a stack-overflow error can still run its handlers.
constexpr int64_t kStackHeadroom = 1 << 16;
constexpr int64_t kFramesHeadroom = 1 << 14;
// Stack memory is charged to the allocation count a megabyte at a time, the first one free.
constexpr int64_t kStackChargeBytes = int64_t(1) << 20;

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
      GC_push_all(&vm->shared_k, &vm->shared_k + 1);
      GC_push_all(&vm->last_context, &vm->last_context + 1);
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

// A Continuation::context.
Value make_context(Value winders, Value handlers, Value run_id) {
  Value v = make_vector(3, kFalse);
  Value* c = v.as<Vector>()->items();
  c[0] = winders;
  c[1] = handlers;
  c[2] = run_id;
  return v;
}

[[noreturn]] void stack_overflow() {
  throw_condition("stack-overflow", nullptr, "recursion too deep: the Scheme stack is exhausted");
}
}  // namespace

VmImpl::VmImpl(Vm* owner) : vm(owner) {
  set_jit_mode(jit_default_mode());
  stack = static_cast<Value*>(reserve(sizeof(Value) * kStackValues));
  stack_limit = kStackValues;
  frames = reinterpret_cast<Frame*>(static_cast<char*>(reserve(sizeof(Frame) * kMaxFrames + kFramesSkew)) + kFramesSkew);
  frames_limit = kMaxFrames;
  stack_charged = kStackChargeBytes / int64_t(sizeof(Value));
  frames_charged = kStackChargeBytes / int64_t(sizeof(Frame));
  restore_limits();
  // Until the engine binds %winders and %handlers (engine/engine.cpp): cells of our own holding
  // '(), so captures and re-entries read the cells without checking for them.
  for (Value* cell : {&winders_cell, &handlers_cell}) {
    *cell = make_global_cell(kFalse);
    cell->as<GlobalCell>()->value = kNil;
    roots.push_back(*cell);
  }
  last_context = make_context(kNil, kNil, make_fixnum(0));
  GC_call_with_alloc_lock(add_vm_locked, this);
}

VmImpl::~VmImpl() {
  GC_call_with_alloc_lock(remove_vm_locked, this);
  munmap(stack, sizeof(Value) * kStackValues);
  munmap(reinterpret_cast<char*>(frames) - kFramesSkew, sizeof(Frame) * kMaxFrames + kFramesSkew);
}

namespace {
// Raises a charge mark past `needed` (by at least a megabyte, never past `ceiling`), adds the new
// memory to the thread's allocation count and checks the limits (which may throw).
void charge_stack_memory(int64_t& charged, int64_t needed, int64_t ceiling, int64_t unit_bytes) {
  int64_t step = kStackChargeBytes / unit_bytes;
  int64_t next = std::min(ceiling, std::max(needed, charged) + step);
  uint64_t bytes = uint64_t(next - charged) * uint64_t(unit_bytes);
  charged = next;
  tl_allocated_bytes += bytes;
  watch_limits(0);
}
}  // namespace

// A stack (values or frames) needs `needed` units and has reached its soft limit: charge the next
// step of memory (the soft limit then moves up), or signal a stack overflow when only the headroom
// is left. Past the headroom already given to the handlers (both soft limits are raised to the
// hard ones together): out of memory.
void VmImpl::grow_stack_slow(int64_t needed, int64_t& charged, int64_t limit, int64_t headroom,
                             int64_t unit_bytes) {
  if (stack_soft_limit == stack_limit && frames_soft_limit == frames_limit) throw std::bad_alloc();
  if (needed <= limit - headroom) {
    charge_stack_memory(charged, needed, limit - headroom, unit_bytes);
    restore_limits();
    return;
  }
  // Let the error's handlers run in the headroom; the limits come back when the stack is
  // unwound by a continuation or a reset.
  stack_soft_limit = stack_limit;
  frames_soft_limit = frames_limit;
  set_frames_soft_end();
  stack_overflow();
}

void VmImpl::grow_value_stack(int64_t needed_top) {
  grow_stack_slow(needed_top, stack_charged, stack_limit, kStackHeadroom, sizeof(Value));
}

void VmImpl::push_frame(const Insn* ret_pc, int64_t dst) {
  if (nframes >= frames_soft_limit)
    grow_stack_slow(nframes + 1, frames_charged, frames_limit, kFramesHeadroom, sizeof(Frame));
  frames[nframes++] = Frame{ret_pc, fp, top, dst, cur_proto};
}

void VmImpl::restore_limits() {
  stack_soft_limit = std::min(stack_limit - kStackHeadroom, stack_charged);
  frames_soft_limit = std::min(frames_limit - kFramesHeadroom, frames_charged);
  set_frames_soft_end();
  stack_bound = std::min(high_water, stack_soft_limit);
  stack_bound_end = stack + stack_bound;
}

void VmImpl::reset() {
  nframes = 0;
  fp = top = 0;
  shared_k = nullptr;
  low_frame = 0;
  cur_proto = nullptr;
  run_depth = 0;
  run_id = 0;
  active_runs.clear();
  // Drop stale references left above the stack so they do not keep garbage alive.
  if (high_water > 0) std::memset(stack, 0, sizeof(Value) * std::min<int64_t>(high_water + 8, stack_limit));
  high_water = 0;
  restore_limits();
}

// ---- continuations ------------------------------------------------------------------------------

// The run and dynamic state a capture now belongs to (Continuation::context): the last one made
// while they have not changed since, so a program captures without a new vector each time.
Value VmImpl::capture_context() {
  Value w = winders_cell.as<GlobalCell>()->value, h = handlers_cell.as<GlobalCell>()->value;
  Value id = make_fixnum(int64_t(run_id));
  Value* c = last_context.as<Vector>()->items();
  if (c[0] == w && c[1] == h && c[2] == id) return last_context;
  return last_context = make_context(w, h, id);
}

// Where a continuation resumes, and its context: the same for a full continuation and an
// escape-only one.
void VmImpl::set_resume_point(Continuation* k, const Insn* ret_pc, int64_t dst, bool tail, Value context) {
  k->resume_pc = tail ? nullptr : ret_pc;
  k->resume_fp = int32_t(fp);
  k->resume_dst = int32_t(dst);
  k->resume_proto = cur_proto;
  k->context = context;
}

namespace {
// The continuation in k's chain that holds frame i (i < k->nframes).
const Frame& frame_in_chain(Continuation* k, int64_t i) {
  while (i < k->frame_base) k = k->parent;
  return k->frames()[i - k->frame_base];
}

// The copies are a few words or frames at a time: a loop beats a call of memcpy there.
template <class T>
void copy_items(T* dst, const T* src, int64_t n) {
  if (n > 16) {
    std::memcpy(static_cast<void*>(dst), src, sizeof(T) * size_t(n));
    return;
  }
  for (int64_t i = 0; i < n; i++) dst[i] = src[i];
}

// Where the stack still holds shared_k's content (vm_impl.hpp): below the lowest frame that has
// run since it became current.
int64_t shared_stack_bound(Continuation* s, int64_t low_frame) {
  int64_t b = low_frame < s->nframes ? frame_in_chain(s, low_frame).fp : s->resume_fp;
  return std::min<int64_t>(b, s->nstack);
}
}  // namespace

Value VmImpl::capture(int64_t nfp, const Insn* ret_pc, int64_t dst, bool tail, uint64_t session) {
  // The stack the continuation needs ends at the caller's frame (tail position) or at the
  // call's base: the registers from there up are the call's own and temporaries allocated after
  // it (vm/compiler.cpp allocates registers as a stack), dead where it resumes.
  int64_t nstack = tail ? fp : nfp;
  // What is still shared_k's (vm_impl.hpp) is not copied again: frames below low_frame, and the
  // stack below the lowest frame that has run since shared_k was made current.
  Continuation* parent = shared_k;
  int64_t sbase = 0, fbase = 0;
  if (parent) {
    fbase = std::min({low_frame, int64_t(parent->nframes), nframes});
    sbase = std::min(shared_stack_bound(parent, low_frame), nstack);
    // A link that holds nothing below the bases is skipped, so chains stay as short as the
    // number of distinct segments.
    while (parent && parent->stack_base >= sbase && parent->frame_base >= fbase) parent = parent->parent;
    if (!parent) sbase = fbase = 0;
  }
  int64_t ns = nstack - sbase, nf = nframes - fbase;
  // Machine code `ret`s through a frame of its own run without lowering the mark: from now on
  // the frames below the mark that such a return could pop must take the slow return path. They
  // are all above fbase (below it nothing changed since the last capture or re-entry).
  if (session != 0)
    for (int64_t i = fbase; i < nframes; i++)
      if (frames[i].session == session) frames[i].session = session | kFrameMarked;
  // One block: the object, then the stack segment, then the frames segment.
  size_t bytes = sizeof(Continuation) + sizeof(Value) * size_t(ns) + sizeof(Frame) * size_t(nf);
  Continuation* k = static_cast<Continuation*>(bytes <= kSmallListWords * 8 ? gc_alloc_small(bytes) : gc_alloc(bytes));
  k->set_header(parent ? parent->depth() + 1 : 0);
  k->nstack = int32_t(nstack);
  k->nframes = int32_t(nframes);
  k->stack_base = int32_t(sbase);
  k->frame_base = int32_t(fbase);
  k->parent = parent;
  copy_items(k->stack(), stack + sbase, ns);
  copy_items(k->frames(), frames + fbase, nf);
  // Last, when fewer registers are live (it is a check, seldom an allocation, and k is complete
  // but for its resume point: the collector scans it whole, finding it on the C++ stack).
  set_resume_point(k, ret_pc, dst, tail, capture_context());
  shared_k = k;
  low_frame = nframes;
  return make_ptr(k);
}

// Escape-only: the frames below stay where they are, so nothing is copied. Only the top frame of
// the first nframes is kept, to check at the escape that they are still the same frames.
Value VmImpl::capture_escape(const Insn* ret_pc, int64_t dst, bool tail) {
  Value context = capture_context();
  Continuation* k = gc_alloc_object<Continuation>(Type::Continuation, sizeof(Continuation) + sizeof(Frame));
  k->set_header(-1);
  k->nstack = k->stack_base = int32_t(top);
  k->frame_base = 0;
  k->parent = nullptr;
  k->nframes = int32_t(nframes);
  if (nframes > 0) k->frames()[0] = frames[nframes - 1];
  set_resume_point(k, ret_pc, dst, tail, context);
  return make_ptr(k);
}

const Insn* VmImpl::reinstate(Continuation* k, Value v) {
  if (k->escape_only()) {
    auto same = [](const Frame& a, const Frame& b) {
      return a.pc == b.pc && a.fp == b.fp && a.resume_top() == b.resume_top() && (!a.pc || a.result_slot() == b.result_slot()) && a.proto == b.proto &&
             (a.session & ~kFrameMarked) == (b.session & ~kFrameMarked);
    };
    if (nframes < k->nframes || (k->nframes > 0 && !same(frames[k->nframes - 1], k->frames()[0])))
      throw_condition("error", "continuation", "an escape continuation was called after its extent ended");
    unwind_limits();
    ensure_stack(k->resume_top());
    if (k->nframes < low_frame) low_frame = k->nframes;
    nframes = k->nframes;
    fp = k->resume_fp;
    top = k->resume_top();
    cur_proto = k->resume_proto;
    if (!k->resume_pc) return return_from_resumed(v);
    stack[fp + k->resume_dst] = v;
    return k->resume_pc;
  }
  unwind_limits();
  ensure_stack(std::max<int64_t>(k->nstack, k->resume_top()));
  // What the stacks already hold of k is not copied: shared_k's content is still in place below
  // shared_stack_bound and low_frame, and where shared_k's chain and k's meet in a common link A,
  // both are A's content below the bases of the links above A in either chain.
  int64_t sdone = 0, fdone = 0;
  if (Continuation* a = shared_k) {
    int64_t sa = shared_stack_bound(a, low_frame), fa = std::min<int64_t>(low_frame, a->nframes);
    if (a == k) {
      // Re-entering the continuation made or entered last (ctak 72 %, half of fibc): the chains
      // meet at once.
      sdone = sa;
      fdone = fa;
    } else if (a->parent && a->parent == k->parent) {
      // A sibling of it (every re-entry in the callcc generator): they meet one link up.
      sdone = std::min<int64_t>({sa, a->stack_base, k->stack_base});
      fdone = std::min<int64_t>({fa, a->frame_base, k->frame_base});
    } else {
      int64_t sk = k->nstack, fk = k->nframes;
      Continuation* b = k;
      while (a && b && a != b) {
        if (a->depth() >= b->depth()) {
          sa = std::min<int64_t>(sa, a->stack_base);
          fa = std::min<int64_t>(fa, a->frame_base);
          a = a->parent;
        } else {
          sk = std::min<int64_t>(sk, b->stack_base);
          fk = std::min<int64_t>(fk, b->frame_base);
          b = b->parent;
        }
      }
      if (a && a == b) {
        sdone = std::min(sa, sk);
        fdone = std::min(fa, fk);
      }
    }
  }
  // Each link of the chain gives its segment of what is below the links above it.
  int64_t sl = k->nstack, fl = k->nframes;
  for (Continuation* c = k; c && (sl > sdone || fl > fdone); c = c->parent) {
    int64_t lo = std::max<int64_t>(c->stack_base, sdone);
    if (sl > lo) {
      copy_items(stack + lo, c->stack() + (lo - c->stack_base), sl - lo);
      sl = lo;
    }
    lo = std::max<int64_t>(c->frame_base, fdone);
    if (fl > lo) {
      copy_items(frames + lo, c->frames() + (lo - c->frame_base), fl - lo);
      fl = lo;
    }
  }
  shared_k = k;
  low_frame = k->nframes;
  nframes = k->nframes;
  fp = k->resume_fp;
  top = k->resume_top();
  // The resumed frame's registers from the call's base up are dead, but the collector scans
  // them: left as the deeper code wrote them (recent continuations, each holding its chain),
  // they kept fibc's garbage alive (peak RSS 24 -> 47 MB, 2x the time).
  for (int64_t i = k->nstack; i < top; i++) stack[i] = kFalse;
  cur_proto = k->resume_proto;
  if (!k->resume_pc) return return_from_resumed(v);
  stack[fp + k->resume_dst] = v;
  return k->resume_pc;
}

// ---- machine code's entries ----------------------------------------------------------------
// Flattened: capture and reinstate are inlined, so each is one call from machine code.

[[gnu::flatten]] uint64_t jit_capture_inline(VmImpl* vm, const Insn* pc, uint64_t session) noexcept {
  try {
    return vm->capture_inline(pc, session).bits;
  } catch (...) {
    return 0;
  }
}

[[gnu::flatten]] uint64_t jit_continue(VmImpl* vm, uint64_t kbits, int64_t argc, Value* args) noexcept {
  Continuation* k = Value{kbits}.as<Continuation>();
  if (k->run_id() != vm->run_id || vm->dynamic_state_differs(k)) return 0;
  try {
    Value v = argc == 1 ? args[0] : make_values(argc, args);
    const Insn* pc = vm->reinstate(k, v);
    return pc ? reinterpret_cast<uint64_t>(pc) : 1;
  } catch (...) {
    return 0;
  }
}

}  // namespace quasi
