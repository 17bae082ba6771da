// vectors.cpp — vectors and bytevectors. (string->vector and vector->string live with the
// strings, in chars_strings.cpp.)
//
// Optional [start [end]] arguments follow R7RS; copying procedures handle overlapping source and
// destination. Mutators refuse literal (immutable) objects.
#include <cstring>

#include "builtins/args.hpp"
#include "builtins/registry.hpp"
#include "core/numbers.hpp"
#include "read/printer.hpp"

namespace quasi {

namespace {

Vector* check_vector(const char* who, Value v) {
  if (!is_vector(v)) type_error(who, "a vector", v);
  return v.as<Vector>();
}

Bytevector* check_bytevector(const char* who, Value v) {
  if (!is_bytevector(v)) type_error(who, "a bytevector", v);
  return v.as<Bytevector>();
}

uint8_t check_byte(const char* who, Value v) {
  if (!v.is_fixnum() || v.fixnum() < 0 || v.fixnum() > 255) {
    if (v.is_fixnum() || is_bignum(v)) range_error(who, "byte", v);
    type_error(who, "a byte (exact integer 0-255)", v);
  }
  return static_cast<uint8_t>(v.fixnum());
}

int64_t check_length(const char* who, Value v, int64_t max) {
  if (!v.is_fixnum() || v.fixnum() < 0) {
    if (is_bignum(v) && mpz_sgn(&v.as<Bignum>()->z) > 0) range_error(who, "length", v);
    type_error(who, "a non-negative exact integer", v);
  }
  if (v.fixnum() > max) range_error(who, "length", v);
  return v.fixnum();
}

constexpr int64_t kMaxBytes = int64_t(1) << 40;



// ---- vectors ---------------------------------------------------------------------------------
QUASI_PRIM(p_vectorp) { return make_bool(is_vector(argv[0])); }

QUASI_PRIM(p_make_vector) {
  int64_t n = check_length("make-vector", argv[0], kMaxBytes / sizeof(Value));
  return make_vector(n, argc > 1 ? argv[1] : kUnspecified);
}

QUASI_PRIM(p_vector) {
  Value r = make_vector(argc);
  Value* items = r.as<Vector>()->items();
  for (int i = 0; i < argc; i++) items[i] = argv[i];
  return r;
}

QUASI_PRIM(p_vector_length) {
  return make_fixnum(check_vector("vector-length", argv[0])->length());
}

QUASI_PRIM(p_vector_ref) {
  Vector* v = check_vector("vector-ref", argv[0]);
  return v->items()[check_index("vector-ref", argv[1], v->length())];
}

QUASI_PRIM(p_vector_set) {
  Vector* v = check_vector("vector-set!", argv[0]);
  int64_t i = check_index("vector-set!", argv[1], v->length());
  check_mutable("vector-set!", argv[0]);
  v->items()[i] = argv[2];
  return kUnspecified;
}

QUASI_PRIM(p_vector_to_list) {
  Vector* v = check_vector("vector->list", argv[0]);
  int64_t start, end;
  get_range("vector->list", argc, argv, 1, v->length(), start, end);
  Value r = kNil;
  for (int64_t i = end - 1; i >= start; i--) r = cons(v->items()[i], r);
  return r;
}

QUASI_PRIM(p_list_to_vector) {
  int64_t n = list_length(argv[0]);
  if (n < 0) type_error("list->vector", "a proper list", argv[0]);
  Value r = make_vector(n);
  Value* out = r.as<Vector>()->items();
  for (Value l = argv[0]; is_pair(l); l = cdr(l)) *out++ = car(l);
  return r;
}

// (vector-fill! v x [start [end]])
QUASI_PRIM(p_vector_fill) {
  Vector* v = check_vector("vector-fill!", argv[0]);
  int64_t start, end;
  get_range("vector-fill!", argc, argv, 2, v->length(), start, end);
  if (end > start) check_mutable("vector-fill!", argv[0]);  // nothing to modify: fine
  for (int64_t i = start; i < end; i++) v->items()[i] = argv[1];
  return kUnspecified;
}

QUASI_PRIM(p_vector_copy) {
  Vector* v = check_vector("vector-copy", argv[0]);
  int64_t start, end;
  get_range("vector-copy", argc, argv, 1, v->length(), start, end);
  Value r = make_vector(end - start);
  if (end > start)
    std::memcpy(r.as<Vector>()->items(), v->items() + start, sizeof(Value) * (end - start));
  return r;
}

// (vector-copy! to at from [start [end]]); overlapping source and destination are fine.
QUASI_PRIM(p_vector_copy_x) {
  Vector* to = check_vector("vector-copy!", argv[0]);
  int64_t at = check_bound("vector-copy!", "destination index", argv[1], to->length());
  Vector* from = check_vector("vector-copy!", argv[2]);
  int64_t start, end;
  get_range("vector-copy!", argc, argv, 3, from->length(), start, end);
  if (to->length() - at < end - start) range_error("vector-copy!", "destination index", argv[1]);
  if (end > start) {  // nothing to modify: fine on a literal
    check_mutable("vector-copy!", argv[0]);
    std::memmove(to->items() + at, from->items() + start, sizeof(Value) * (end - start));
  }
  return kUnspecified;
}

QUASI_PRIM(p_vector_append) {
  int64_t total = 0;
  for (int i = 0; i < argc; i++) total += check_vector("vector-append", argv[i])->length();
  Value r = make_vector(total);
  Value* out = r.as<Vector>()->items();
  for (int i = 0; i < argc; i++) {
    Vector* v = argv[i].as<Vector>();
    if (v->length()) std::memcpy(out, v->items(), sizeof(Value) * v->length());
    out += v->length();
  }
  return r;
}

// ---- bytevectors -----------------------------------------------------------------------------
QUASI_PRIM(p_bytevectorp) { return make_bool(is_bytevector(argv[0])); }

QUASI_PRIM(p_make_bytevector) {
  int64_t n = check_length("make-bytevector", argv[0], kMaxBytes);
  uint8_t fill = argc > 1 ? check_byte("make-bytevector", argv[1]) : 0;
  return make_bytevector(n, fill);
}

QUASI_PRIM(p_bytevector) {
  for (int i = 0; i < argc; i++) check_byte("bytevector", argv[i]);
  Value r = make_bytevector(argc);
  uint8_t* out = r.as<Bytevector>()->bytes();
  for (int i = 0; i < argc; i++) out[i] = static_cast<uint8_t>(argv[i].fixnum());
  return r;
}

QUASI_PRIM(p_bytevector_length) {
  return make_fixnum(check_bytevector("bytevector-length", argv[0])->length());
}

QUASI_PRIM(p_bytevector_u8_ref) {
  Bytevector* b = check_bytevector("bytevector-u8-ref", argv[0]);
  return make_fixnum(b->bytes()[check_index("bytevector-u8-ref", argv[1], b->length())]);
}

QUASI_PRIM(p_bytevector_u8_set) {
  Bytevector* b = check_bytevector("bytevector-u8-set!", argv[0]);
  int64_t i = check_index("bytevector-u8-set!", argv[1], b->length());
  uint8_t x = check_byte("bytevector-u8-set!", argv[2]);
  check_mutable("bytevector-u8-set!", argv[0]);
  b->bytes()[i] = x;
  return kUnspecified;
}

QUASI_PRIM(p_bytevector_copy) {
  Bytevector* b = check_bytevector("bytevector-copy", argv[0]);
  int64_t start, end;
  get_range("bytevector-copy", argc, argv, 1, b->length(), start, end);
  Value r = make_bytevector(end - start);
  if (end > start) std::memcpy(r.as<Bytevector>()->bytes(), b->bytes() + start, end - start);
  return r;
}

// (bytevector-copy! to at from [start [end]]); overlapping source and destination are fine.
QUASI_PRIM(p_bytevector_copy_x) {
  Bytevector* to = check_bytevector("bytevector-copy!", argv[0]);
  int64_t at = check_bound("bytevector-copy!", "destination index", argv[1], to->length());
  Bytevector* from = check_bytevector("bytevector-copy!", argv[2]);
  int64_t start, end;
  get_range("bytevector-copy!", argc, argv, 3, from->length(), start, end);
  if (to->length() - at < end - start)
    range_error("bytevector-copy!", "destination index", argv[1]);
  if (end > start) {  // nothing to modify: fine on a literal
    check_mutable("bytevector-copy!", argv[0]);
    std::memmove(to->bytes() + at, from->bytes() + start, end - start);
  }
  return kUnspecified;
}

QUASI_PRIM(p_bytevector_append) {
  int64_t total = 0;
  for (int i = 0; i < argc; i++) total += check_bytevector("bytevector-append", argv[i])->length();
  Value r = make_bytevector(total);
  uint8_t* out = r.as<Bytevector>()->bytes();
  for (int i = 0; i < argc; i++) {
    Bytevector* b = argv[i].as<Bytevector>();
    if (b->length()) std::memcpy(out, b->bytes(), b->length());
    out += b->length();
  }
  return r;
}

// (bytevector-fill! bv byte [start [end]]) — R6RS/SRFI-4 style, handy next to the R7RS set.
QUASI_PRIM(p_bytevector_fill) {
  Bytevector* b = check_bytevector("bytevector-fill!", argv[0]);
  uint8_t x = check_byte("bytevector-fill!", argv[1]);
  int64_t start, end;
  get_range("bytevector-fill!", argc, argv, 2, b->length(), start, end);
  if (end > start) {  // nothing to modify: fine on a literal
    check_mutable("bytevector-fill!", argv[0]);
    std::memset(b->bytes() + start, x, end - start);
  }
  return kUnspecified;
}

constexpr uint32_t kAllocRaise = kAlloc | kMayRaise;

// Derivative rules (core/prim.hpp, DerivativeRule): adjoints over the arguments a, b, the
// result r and its cotangent d; the %ad- helpers are lib/ad's (scheme/prelude/70-ad.scm).
using DK = DerivativeRule::Kind;
constexpr DerivativeRule kDVector{DK::kVector, false, {}, {}};
constexpr DerivativeRule kDVectorRef{DK::kLinear, false, {}, {"(%ad-onehot a b d)", nullptr}};
constexpr DerivativeRule kDVectorToList{DK::kLinear, false, {"(%ad-list->vector d (vector-length a))"}, {}};
constexpr DerivativeRule kDListToVector{DK::kLinear, false, {"(%ad-vector->list d (length a))"}, {}};
constexpr DerivativeRule kDZeroV{DK::kZero, false, {}, {}};
// every slot holds the fill: its cotangent is the sum of theirs
constexpr DerivativeRule kDMakeVector{DK::kLinear, false, {}, {nullptr, "(%ad-vector-sum d)"}};

const PrimDef kVectorPrims[] = {
    {"vector?", p_vectorp, 1, 1, kPureFold,
     kFacts.structural(Structure::kTypePred, TypeTest::kVector).jit_heap_type(Type::Vector)},
    {"make-vector", p_make_vector, 1, 2, kAllocRaise,
     kFacts.structural(Structure::kMakeVector).maker(Sequence::kVector, MakerLength::kFirstArg, MakerFill::kAny).differentiable(&kDMakeVector)},
    {"vector", p_vector, 0, -1, kAlloc,
     kFacts.structural(Structure::kVector).maker(Sequence::kVector, MakerLength::kArgCount, MakerFill::kAny).differentiable(&kDVector)},
    {"vector-length", p_vector_length, 1, 1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kVectorLength).structural(Structure::kVectorLength).measure(Sequence::kVector).differentiable(&kDZeroV).numeric(NumResult::kExactInteger, false)},
    {"vector-ref", p_vector_ref, 2, 2, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kVectorRef).structural(Structure::kVectorRef).differentiable(&kDVectorRef)},
    {"vector-set!", p_vector_set, 3, 3, kEffect,
     kFacts.inline_as(InlineOp::kVectorSet)},
    {"vector->list", p_vector_to_list, 1, 3, kAllocRaise,
     kFacts.differentiable(&kDVectorToList)},
    {"list->vector", p_list_to_vector, 1, 1, kAllocRaise,
     kFacts.differentiable(&kDListToVector)},
    {"vector-fill!", p_vector_fill, 2, 4, kEffect},
    {"vector-copy", p_vector_copy, 1, 3, kAllocRaise},
    {"vector-copy!", p_vector_copy_x, 3, 5, kEffect},
    {"vector-append", p_vector_append, 0, -1, kAllocRaise},

