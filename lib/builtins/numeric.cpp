// numeric.cpp — the numeric primitives of (scheme base), (scheme inexact), the real part of
// (scheme complex), and SRFI 151's core bitwise operations. The arithmetic itself lives in
// core/numbers.cpp; these wrappers check arguments, fold variadic calls and name the procedure.
#include <charconv>
#include <cmath>

#include "builtins/registry.hpp"
#include "core/numbers.hpp"

namespace quasi {
namespace {

inline bool supplied(int argc, Value* argv, int i) { return argc > i && argv[i] != kDefault; }

int radix_arg(const char* who, int argc, Value* argv, int i) {
  if (!supplied(argc, argv, i)) return 10;
  Value r = argv[i];
  if (!r.is_fixnum()) type_error(who, "a radix (2, 8, 10 or 16)", r);
  int64_t n = r.fixnum();
  if (n != 2 && n != 8 && n != 10 && n != 16)  // says which radixes, as the type error does
    throw_condition("range", who, "expected a radix (2, 8, 10 or 16), got " + std::to_string(n));
  return static_cast<int>(n);
}

// ---- predicates ----------------------------------------------------------------------------

QUASI_PRIM(p_number_p) { return make_bool(is_number(argv[0])); }
QUASI_PRIM(p_rational_p) { return make_bool(is_rational_value(argv[0])); }
QUASI_PRIM(p_integer_p) { return make_bool(is_integer_value(argv[0])); }
QUASI_PRIM(p_exact_integer_p) { return make_bool(is_exact_integer(argv[0])); }
QUASI_PRIM(p_exact_rational_p) { return make_bool(is_exact(argv[0]) && is_real_value(argv[0])); }
QUASI_PRIM(p_real_p) { return make_bool(is_real_value(argv[0])); }
QUASI_PRIM(p_exact_p) {
  check_number("exact?", argv[0]);
  return make_bool(is_exact(argv[0]));
}
QUASI_PRIM(p_inexact_p) {
  check_number("inexact?", argv[0]);
  return make_bool(!is_exact(argv[0]));
}
QUASI_PRIM(p_nan_p) {
  check_number("nan?", argv[0]);
  return make_bool(is_nan_value(argv[0]));
}
QUASI_PRIM(p_infinite_p) {
  check_number("infinite?", argv[0]);
  auto inf = [](Value x) { return is_flonum(x) && std::isinf(flonum_value(x)); };
  return make_bool(inf(num_real_part(argv[0])) || inf(num_imag_part(argv[0])));
}
QUASI_PRIM(p_finite_p) {
  check_number("finite?", argv[0]);
  auto fin = [](Value x) { return !is_flonum(x) || std::isfinite(flonum_value(x)); };
  return make_bool(fin(num_real_part(argv[0])) && fin(num_imag_part(argv[0])));
}

// ---- comparisons: every argument is checked, even after the answer is known ----------------

template <int kMode>  // 0 =, 1 <, 2 >, 3 <=, 4 >=
Value compare_chain(const char* who, int argc, Value* argv) {
  for (int i = 0; i < argc; i++) check_number(who, argv[i]);
  bool ok = true;
  for (int i = 0; i + 1 < argc && ok; i++) {
    int c = num_compare(argv[i], argv[i + 1], who);
    switch (kMode) {
      case 0: ok = c == 0; break;
      case 1: ok = c == -1; break;
      case 2: ok = c == 1; break;
      case 3: ok = c == -1 || c == 0; break;
      default: ok = c == 1 || c == 0; break;
    }
  }
  return make_bool(ok);
}
QUASI_PRIM(p_num_eq) { return compare_chain<0>("=", argc, argv); }
QUASI_PRIM(p_num_lt) { return compare_chain<1>("<", argc, argv); }
QUASI_PRIM(p_num_gt) { return compare_chain<2>(">", argc, argv); }
QUASI_PRIM(p_num_le) { return compare_chain<3>("<=", argc, argv); }
QUASI_PRIM(p_num_ge) { return compare_chain<4>(">=", argc, argv); }

QUASI_PRIM(p_zero_p) { return make_bool(num_compare(argv[0], make_fixnum(0), "zero?") == 0); }
QUASI_PRIM(p_positive_p) {
  return make_bool(num_compare(argv[0], make_fixnum(0), "positive?") == 1);
}
QUASI_PRIM(p_negative_p) {
  return make_bool(num_compare(argv[0], make_fixnum(0), "negative?") == -1);
}
QUASI_PRIM(p_odd_p) { return make_bool(num_odd(argv[0], "odd?")); }
QUASI_PRIM(p_even_p) { return make_bool(!num_odd(argv[0], "even?")); }

// max / min: any inexact argument makes the result inexact; a NaN wins.
Value extremum(const char* who, int want, int argc, Value* argv) {
  bool inexact = false;
  for (int i = 0; i < argc; i++) {
    // real, even alone: (max +3i) is an error, not +3i
    if (!is_real_value(argv[i])) type_error(who, "a real number", argv[i]);
    if (!is_exact(argv[i])) inexact = true;
  }
  Value best = argv[0];
  for (int i = 1; i < argc; i++) {
    if (is_nan_value(best)) break;
    int c = num_compare(argv[i], best, who);
    if (c == 2 || c == want) best = argv[i];
  }
  return inexact ? num_inexact(best) : best;
}
QUASI_PRIM(p_max) { return extremum("max", 1, argc, argv); }
QUASI_PRIM(p_min) { return extremum("min", -1, argc, argv); }

// ---- arithmetic ----------------------------------------------------------------------------

QUASI_PRIM(p_add) {
  if (argc == 0) return make_fixnum(0);
  check_number("+", argv[0]);
  Value acc = argv[0];
  for (int i = 1; i < argc; i++) acc = num_add(acc, argv[i]);
  return acc;
}
QUASI_PRIM(p_mul) {
  if (argc == 0) return make_fixnum(1);
  check_number("*", argv[0]);
  Value acc = argv[0];
  for (int i = 1; i < argc; i++) acc = num_mul(acc, argv[i]);
  return acc;
}
QUASI_PRIM(p_sub) {
  if (argc == 1) return num_negate(argv[0]);
  Value acc = argv[0];
  for (int i = 1; i < argc; i++) acc = num_sub(acc, argv[i]);
  return acc;
}
QUASI_PRIM(p_div) {
  if (argc == 1) return num_div(make_fixnum(1), argv[0]);
  Value acc = argv[0];
  for (int i = 1; i < argc; i++) acc = num_div(acc, argv[i]);
  return acc;
}
QUASI_PRIM(p_abs) { return num_abs(argv[0]); }
QUASI_PRIM(p_square) {
  check_number("square", argv[0]);
  return num_mul(argv[0], argv[0]);
}

QUASI_PRIM(p_quotient) { return num_quotient(argv[0], argv[1]); }
QUASI_PRIM(p_remainder) { return num_remainder(argv[0], argv[1]); }
QUASI_PRIM(p_modulo) { return num_modulo(argv[0], argv[1]); }

QUASI_PRIM(p_floor_div) {
  Value qr[2];
  num_integer_divide(argv[0], argv[1], DivMode::Floor, "floor/", &qr[0], &qr[1]);
  return make_values(2, qr);
}
QUASI_PRIM(p_floor_quotient) {
  Value q;
  num_integer_divide(argv[0], argv[1], DivMode::Floor, "floor-quotient", &q, nullptr);
  return q;
}
QUASI_PRIM(p_floor_remainder) {
  Value r;
  num_integer_divide(argv[0], argv[1], DivMode::Floor, "floor-remainder", nullptr, &r);
  return r;
}
QUASI_PRIM(p_truncate_div) {
  Value qr[2];
  num_integer_divide(argv[0], argv[1], DivMode::Truncate, "truncate/", &qr[0], &qr[1]);
  return make_values(2, qr);
}
QUASI_PRIM(p_truncate_quotient) {
  Value q;
  num_integer_divide(argv[0], argv[1], DivMode::Truncate, "truncate-quotient", &q, nullptr);
  return q;
}
QUASI_PRIM(p_truncate_remainder) {
  Value r;
  num_integer_divide(argv[0], argv[1], DivMode::Truncate, "truncate-remainder", nullptr, &r);
  return r;
}

QUASI_PRIM(p_gcd) {
  if (argc == 0) return make_fixnum(0);
  Value acc = num_gcd(argv[0], make_fixnum(0));  // checks the argument, takes |x|
  for (int i = 1; i < argc; i++) acc = num_gcd(acc, argv[i]);
  return acc;
}
QUASI_PRIM(p_lcm) {
  if (argc == 0) return make_fixnum(1);
  Value acc = num_lcm(argv[0], make_fixnum(1));
  for (int i = 1; i < argc; i++) acc = num_lcm(acc, argv[i]);
  return acc;
}

QUASI_PRIM(p_numerator) { return num_numerator(argv[0]); }
QUASI_PRIM(p_denominator) { return num_denominator(argv[0]); }
QUASI_PRIM(p_floor) { return num_round(argv[0], RoundMode::Floor); }
QUASI_PRIM(p_ceiling) { return num_round(argv[0], RoundMode::Ceiling); }
QUASI_PRIM(p_truncate) { return num_round(argv[0], RoundMode::Truncate); }
QUASI_PRIM(p_round) { return num_round(argv[0], RoundMode::Round); }
QUASI_PRIM(p_rationalize) { return num_rationalize(argv[0], argv[1]); }

// ---- (scheme inexact) ------------------------------------------------------------------------

QUASI_PRIM(p_exp) { return num_exp(argv[0]); }
QUASI_PRIM(p_log) {
  if (supplied(argc, argv, 1)) return num_log(argv[0], argv[1]);
  return num_log(argv[0]);
}
QUASI_PRIM(p_sin) { return num_trig(TrigFn::Sin, argv[0]); }
QUASI_PRIM(p_cos) { return num_trig(TrigFn::Cos, argv[0]); }
QUASI_PRIM(p_tan) { return num_trig(TrigFn::Tan, argv[0]); }
QUASI_PRIM(p_asin) { return num_trig(TrigFn::Asin, argv[0]); }
QUASI_PRIM(p_acos) { return num_trig(TrigFn::Acos, argv[0]); }
QUASI_PRIM(p_atan) {
  if (supplied(argc, argv, 1)) return num_atan2(argv[0], argv[1]);
  return num_trig(TrigFn::Atan, argv[0]);
}
QUASI_PRIM(p_sqrt) { return num_sqrt(argv[0]); }
QUASI_PRIM(p_exact_integer_sqrt) {
  Value sr[2];
  num_exact_integer_sqrt(argv[0], &sr[0], &sr[1]);
  return make_values(2, sr);
}
QUASI_PRIM(p_expt) { return num_expt(argv[0], argv[1]); }
// ---- (scheme complex) ------------------------------------------------------------------------
QUASI_PRIM(p_make_rectangular) { return num_make_rectangular(argv[0], argv[1]); }
QUASI_PRIM(p_make_polar) { return num_make_polar(argv[0], argv[1]); }
QUASI_PRIM(p_real_part) { return num_real_part(argv[0]); }
QUASI_PRIM(p_imag_part) { return num_imag_part(argv[0]); }
QUASI_PRIM(p_magnitude) { return num_magnitude(argv[0]); }
QUASI_PRIM(p_angle) { return num_angle(argv[0]); }

QUASI_PRIM(p_exact) { return num_exact(argv[0], "exact"); }
QUASI_PRIM(p_inexact) {
  check_number("inexact", argv[0]);
  return num_inexact(argv[0]);
}
QUASI_PRIM(p_inexact_to_exact) { return num_exact(argv[0], "inexact->exact"); }
QUASI_PRIM(p_exact_to_inexact) {
  check_number("exact->inexact", argv[0]);
  return num_inexact(argv[0]);
}

// ---- text ------------------------------------------------------------------------------------

QUASI_PRIM(p_number_to_string) {
  check_number("number->string", argv[0]);
  int radix = radix_arg("number->string", argc, argv, 1);
  if (argv[0].is_fixnum()) {  // the common case, straight into the string (no std::string)
    char buf[72];
    auto res = std::to_chars(buf, buf + sizeof buf, argv[0].fixnum(), radix);
    int64_t n = res.ptr - buf;
    Value s = make_string_uninit(n);
    uint32_t* out = s.as<String>()->chars();
    for (int64_t i = 0; i < n; i++) out[i] = static_cast<unsigned char>(buf[i]);
    return s;
  }
  return make_string_utf8(number_to_string(argv[0], radix));
}
QUASI_PRIM(p_string_to_number) {
  if (!is_string(argv[0])) type_error("string->number", "a string", argv[0]);
  int radix = radix_arg("string->number", argc, argv, 1);
  try {
    return parse_number(string_to_utf8(argv[0]), radix);
  } catch (SchemeError& e) {
    // parse_number is the reader's too and names no procedure: "#e1e1000001" is refused here
    if (is_condition(e.payload) && e.payload.as<Condition>()->who == kFalse)
      e.payload.as<Condition>()->who = intern("string->number");
    throw;
  }
}

// ---- SRFI 151 --------------------------------------------------------------------------------

QUASI_PRIM(p_bitwise_and) {
  Value acc = make_fixnum(-1);
  for (int i = 0; i < argc; i++) acc = num_bitwise_and(acc, argv[i]);
  return acc;
}
QUASI_PRIM(p_bitwise_or) {
  Value acc = make_fixnum(0);
  for (int i = 0; i < argc; i++) acc = num_bitwise_or(acc, argv[i]);
  return acc;
}
QUASI_PRIM(p_bitwise_xor) {
  Value acc = make_fixnum(0);
  for (int i = 0; i < argc; i++) acc = num_bitwise_xor(acc, argv[i]);
  return acc;
}
QUASI_PRIM(p_bitwise_not) { return num_bitwise_not(argv[0]); }
QUASI_PRIM(p_arithmetic_shift) { return num_arithmetic_shift(argv[0], argv[1]); }
QUASI_PRIM(p_bit_count) { return num_bit_count(argv[0]); }

// Multiple values are not constants the optimizer can fold into code.
constexpr uint32_t kPureRaise = kPure | kMayRaise;
constexpr uint32_t kText = kPure | kFoldable | kAllocates | kMayRaise;


// Derivative rules (core/prim.hpp, DerivativeRule; lib/ad/README.md has the conventions at
// non-differentiable points). Expressions over the arguments a, b and the result r.
using DK = DerivativeRule::Kind;
constexpr DerivativeRule kDAdd{DK::kScalar, true, {"1"}, {"1", "1"}};
constexpr DerivativeRule kDSub{DK::kScalar, true, {"-1"}, {"1", "-1"}};
constexpr DerivativeRule kDMul{DK::kScalar, true, {"1"}, {"b", "a"}};
constexpr DerivativeRule kDDiv{DK::kScalar, true, {"(- (* r r))"}, {"(/ 1 b)", "(- (/ r b))"}};
constexpr DerivativeRule kDMax{DK::kScalar, true, {"1"}, {"(if (>= a b) 1 0)", "(if (>= a b) 0 1)"}};
constexpr DerivativeRule kDMin{DK::kScalar, true, {"1"}, {"(if (<= a b) 1 0)", "(if (<= a b) 0 1)"}};
constexpr DerivativeRule kDAbs{DK::kScalar, false, {"(if (positive? a) 1 (if (negative? a) -1 0))"}, {}};
constexpr DerivativeRule kDSquare{DK::kScalar, false, {"(+ a a)"}, {}};  // 2a, without an exact 2 meeting a flonum
constexpr DerivativeRule kDExp{DK::kScalar, false, {"r"}, {}};
constexpr DerivativeRule kDLog{DK::kScalar, false, {"(%ad-recip a)"},
                               {"(%ad-recip (* a (log b)))", "(- (* r (%ad-recip (* b (log b)))))"}};
constexpr DerivativeRule kDSin{DK::kScalar, false, {"(cos a)"}, {}};
constexpr DerivativeRule kDCos{DK::kScalar, false, {"(- (sin a))"}, {}};
constexpr DerivativeRule kDTan{DK::kScalar, false, {"(+ 1 (* r r))"}, {}};
constexpr DerivativeRule kDAsin{DK::kScalar, false, {"(%ad-recip (sqrt (- 1 (* a a))))"}, {}};
constexpr DerivativeRule kDAcos{DK::kScalar, false, {"(- (%ad-recip (sqrt (- 1 (* a a)))))"}, {}};
constexpr DerivativeRule kDAtan{DK::kScalar, false, {"(/ 1 (+ 1 (* a a)))"},
                                {"(* b (%ad-recip (+ (* a a) (* b b))))", "(- (* a (%ad-recip (+ (* a a) (* b b)))))"}};
constexpr DerivativeRule kDSqrt{DK::kScalar, false, {"(%ad-recip (+ r r))"}, {}};
constexpr DerivativeRule kDExpt{DK::kScalar, false, {nullptr},
                                {"(if (and (exact? b) (zero? b)) 0 (* b (expt a (- b 1))))",
                                 "(if (positive? a) (* r (log a)) 0)"}};
constexpr DerivativeRule kDIdentity{DK::kScalar, false, {"1"}, {}};
constexpr DerivativeRule kDZero{DK::kZero, false, {}, {}};

const PrimDef kNumericPrims[] = {
    {"number?", p_number_p, 1, 1, kPureFold,
     kFacts.structural(Structure::kTypePred).jit_as(JitRecipe::kNumber)},
    {"complex?", p_number_p, 1, 1, kPureFold,
     kFacts.jit_as(JitRecipe::kNumber)},
    {"real?", p_real_p, 1, 1, kPureFold},
    {"rational?", p_rational_p, 1, 1, kPureFold},
    {"integer?", p_integer_p, 1, 1, kPureFold,
     kFacts.structural(Structure::kTypePred)},
    {"exact-integer?", p_exact_integer_p, 1, 1, kPureFold,
     kFacts.proves_exact_integer().jit_as(JitRecipe::kExactInteger)},
    {"exact-rational?", p_exact_rational_p, 1, 1, kPureFold},
    {"exact?", p_exact_p, 1, 1, kPureFoldRaise, kFacts.numbers(OnNumbers::kExactness)},
    {"inexact?", p_inexact_p, 1, 1, kPureFoldRaise, kFacts.numbers(OnNumbers::kExactness)},
    {"nan?", p_nan_p, 1, 1, kPureFoldRaise},
    {"infinite?", p_infinite_p, 1, 1, kPureFoldRaise},
    {"finite?", p_finite_p, 1, 1, kPureFoldRaise},
    {"=", p_num_eq, 1, -1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kNumEq).numeric(NumResult::kBoolean, true)},
    {"<", p_num_lt, 1, -1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kLt).numeric(NumResult::kBoolean, true)},
    {">", p_num_gt, 1, -1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kGt).numeric(NumResult::kBoolean, true)},
    {"<=", p_num_le, 1, -1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kLe).numeric(NumResult::kBoolean, true)},
    {">=", p_num_ge, 1, -1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kGe).numeric(NumResult::kBoolean, true)},
    {"zero?", p_zero_p, 1, 1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kZeroP)},
    {"positive?", p_positive_p, 1, 1, kPureFoldRaise},
    {"negative?", p_negative_p, 1, 1, kPureFoldRaise},
    {"odd?", p_odd_p, 1, 1, kPureFoldRaise},
    {"even?", p_even_p, 1, 1, kPureFoldRaise},
    {"max", p_max, 1, -1, kPureFoldRaise,
     kFacts.differentiable(&kDMax).numeric(NumResult::kContagion, true).numbers(OnNumbers::kRequires)},
    {"min", p_min, 1, -1, kPureFoldRaise,
     kFacts.differentiable(&kDMin).numeric(NumResult::kContagion, true).numbers(OnNumbers::kRequires)},
    {"+", p_add, 0, -1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kAdd).differentiable(&kDAdd).numeric(NumResult::kContagion, true).numbers(OnNumbers::kTotal)},
    {"*", p_mul, 0, -1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kMul).differentiable(&kDMul).numeric(NumResult::kContagion, true).numbers(OnNumbers::kTotal)},
    {"-", p_sub, 1, -1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kSub).differentiable(&kDSub).numeric(NumResult::kContagion, true).numbers(OnNumbers::kTotal)
         .jit_as(JitRecipe::kNegate)},
    {"/", p_div, 1, -1, kPureFoldRaise,
     kFacts.differentiable(&kDDiv).numeric(NumResult::kNumber, false).numbers(OnNumbers::kRequires)
         .jit_as(JitRecipe::kDivide)},
    {"abs", p_abs, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDAbs).numeric(NumResult::kContagion, true).numbers(OnNumbers::kRequires)},
    {"square", p_square, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDSquare).numeric(NumResult::kContagion, true).numbers(OnNumbers::kTotal)
         .jit_as(JitRecipe::kSquare)},
    {"quotient", p_quotient, 2, 2, kPureFoldRaise,
     kFacts.differentiable(&kDZero).numeric(NumResult::kContagion, false).jit_as(JitRecipe::kQuotient)},
    {"remainder", p_remainder, 2, 2, kPureFoldRaise,
     kFacts.differentiable(&kDZero).jit_as(JitRecipe::kRemainder)},
    {"modulo", p_modulo, 2, 2, kPureFoldRaise,
     kFacts.differentiable(&kDZero).jit_as(JitRecipe::kModulo)},
    {"floor/", p_floor_div, 2, 2, kPureRaise},
    {"floor-quotient", p_floor_quotient, 2, 2, kPureFoldRaise,
     kFacts.differentiable(&kDZero)},
    {"floor-remainder", p_floor_remainder, 2, 2, kPureFoldRaise,
     kFacts.differentiable(&kDZero).jit_as(JitRecipe::kModulo)},
    {"truncate/", p_truncate_div, 2, 2, kPureRaise},
    {"truncate-quotient", p_truncate_quotient, 2, 2, kPureFoldRaise,
     kFacts.differentiable(&kDZero).jit_as(JitRecipe::kQuotient)},
    {"truncate-remainder", p_truncate_remainder, 2, 2, kPureFoldRaise,
     kFacts.differentiable(&kDZero).jit_as(JitRecipe::kRemainder)},
    {"gcd", p_gcd, 0, -1, kPureFoldRaise},
    {"lcm", p_lcm, 0, -1, kPureFoldRaise},
    {"numerator", p_numerator, 1, 1, kPureFoldRaise},
    {"denominator", p_denominator, 1, 1, kPureFoldRaise},
    {"floor", p_floor, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDZero)},
    {"ceiling", p_ceiling, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDZero)},
    {"truncate", p_truncate, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDZero)},
    {"round", p_round, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDZero)},
    {"rationalize", p_rationalize, 2, 2, kPureFoldRaise},
    {"exp", p_exp, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDExp)},
    {"log", p_log, 1, 2, kPureFoldRaise,
     kFacts.differentiable(&kDLog)},
    {"sin", p_sin, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDSin)},
    {"cos", p_cos, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDCos)},
    {"tan", p_tan, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDTan)},
    {"asin", p_asin, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDAsin)},
    {"acos", p_acos, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDAcos)},
    {"atan", p_atan, 1, 2, kPureFoldRaise,
     kFacts.differentiable(&kDAtan)},
    {"sqrt", p_sqrt, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDSqrt).jit_as(JitRecipe::kSqrt)},
    {"exact-integer-sqrt", p_exact_integer_sqrt, 1, 1, kPureRaise},
    {"expt", p_expt, 2, 2, kPureFoldRaise,
     kFacts.differentiable(&kDExpt)},
    {"make-rectangular", p_make_rectangular, 2, 2, kPureFoldRaise},
    {"make-polar", p_make_polar, 2, 2, kPureFoldRaise},
    {"real-part", p_real_part, 1, 1, kPureFoldRaise},
    {"imag-part", p_imag_part, 1, 1, kPureFoldRaise},
    {"magnitude", p_magnitude, 1, 1, kPureFoldRaise},
    {"angle", p_angle, 1, 1, kPureFoldRaise},
    {"exact", p_exact, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDIdentity)},
    {"inexact", p_inexact, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDIdentity)},
    {"inexact->exact", p_inexact_to_exact, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDIdentity)},
    {"exact->inexact", p_exact_to_inexact, 1, 1, kPureFoldRaise,
     kFacts.differentiable(&kDIdentity)},
    {"number->string", p_number_to_string, 1, 2, kText},
    {"string->number", p_string_to_number, 1, 2, kText},
    {"bitwise-and", p_bitwise_and, 0, -1, kPureFoldRaise},
    {"bitwise-or", p_bitwise_or, 0, -1, kPureFoldRaise},
    {"bitwise-xor", p_bitwise_xor, 0, -1, kPureFoldRaise},
    {"bitwise-not", p_bitwise_not, 1, 1, kPureFoldRaise},
    {"arithmetic-shift", p_arithmetic_shift, 2, 2, kPureFoldRaise,
     kFacts.numeric(NumResult::kExactInteger, false)},
    {"bit-count", p_bit_count, 1, 1, kPureFoldRaise},
};

}  // namespace

void register_numeric_primitives(Environment* env) { install_primitives(env, kNumericPrims); }

}  // namespace quasi
