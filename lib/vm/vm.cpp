// vm.cpp — the interpreter's run loop: one direct-threaded dispatch over the bytecode of
// vm/proto.hpp, with the inline fast paths of the builtins the compiler inlines (which builtins
// those are is their PrimFacts::inline_op, core/prim.hpp).
//
// Owner: ir (stacks are in stack.cpp, calls, returns, errors and poll points in call.cpp).
// Invariants (vm_impl.hpp): R = stack + fp is reloaded after anything that may move fp (a call,
// a return, a checkpoint); every inline op checks slow_inlines first (builtins_redefined, or the
// running code's Proto::inline_off) and then calls the cell's current value; a fast path that
// cannot handle its operands calls the generic routine with error_pc set, so errors name the
// instruction's source location.
#include <string>

#include "core/error.hpp"
#include "core/numbers.hpp"
#include "eval/environment.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {

bool zero_p(Value x) {
  if (!is_number(x)) type_error("zero?", "a number", x);
  return is_flonum(x) ? flonum_value(x) == 0.0 : num_eq(x, make_fixnum(0));
}

[[noreturn]] static void unbound_variable(Value cell) {
  throw_condition("unbound", nullptr, std::string("unbound variable: ") + symbol_name(cell.as<GlobalCell>()->name));
}

namespace {
inline Value imm_fixnum(uint16_t raw) { return make_fixnum(int16_t(raw)); }

// The fixnum fast paths of + - * on tagged words (fixnum n is the word 2n+1; both operands are
// fixnums): false on overflow, and the generic routine takes over.
inline bool fixnum_add(Value x, Value y, Value* r) {
  int64_t t;
  if (__builtin_add_overflow(int64_t(x.bits), int64_t(y.bits - 1), &t)) return false;
  *r = Value{uint64_t(t)};
  return true;
}
inline bool fixnum_sub(Value x, Value y, Value* r) {
  int64_t t;
  if (__builtin_sub_overflow(int64_t(x.bits), int64_t(y.bits - 1), &t)) return false;
  *r = Value{uint64_t(t)};
  return true;
}
inline bool fixnum_mul(Value x, Value y, Value* r) {
  int64_t t;
  if (__builtin_mul_overflow(x.fixnum(), int64_t(y.bits - 1), &t)) return false;
  *r = Value{uint64_t(t) + 1};
  return true;
}
}  // namespace

#define RELOAD()                                                  \
  do {                                                            \
    R = stack + fp;                                               \
    K = cur_proto->consts;                                        \
    slow_inlines = builtins_redefined || cur_proto->inline_off;   \
  } while (0)