    {"bytevector?", p_bytevectorp, 1, 1, kPureFold,
     kFacts.structural(Structure::kTypePred)},
    {"make-bytevector", p_make_bytevector, 1, 2, kAllocRaise,
     kFacts.maker(Sequence::kBytevector, MakerLength::kFirstArg, MakerFill::kByte)},
    {"bytevector", p_bytevector, 0, -1, kAllocRaise,
     kFacts.maker(Sequence::kBytevector, MakerLength::kArgCount, MakerFill::kByte)},
    {"bytevector-length", p_bytevector_length, 1, 1, kPureFoldRaise,
     kFacts.measure(Sequence::kBytevector)},
    {"bytevector-u8-ref", p_bytevector_u8_ref, 2, 2, kPureFoldRaise},
    {"bytevector-u8-set!", p_bytevector_u8_set, 3, 3, kEffect},
    {"bytevector-copy", p_bytevector_copy, 1, 3, kAllocRaise},
    {"bytevector-copy!", p_bytevector_copy_x, 3, 5, kEffect},
    {"bytevector-append", p_bytevector_append, 0, -1, kAllocRaise},
    {"bytevector-fill!", p_bytevector_fill, 2, 4, kEffect},
};

}  // namespace

void register_vector_primitives(Environment* env) { install_primitives(env, kVectorPrims); }

}  // namespace quasi
