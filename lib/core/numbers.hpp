// numbers.hpp — the numeric tower: fixnums, bignums and ratnums (GMP), flonums (IEEE double).
//
// Invariant: results are normalized. An exact integer that fits 63 bits is a fixnum; a ratnum
// with denominator 1 is an integer. Generic operations raise standard type errors naming the
// Scheme procedure ("+: expected a number, got a").
#pragma once

#include <gmp.h>

#include <string>
#include <string_view>

#include "core/object.hpp"

namespace quasi {

bool is_number(Value v);         // number? (all are real: no complex support yet)
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
int num_compare(Value a, Value b, const char* who);  // -1, 0, 1; NaN compares false everywhere
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
// exponents, +inf.0 -inf.0 +nan.0. Returns kFalse when the text is not a number.
Value parse_number(std::string_view text, int default_radix = 10);
// number->string: shortest representation that reads back to the same flonum.
std::string number_to_string(Value n, int radix = 10);

}  // namespace quasi
