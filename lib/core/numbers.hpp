// numbers.hpp — the numeric tower: fixnums, bignums and ratnums (GMP), flonums (IEEE double),
// and compnums (non-real complex numbers, rectangular: two real parts).
//
// Invariant: results are normalized. An exact integer that fits 63 bits is a fixnum; a ratnum
// with denominator 1 is an integer; a complex number with an exact 0 imaginary part is its real
// part, and a compnum's parts are both exact or both flonums (so 1+0.0i is a compnum, not real). Generic operations raise standard type errors naming the
// Scheme procedure ("+: expected a number, got a").
#pragma once

#include <gmp.h>

#include <string>
#include <string_view>

#include "core/object.hpp"

namespace quasi {

bool is_number(Value v);         // number?, complex?
bool is_real_value(Value v);     // real?: a number with an exact 0 imaginary part
bool is_exact(Value v);          // fixnum, bignum, ratnum
bool is_exact_integer(Value v);  // fixnum, bignum
bool is_integer_value(Value v);  // integer? (also 2.0)
bool is_rational_value(Value v);
inline bool is_bignum(Value v) { return has_type(v, Type::Bignum); }
inline bool is_ratnum(Value v) { return has_type(v, Type::Ratnum); }

Value make_integer(int64_t n);        // fixnum or bignum
Value make_integer(const mpz_t z);    // normalized copy
Value make_rational(const mpq_t q);   // normalized copy (integer when denominator is 1)
// Exact integer to int64 when it fits; false otherwise.
bool integer_to_int64(Value v, int64_t* out);
double number_to_double(Value v);     // any real

// Generic arithmetic: the slow paths behind the VM's fixnum fast paths.
Value num_add(Value a, Value b);
Value num_sub(Value a, Value b);
Value num_mul(Value a, Value b);
Value num_div(Value a, Value b);  // "/": exact division by exact 0 raises
// Comparisons: a and b must be real numbers (raise naming `who` otherwise).
// -1, 0, 1, or 2 when unordered (either is a NaN): NaN compares false everywhere.
int num_compare(Value a, Value b, const char* who);
bool num_eq(Value a, Value b);   // =
bool num_lt(Value a, Value b);   // <
bool num_le(Value a, Value b);   // <=
bool num_gt(Value a, Value b);   // >
bool num_ge(Value a, Value b);   // >=
Value num_quotient(Value a, Value b);
Value num_remainder(Value a, Value b);
Value num_modulo(Value a, Value b);
bool num_eqv(Value a, Value b);  // eqv? on numbers (exactness matters; 0.0 vs -0.0 differ)
uint64_t num_hash(Value v);      // consistent with num_eqv

// string->number: the R7RS syntax with #x #b #o #d #e #i prefixes, rationals, decimals with
// exponents (markers e s f d l), +inf.0 -inf.0 +nan.0, and complex numbers 1+2i +i -1/2-i
// 1@2 +inf.0i. Returns kFalse when the text is not a number.
Value parse_number(std::string_view text, int default_radix = 10);
// number->string: shortest representation that reads back to the same flonum.
std::string number_to_string(Value n, int radix = 10);

// ---- further operations (builtins/numeric.cpp; usable by other subsystems) -----------------
// Each raises a standard error naming its Scheme procedure.
void check_number(const char* who, Value v);  // "who: expected a number, got v"
bool is_nan_value(Value v);                   // a NaN flonum
Value num_negate(Value x);                    // unary -
Value num_abs(Value x);
Value num_exact(Value x, const char* who = "exact");  // raises for +inf.0 / +nan.0
Value num_inexact(Value x);
bool num_odd(Value x, const char* who);      // x an integer (2.0 allowed)
enum class DivMode { Floor, Truncate };
// floor/ and truncate/: integers (integral flonums allowed, inexact result); exact 0 raises.
void num_integer_divide(Value a, Value b, DivMode mode, const char* who, Value* q, Value* r);
Value num_gcd(Value a, Value b);
Value num_lcm(Value a, Value b);
enum class RoundMode { Floor, Ceiling, Truncate, Round };  // Round: to even
Value num_round(Value x, RoundMode mode);
Value num_numerator(Value x);
Value num_denominator(Value x);
Value num_rationalize(Value x, Value y);
Value num_sqrt(Value x);  // exact for exact perfect squares; negative raises
void num_exact_integer_sqrt(Value n, Value* s, Value* rest);
Value num_expt(Value base, Value exponent);
Value num_exp(Value x);
Value num_log(Value x);
Value num_log(Value x, Value base);
enum class TrigFn { Sin, Cos, Tan, Asin, Acos, Atan };
Value num_trig(TrigFn f, Value x);
Value num_atan2(Value y, Value x);
// (scheme complex). make-rectangular/make-polar take real parts; magnitude is exact for exact
// Gaussian integers with an integral magnitude; angle of a real is 0 or pi.
Value num_make_rectangular(Value re, Value im);
Value num_make_polar(Value magnitude, Value angle);
Value num_real_part(Value z);
Value num_imag_part(Value z);
Value num_magnitude(Value z);
Value num_angle(Value z);
// SRFI 151 on exact integers of any size (two's complement semantics).
Value num_bitwise_and(Value a, Value b);
Value num_bitwise_or(Value a, Value b);
Value num_bitwise_xor(Value a, Value b);
Value num_bitwise_not(Value a);
Value num_arithmetic_shift(Value n, Value count);
Value num_bit_count(Value n);
// The shortest text that reads back as d: "1.0", "-0.0", "1e100", "+inf.0", "+nan.0".
std::string flonum_to_string(double d);

}  // namespace quasi
