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

struct Primitive : Object {
  PrimFn fn;
  const char* name;
  int32_t min_args;
  int32_t max_args;  // -1: any number
  uint32_t flags;
  uint32_t vm_op;    // for kVmSpecial: which control operation (VmOp below)
  void* data;        // for primitives made at run time (record accessors, C++ lambdas)
  Value data_value;  // likewise, a Scheme value they close over
};
Value make_primitive(const char* name, PrimFn fn, int min_args, int max_args, uint32_t flags,
                     void* data = nullptr, Value data_value = kFalse);
inline bool is_primitive(Value v) { return has_type(v, Type::Primitive); }
// Whether `p` accepts `argc` arguments (a call with another count raises an arity error).
inline bool arity_ok(const Primitive* p, size_t argc) {
  return int64_t(argc) >= p->min_args && (p->max_args < 0 || int64_t(argc) <= p->max_args);
}

// Control operations the VM performs itself (Primitive::vm_op for kVmSpecial primitives).
enum VmOp : uint32_t {
  kVmApply = 1,      // (apply f arg ... list)
  kVmApplyValues,    // (%apply-values consumer values): spreads multiple values
  kVmCallCC,         // (call/cc f): captures the continuation; invoking it from another
                     // dynamic-wind extent goes through Scheme's %wind-and-continue first
  kVmEval,           // (eval expr [env])
};

struct PrimDef {
  const char* name;
  PrimFn fn;
  int min_args;
  int max_args;  // -1: variadic
  uint32_t flags;
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