#define DISPATCH() goto* kDispatch[size_t(pc->op)]
// Where machine code may take over (see VmImpl::checkpoint).
#define CHECKPOINT()                  \
  do {                                \
    if (jit.active) {                 \
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
      &&L_kFreeUnbox, &&L_kBox, &&L_kUnbox, &&L_kSetBox, &&L_kClosure, &&L_kFixClosure, &&L_kSetFree,
      &&L_kJump, &&L_kJumpIfFalse, &&L_kCall, &&L_kTailCall, &&L_kReturn, &&L_kCheckBound,
      &&L_kAdd, &&L_kSub, &&L_kMul, &&L_kLt, &&L_kLe, &&L_kGt, &&L_kGe, &&L_kNumEq, &&L_kEq,
      &&L_kCar, &&L_kCdr, &&L_kCons, &&L_kNullP, &&L_kPairP, &&L_kNot, &&L_kZeroP,
      &&L_kVectorRef, &&L_kVectorSet, &&L_kAddI, &&L_kSubI,
      &&L_kStringRef, &&L_kStringLength, &&L_kVectorLength, &&L_kCallCC,
      &&L_kBrLt, &&L_kBrLe, &&L_kBrGt, &&L_kBrGe, &&L_kBrNumEq, &&L_kBrEq,
      &&L_kBrLtI, &&L_kBrLeI, &&L_kBrGtI, &&L_kBrGeI, &&L_kBrNumEqI,
      &&L_kBrNull, &&L_kBrPair, &&L_kBrZero, &&L_kBrNot, &&L_kCount,
  };
  static_assert(sizeof(kDispatch) / sizeof(kDispatch[0]) == size_t(Op::kCount) + 1, "one label per op");
  Value* R;
  Value* K;
  bool slow_inlines;  // builtins_redefined, or the running code's inline_off
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
L_kSetFree:
  R[0].as<Closure>()->free()[pc->b] = R[pc->a];
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
        slow_inlines = builtins_redefined || p->inline_off;
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
L_kReturn:
  pc = do_return(R[pc->a]);
  if (!pc) return nullptr;
  RELOAD();
  CHECKPOINT();
  DISPATCH();
L_kCheckBound:
  if (R[pc->a] == kUnbound) {
    error_pc = pc;
    throw_condition("unbound", "letrec",
                    std::string(symbol_name(K[pc->b])) + " used before its initialization");
  }
  NEXT(1);

// ---- inline primitives: a fixnum (or pair, vector) fast path, the generic routine otherwise
#define ARITH_OP(OPNAME, YEXPR, FAST, SLOW)                                \
  L_##OPNAME : {                                                         \
    Value x = R[pc->b], y = YEXPR, r;                                    \
    if ((x.bits & y.bits & 1) && !slow_inlines && FAST(x, y, &r))        \
      R[pc->a] = r;                                                      \
    else if (slow_inlines && pc[1].b > 2) {                              \
      int links = pc[1].b - 1;                                           \
      Value v = call_redefined_chain(pc);                                \
      R[pc[2 * (links - 1)].a] = v;                                      \
      NEXT(2 * links);                                                   \
    } else if (slow_inlines)                                             \
      R[pc->a] = call_redefined(pc, 2, x, y, kFalse);                    \
    else                                                                 \
      error_pc = pc, R[pc->a] = SLOW(x, y);                              \
    NEXT(2);                                                             \
  }
  ARITH_OP(kAdd, R[pc->c], fixnum_add, num_add)
  ARITH_OP(kSub, R[pc->c], fixnum_sub, num_sub)
  ARITH_OP(kMul, R[pc->c], fixnum_mul, num_mul)
  ARITH_OP(kAddI, imm_fixnum(pc->c), fixnum_add, num_add)
  ARITH_OP(kSubI, imm_fixnum(pc->c), fixnum_sub, num_sub)
#undef ARITH_OP

#define COMPARE_OP(OPNAME, CMP, SLOW)                                    \
  L_##OPNAME : {                                                         \
    Value x = R[pc->b], y = R[pc->c];                                    \
    if ((x.bits & y.bits & 1) && !slow_inlines)                    \
      R[pc->a] = make_bool(int64_t(x.bits) CMP int64_t(y.bits));         \
    else if (slow_inlines)                                         \
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
    if ((x.bits & y.bits & 1) && !slow_inlines)                     \
      BRANCH_ON(int64_t(x.bits) CMP int64_t(y.bits));                     \
    if (slow_inlines)                                               \
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
  if (slow_inlines) BRANCH_ON(call_redefined(pc, 2, R[pc->a], R[pc->b], kFalse).is_true());
  BRANCH_ON(R[pc->a] == R[pc->b]);
L_kBrNull:
  if (slow_inlines) BRANCH_ON(call_redefined(pc, 1, R[pc->a], kFalse, kFalse).is_true());
  BRANCH_ON(R[pc->a] == kNil);
L_kBrPair:
  if (slow_inlines) BRANCH_ON(call_redefined(pc, 1, R[pc->a], kFalse, kFalse).is_true());
  BRANCH_ON(is_pair(R[pc->a]));
L_kBrNot:
  if (slow_inlines) BRANCH_ON(call_redefined(pc, 1, R[pc->a], kFalse, kFalse).is_true());
  BRANCH_ON(R[pc->a] == kFalse);
L_kBrZero: {
  Value x = R[pc->a];
  if (slow_inlines) BRANCH_ON(call_redefined(pc, 1, x, kFalse, kFalse).is_true());
  if (x.is_fixnum()) BRANCH_ON(x.bits == make_fixnum(0).bits);
  error_pc = pc;
  BRANCH_ON(zero_p(x));
}

