// prim.hpp — primitives: procedures implemented in C++, and the table rows that declare them.
//
// Owner: ir (the primitive-facts table, issue 9). Every primitive is declared by one PrimDef row
// {name, fn, min_args, max_args, flags} in a builtins (or pe, jit, ...) table; install_primitives
// (builtins/registry.hpp) turns each row into a Primitive object in the core environment.
// Invariant: what any layer knows about a primitive comes from its Primitive object (flags,
// vm_op), never from its name.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/gc.hpp"
#include "core/value.hpp"

namespace quasi {

struct Vm;

struct Primitive;
using PrimFn = Value (*)(Vm& vm, Primitive* self, int argc, Value* argv);

// Facts about a primitive that the optimizer looks up instead of matching names.
enum PrimFlags : uint32_t {
  kPure = 1u << 0,        // no side effects, result depends only on the arguments
  kFoldable = 1u << 1,    // may be evaluated at compile time on constant arguments
  kAllocates = 1u << 2,   // returns a fresh object (identity matters: never fold eq? on it)
  kHasEffects = 1u << 3,  // mutates state or does I/O
  kMayRaise = 1u << 4,    // may raise an error on some arguments
  kVmSpecial = 1u << 5,   // control primitive run by the VM itself (apply, call/cc, values, ...)
};

// Control operations the VM performs itself (Primitive::vm_op for kVmSpecial primitives).
enum VmOp : uint32_t {
  kVmApply = 1,      // (apply f arg ... list)
  kVmApplyValues,    // (%apply-values consumer values): spreads multiple values
  kVmCallCC,         // (call/cc f): captures the continuation; invoking it from another
                     // dynamic-wind extent goes through Scheme's %wind-and-continue first
  kVmEval,           // (eval expr [env])
  kVmCallEC,         // (%call/ec f): an escape-only continuation, valid while f's caller's frames
                     // are on the stack; O(1) where call/cc copies the stack (guard uses it)
};

// ---- the one table of primitive facts ------------------------------------------------------------
// Everything a layer knows about a primitive beyond its flags, carried by the primitive itself (its
// PrimDef row), so that no layer keeps a table keyed by name and identity is the Primitive object.
// The enums are neutral: the compiler maps InlineOp to its instruction, the JIT maps JitRecipe to
// machine code, the partial evaluator applies Structure to partially static data.

// The VM instruction a call compiles to, with a guard (vm/compiler.cpp, vm/vm.cpp).
enum class InlineOp : uint8_t {
  kNone, kAdd, kSub, kMul, kLt, kLe, kGt, kGe, kNumEq, kEq, kCar, kCdr, kCons, kNullP, kPairP,
  kNot, kZeroP, kVectorRef, kVectorSet, kStringRef, kStringLength, kVectorLength,
  kCallCC,  // (call/cc (lambda (k) body)) only: the body in the caller's frame
};
// How the partial evaluator builds or takes apart partially static data (pe/structural.cpp).
enum class Structure : uint8_t {
  kNone, kCar, kCdr, kCxr, kCons, kList, kConsStar, kVector, kVectorRef, kVectorLength, kTypePred,
  kNot, kEq, kLength, kListRef, kListTail, kAssq, kMemq, kAppend,
  kCharEq,      // char=? of two characters is eq? (characters are immediates)
  kEqual,       // equal?: with a constant that has no parts (a symbol, a fixnum, ...) it is eqv?
  kResultChar,  // the result, when there is one, is a character (string-ref)
  kListP,       // list?: a known spine ending in () is a list; one ending in another known value is not
  kMakeVector,  // (make-vector n fill), n small and known: the partial evaluator's vector of n fills
};
// What a kTypePred primitive answers for an object the partial evaluator builds.
enum class TypeTest : uint8_t { kOther, kPair, kVector, kProcedure, kNull };
// The work the JIT does inline at a call of the primitive (jit/x64_emit.cpp).
enum class JitRecipe : uint8_t {
  kNone,
  kCxr,          // c[ad]{1,4}r along cxr_len/cxr_bits
  kHeapType,     // (pred x): x is a heap object of type heap_type
  kChar,         // char?
  kBoolean,      // boolean?
  kNumber,       // number?
  kEof,          // eof-object?
  kCharCompare,  // two characters compared by `compare`
  kExactInteger, // exact-integer?: a fixnum or a bignum
  kEqv,          // eqv?: eq?, else #f unless both are heap numbers (then the call)
  kQuotient,     // two fixnums, divisor not 0 or -1: truncating quotient
  kRemainder,    //   ... the remainder with the dividend's sign
  kModulo,       //   ... the remainder with the divisor's sign
  kMemq,         // memq over the first kInlineSearch pairs of a list (longer or improper: the call)
  kMemv,         // memv the same way, for an item that is not a heap number (whose eqv? is eq?)
  kDivide,       // (/ x y): two flonums, or a flonum and a fixnum, in SSE; two fixnums that divide
                 // exactly (divisor not 0 or -1); anything else (a ratio, 0, a bignum): the call
  kNegate,       // (- x): a fixnum but the least, or a flonum's sign flipped
  kList,         // (list x ...) of at most kMaxInlineList operands: that many pairs popped inline
  kSquare,       // (square x): a fixnum whose square is one, or a flonum
  kSqrt,         // (sqrt x): a flonum not below 0 (-0.0 included; NaN and exact numbers: the call)
  kProcedure,    // procedure?: a closure, primitive, continuation or parameter (is_procedure's types)
};
constexpr int kMaxInlineList = 8;
enum class Compare : uint8_t { kEq, kLt, kGt, kLe, kGe };
// Shape folds (passes/fold_constants.cpp): (measure (maker arg ...)) is the length the maker was
// asked for, when a measure's `measures` is a maker's `makes`.
enum class Sequence : uint8_t { kNone, kList, kVector, kString, kBytevector };
enum class MakerLength : uint8_t { kFirstArg, kArgCount };
enum class MakerFill : uint8_t { kAny, kChar, kByte };  // what the other operands must be

// How automatic differentiation (lib/ad) differentiates a call of the primitive. Rules are data:
// Scheme expressions (text, read and expanded once by lib/ad) over the arguments `a` and `b`, the
// result `r`, and the cotangent `d` of the result (reverse mode). A primitive without a rule is
// differentiated only where no derivative flows through it (lib/ad/README.md).
struct DerivativeRule {
  enum class Kind : uint8_t {
    kScalar,  // partial derivatives: unary[0] = dr/da; binary[0] = dr/da, binary[1] = dr/db
    kLinear,  // adjoints: unary[0] / binary[0..1] = the cotangent of a (b) given d; null = none
    kZero,    // piecewise constant (floor, length, ...): the derivative is zero
    kCxr,     // c[ad]+r along PrimFacts::cxr_len/cxr_bits
    kList,    // (p x ...) builds a list of its arguments
    kVector,  // (p x ...) builds a vector of its arguments
    kValues,  // (values x ...): x itself for one argument, else like kList (the cotangent of
              // several values is the list of theirs)
  };
  // The cells behind set! of local variables in differentiated code (lib/ad/README.md, "set!"):
  // a cell's adjoint is a cell of its own, updated in the backward sweep's order. kMake, kRef,
  // kSet: the operation the step stands for; kAdjoint: returns a cell (the adjoint of its
  // argument's); kNested: the form of those operations inside transformed code, whose
  // derivative (nested differentiation through set!) is refused.
  enum class CellOp : uint8_t { kNone, kMake, kRef, kSet, kAdjoint, kNested };
  Kind kind = Kind::kZero;
  bool fold = false;  // (p a b c ...) is (p (p a b) c ...) (left fold), e.g. + * - / min max
  const char* unary[1] = {nullptr};
  const char* binary[2] = {nullptr, nullptr};
  CellOp cell = CellOp::kNone;
  // The backward code runs even when no cotangent reaches the result (its effect on a cell's
  // adjoint matters): kMake, kSet.
  constexpr bool always() const { return cell == CellOp::kMake || cell == CellOp::kSet; }
};

// What kind of number a primitive returns when it returns (the e-graph's type lattice in
// passes/eqsat.cpp reads it; "exact integer" covers fixnums and bignums).
enum class NumResult : uint8_t {
  kNone,          // not known, or not a number
  kExactInteger,  // always an exact integer (length, vector-length, string-length, ...)
  kContagion,     // + - * abs max min quotient: an exact integer when every argument is one, a
                  // flonum when one is a flonum and the rest are numbers, else some number
  kBoolean,       // a numeric comparison: #t or #f
  kNumber,        // some number (/: an exact ratio or integer, or a flonum)
};
// What a primitive does with numbers, for the fold-constants pass's facts about numbers
// (passes/fold_constants.cpp): a call that returned proves its arguments are numbers, a call
// on numbers that cannot raise may go when its value is unused, a test of exactness on a value
// known to be inexact is known.
enum class OnNumbers : uint8_t {
  kNone,
  kRequires,   // returns only when every argument is a number (raises otherwise)
  kTotal,      // kRequires, and never raises when every argument is a number (+ - * square)
  kExactness,  // kTotal, one argument, and the answer is decided by the argument's exactness
};
struct PrimFacts {
  InlineOp inline_op = InlineOp::kNone;
  Structure structure = Structure::kNone;
  TypeTest type_test = TypeTest::kOther;  // kTypePred
  bool eqv = false;                       // kEq, kAssq, kMemq: eqv? instead of eq?
  uint8_t cxr_len = 0;                    // c[ad]r: number of steps
  uint8_t cxr_bits = 0;                   // c[ad]r: bit i set = step i is cdr (step 0 first)
  JitRecipe jit = JitRecipe::kNone;
  Type heap_type = Type::Pair;            // JitRecipe::kHeapType
  Compare compare = Compare::kEq;         // JitRecipe::kCharCompare
  Sequence makes = Sequence::kNone;       // a maker of this kind of sequence
  MakerLength make_length = MakerLength::kArgCount;
  MakerFill fill = MakerFill::kAny;
  Sequence measures = Sequence::kNone;    // the length of this kind of sequence
  uint32_t vm_op = 0;                     // kVmSpecial: the control operation (VmOp)
  const DerivativeRule* derivative = nullptr;  // automatic differentiation's rule (issue 12)
  NumResult num_result = NumResult::kNone;     // the kind of number returned (eqsat)
  bool exact_total = false;     // never raises when every argument is an exact integer (eqsat)
  bool proves_exact = false;    // a predicate: #t means its argument is an exact integer (eqsat)
  // kHasEffects only because it raises (raise, error): no other effect, so code that calls it
  // still only computes (the partial evaluator's static runs, pe/static_run.hpp).
  bool only_raises = false;
  OnNumbers on_numbers = OnNumbers::kNone;

  // Builders for table rows: PrimFacts{}.inline_as(InlineOp::kCar).structural(Structure::kCar)...
  constexpr PrimFacts inline_as(InlineOp op) const { PrimFacts f = *this; f.inline_op = op; return f; }
  constexpr PrimFacts structural(Structure s, TypeTest t = TypeTest::kOther, bool use_eqv = false) const {
    PrimFacts f = *this; f.structure = s; f.type_test = t; f.eqv = use_eqv; return f;
  }
  // c[ad]r with `len` steps, `bits` as above: structural, and inline in the JIT.
  constexpr PrimFacts cxr(uint8_t len, uint8_t bits) const {
    PrimFacts f = *this; f.cxr_len = len; f.cxr_bits = bits; f.jit = JitRecipe::kCxr;
    if (f.structure == Structure::kNone) f.structure = Structure::kCxr;
    return f;
  }
  constexpr PrimFacts jit_as(JitRecipe r) const { PrimFacts f = *this; f.jit = r; return f; }
  constexpr PrimFacts jit_heap_type(Type t) const { PrimFacts f = *this; f.jit = JitRecipe::kHeapType; f.heap_type = t; return f; }
  constexpr PrimFacts jit_char_compare(Compare c) const { PrimFacts f = *this; f.jit = JitRecipe::kCharCompare; f.compare = c; return f; }
  constexpr PrimFacts maker(Sequence s, MakerLength l, MakerFill fl) const {
    PrimFacts f = *this; f.makes = s; f.make_length = l; f.fill = fl; return f;
  }
  constexpr PrimFacts measure(Sequence s) const { PrimFacts f = *this; f.measures = s; return f; }
  constexpr PrimFacts control(VmOp op) const { PrimFacts f = *this; f.vm_op = op; return f; }
  constexpr PrimFacts differentiable(const DerivativeRule* r) const { PrimFacts f = *this; f.derivative = r; return f; }
  constexpr PrimFacts numeric(NumResult r, bool total_on_exact) const {
    PrimFacts f = *this; f.num_result = r; f.exact_total = total_on_exact; return f;
  }
  constexpr PrimFacts proves_exact_integer() const { PrimFacts f = *this; f.proves_exact = true; return f; }
  constexpr PrimFacts numbers(OnNumbers o) const { PrimFacts f = *this; f.on_numbers = o; return f; }
  constexpr PrimFacts raises_only() const { PrimFacts f = *this; f.only_raises = true; return f; }
};
inline constexpr PrimFacts kFacts{};

struct Primitive : Object {
  PrimFn fn;
  const char* name;
  int32_t min_args;
  int32_t max_args;  // -1: any number
  uint32_t flags;
  uint32_t vm_op;    // for kVmSpecial: which control operation (VmOp below)
  void* data;        // for primitives made at run time (record accessors, C++ lambdas)
  Value data_value;  // likewise, a Scheme value they close over
  PrimFacts facts;   // from its PrimDef row; none for primitives made at run time
};
Value make_primitive(const char* name, PrimFn fn, int min_args, int max_args, uint32_t flags,
                     void* data = nullptr, Value data_value = kFalse);
inline bool is_primitive(Value v) { return has_type(v, Type::Primitive); }
// Whether `p` accepts `argc` arguments (a call with another count raises an arity error).
inline bool arity_ok(const Primitive* p, size_t argc) {
  return int64_t(argc) >= p->min_args && (p->max_args < 0 || int64_t(argc) <= p->max_args);
}


// One row of a primitive table. `{name, fn, min, max, flags}` is a complete row; facts are
// optional and come last (new fields only ever go at the end, with defaults).
struct PrimDef {
  const char* name;
  PrimFn fn;
  int min_args;
  int max_args;  // -1: variadic
  uint32_t flags;
  PrimFacts facts = {};
};

// Signature of every primitive: `vm`, the primitive itself, and the evaluated arguments. The VM
// has already checked argc against min_args/max_args.
#define QUASI_PRIM(cname) static Value cname(Vm& vm, Primitive* self, int argc, Value* argv)

// Common flag sets.
constexpr uint32_t kPureFold = kPure | kFoldable;                 // never raises
constexpr uint32_t kPureFoldRaise = kPure | kFoldable | kMayRaise;
constexpr uint32_t kAlloc = kPure | kAllocates;                   // fresh object each call
constexpr uint32_t kEffect = kHasEffects | kMayRaise;

}  // namespace quasi