L_kEq:
  if (slow_inlines) R[pc->a] = call_redefined(pc, 2, R[pc->b], R[pc->c], kFalse);
  else R[pc->a] = make_bool(R[pc->b] == R[pc->c]);
  NEXT(2);
L_kCar: {
  Value x = R[pc->b];
  if (slow_inlines) R[pc->a] = call_redefined(pc, 1, x, kFalse, kFalse);
  else if (is_pair(x)) R[pc->a] = car(x);
  else error_pc = pc, type_error("car", "a pair", x);
  NEXT(2);
}
L_kCdr: {
  Value x = R[pc->b];
  if (slow_inlines) R[pc->a] = call_redefined(pc, 1, x, kFalse, kFalse);
  else if (is_pair(x)) R[pc->a] = cdr(x);
  else error_pc = pc, type_error("cdr", "a pair", x);
  NEXT(2);
}
L_kCons:
  if (slow_inlines) R[pc->a] = call_redefined(pc, 2, R[pc->b], R[pc->c], kFalse);
  else R[pc->a] = cons(R[pc->b], R[pc->c]);
  NEXT(2);
L_kNullP:
  if (slow_inlines) R[pc->a] = call_redefined(pc, 1, R[pc->b], kFalse, kFalse);
  else R[pc->a] = make_bool(R[pc->b] == kNil);
  NEXT(2);
L_kPairP:
  if (slow_inlines) R[pc->a] = call_redefined(pc, 1, R[pc->b], kFalse, kFalse);
  else R[pc->a] = make_bool(is_pair(R[pc->b]));
  NEXT(2);
L_kNot:
  if (slow_inlines) R[pc->a] = call_redefined(pc, 1, R[pc->b], kFalse, kFalse);
  else R[pc->a] = make_bool(R[pc->b] == kFalse);
  NEXT(2);
L_kZeroP: {
  Value x = R[pc->b];
  if (slow_inlines) R[pc->a] = call_redefined(pc, 1, x, kFalse, kFalse);
  else if (x.is_fixnum()) R[pc->a] = make_bool(x.bits == make_fixnum(0).bits);
  else error_pc = pc, R[pc->a] = make_bool(zero_p(x));
  NEXT(2);
}
L_kVectorRef: {
  Value v = R[pc->b], k = R[pc->c];
  if (slow_inlines) {
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
  if (slow_inlines) {
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
  if (slow_inlines) {
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
  if (slow_inlines) R[pc->a] = call_redefined(pc, 1, s, kFalse, kFalse);
  else if (is_string(s)) R[pc->a] = make_fixnum(s.as<String>()->length());
  else error_pc = pc, type_error("string-length", "a string", s);
  NEXT(2);
}
L_kVectorLength: {
  Value v = R[pc->b];
  if (slow_inlines) R[pc->a] = call_redefined(pc, 1, v, kFalse, kFalse);
  else if (is_vector(v)) R[pc->a] = make_fixnum(v.as<Vector>()->length());
  else error_pc = pc, type_error("vector-length", "a vector", v);
  NEXT(2);
}
// The inline call/cc: the slow code (an ordinary call of the cell's value with a closure of the
// lambda) when the inline paths are off, else the capture and the body that follows.
L_kCallCC:
  if (slow_inlines) NEXT(2 + jump_offset(*pc));
  error_pc = pc;
  R[pc->a] = capture_inline(pc);
  NEXT(2);
L_kCount:
  throw_condition("error", nullptr, "internal error: bad instruction");
}

#undef NEXT
#undef DISPATCH
#undef RELOAD
#undef BRANCH_ON
#undef CHECK_INTERRUPT
#undef CHECKPOINT

// ---- small public helpers --------------------------------------------------------------------

Value parameter_value(Vm&, Value param) { return param.as<Parameter>()->value; }

Value make_parameter(Value init, Value converter) {
  Parameter* p = gc_alloc_object<Parameter>(Type::Parameter, sizeof(Parameter));
  p->value = init;
  p->converter = converter;
  return make_ptr(p);
}

}  // namespace quasi
