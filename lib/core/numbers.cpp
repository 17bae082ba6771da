// numbers.cpp — the numeric tower: fixnums, bignums and ratnums (GMP), flonums (IEEE double).
//
// Dispatch is on a small NumKind. Exact operations run on GMP temporaries (RAII wrappers Z / Q
// below, malloc memory that GMP frees: core/gc.cpp says why) and finish with take_z / take_q,
// which normalize the result and copy its limbs into a fresh pointer-free heap object. Exact -> double conversion is correctly rounded
// (round to nearest even), including subnormals; double -> exact is exact (mpq_set_d).
#include "core/numbers.hpp"

#include <charconv>
#include <climits>
#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <numeric>
#include <vector>

#include "core/alloc_watch.hpp"
#include "core/equality.hpp"
#include "core/error.hpp"

namespace quasi {
namespace {

enum NumKind { kNotNumber = 0, kFix, kBig, kRat, kFlo, kCpx };

inline NumKind kind_of(Value v) {
  if (v.is_fixnum()) return kFix;
  if (!v.is_ptr()) return kNotNumber;
  switch (v.obj()->type()) {
    case Type::Flonum: return kFlo;
    case Type::Bignum: return kBig;
    case Type::Ratnum: return kRat;
    case Type::Compnum: return kCpx;
    default: return kNotNumber;
  }
}

inline NumKind check_num(const char* who, Value v) {
  NumKind k = kind_of(v);
  if (k == kNotNumber) type_error(who, "a number", v);
  return k;
}
// For the operations defined on real numbers only.
inline NumKind check_real(const char* who, Value v) {
  NumKind k = kind_of(v);
  if (k == kNotNumber || k == kCpx) type_error(who, "a real number", v);
  return k;
}
inline Value cpx_re(Value v) { return v.as<Compnum>()->re; }
inline Value cpx_im(Value v) { return v.as<Compnum>()->im; }
inline bool is_exact_zero(Value v) { return v == make_fixnum(0); }
inline Value re_part(Value v) { return kind_of(v) == kCpx ? cpx_re(v) : v; }
inline Value im_part(Value v) { return kind_of(v) == kCpx ? cpx_im(v) : make_fixnum(0); }

// Upper bound on the size of exact results that could take very long to compute (expt,
// arithmetic-shift, #e literals): refused with a 'limit condition.
constexpr uint64_t kMaxResultBits = uint64_t(1) << 24;
// Largest |decimal exponent| accepted in an exact (#e) literal.
constexpr int64_t kMaxExactDecimalExponent = 1000000;

// Operands of this many limbs and more make GMP calls that take long enough to be worth checking
// the evaluation's limits before them (core/alloc_watch.hpp).
constexpr size_t kBigLimbs = 4096;
// Before GMP work whose result has about `result_limbs` limbs: checks the limits, so a result
// over the memory limit is refused before it is computed, and a time limit or an interrupt that
// is already due stops the work before it starts. The cost of one such call is bounded by its
// size, so the overshoot of a time limit is at most one call.
inline void before_big(const char* who, size_t result_limbs) {
  if (result_limbs >= kBigLimbs) watch_limits(result_limbs * sizeof(mp_limb_t), who);
}

[[noreturn]] void too_large(const char* who) {
  throw_condition("limit", who, "result too large");
}
// The call is named with its operands, "/: division by zero in (/ 1 0)": which division of an
// expression failed, and the message still says what went wrong first.
[[noreturn]] void divide_by_zero(const char* who, std::initializer_list<Value> operands) {
  std::string call = std::string("division by zero in (") + who;
  for (Value v : operands) call += " " + number_to_string(v);
  throw_condition("divide-by-zero", who, call + ")");
}
[[noreturn]] void complex_result(const char* who) {
  throw_error(who, "complex results are not supported");
}

// GMP temporaries (malloc memory, core/gc.cpp): freed when they go out of scope, also when an
// error unwinds through them.
struct Z {
  mpz_t v;
  Z() { mpz_init(v); }
  ~Z() { mpz_clear(v); }
  Z(const Z&) = delete;
  Z& operator=(const Z&) = delete;
};
struct Q {
  mpq_t v;
  Q() { mpq_init(v); }
  ~Q() { mpq_clear(v); }
  Q(const Q&) = delete;
  Q& operator=(const Q&) = delete;
};

// Exact integer v (fixnum or bignum) as a read-only mpz; tmp holds a fixnum's value.
mpz_srcptr zref(Value v, Z& tmp) {
  if (v.is_fixnum()) {
    mpz_set_si(tmp.v, v.fixnum());
    return tmp.v;
  }
  return &v.as<Bignum>()->z;
}
// Exact number v (fixnum, bignum, ratnum) as a read-only mpq.
mpq_srcptr qref(Value v, Q& tmp) {
  if (v.is_fixnum()) {
    mpq_set_si(tmp.v, v.fixnum(), 1);
    return tmp.v;
  }
  if (is_bignum(v)) {
    mpq_set_z(tmp.v, &v.as<Bignum>()->z);
    return tmp.v;
  }
  return &v.as<Ratnum>()->q;
}

// A heap copy of z's limbs at `limbs`: the mpz reads them where they lie (never written again).
void copy_limbs(__mpz_struct* dst, mpz_srcptr z, mp_limb_t* limbs) {
  size_t n = mpz_size(z);
  std::memcpy(limbs, z->_mp_d, n * sizeof(mp_limb_t));
  dst->_mp_alloc = int(n ? n : 1);
  dst->_mp_size = z->_mp_size;
  dst->_mp_d = limbs;
}

// Normalizes z into a Value: a fixnum, or a Bignum holding a copy of the limbs inline. The
// object is pointer-free for the collector (its one pointer points into itself), and numbers
// stay read-only: no GMP call may ever write to or free a heap number's limbs.
Value take_z(mpz_srcptr z) {
  if (mpz_fits_slong_p(z)) {
    long n = mpz_get_si(z);
    if (fits_fixnum(n)) return make_fixnum(n);
  }
  size_t n = mpz_size(z);
  auto* b = static_cast<Bignum*>(gc_alloc_atomic(sizeof(Bignum) + n * sizeof(mp_limb_t)));
  b->header = make_header(Type::Bignum);
  copy_limbs(&b->z, z, reinterpret_cast<mp_limb_t*>(b + 1));
  return make_ptr(b);
}
// q must be canonical. Copies its limbs like take_z.
Value take_q(mpq_srcptr q) {
  if (mpz_cmp_ui(mpq_denref(q), 1) == 0) return take_z(mpq_numref(q));
  size_t nn = mpz_size(mpq_numref(q)), nd = mpz_size(mpq_denref(q));
  auto* r = static_cast<Ratnum*>(gc_alloc_atomic(sizeof(Ratnum) + (nn + nd) * sizeof(mp_limb_t)));
  r->header = make_header(Type::Ratnum);
  auto* limbs = reinterpret_cast<mp_limb_t*>(r + 1);
  copy_limbs(mpq_numref(&r->q), mpq_numref(q), limbs);
  copy_limbs(mpq_denref(&r->q), mpq_denref(q), limbs + nn);
  return make_ptr(r);
}

inline int sign_of_exact(Value v) {
  if (v.is_fixnum()) return (v.fixnum() > 0) - (v.fixnum() < 0);
  if (is_bignum(v)) return mpz_sgn(&v.as<Bignum>()->z);
  return mpq_sgn(&v.as<Ratnum>()->q);
}

// ---- exact <-> double ----------------------------------------------------------------------

// Rounds t * 2^-k to the nearest double (ties to even). t > 0; `sticky` says nonzero bits were
// already discarded below t. Callers pass at least 55 significant bits when sticky is set.
double round_scaled(mpz_srcptr t, long k, bool sticky) {
  long nb = static_cast<long>(mpz_sizeinbase(t, 2));
  long e = nb - 1 - k;  // binary exponent of the leading bit
  long prec = 53;
  if (e < -1022) prec = 53 - (-1022 - e);  // subnormal: fewer bits survive
  long drop = nb - prec;
  double m;
  long scale;
  if (drop <= 0) {
    m = static_cast<double>(mpz_get_ui(t));  // at most 53 bits: exact
    scale = -k;
  } else {
    Z q;
    mpz_tdiv_q_2exp(q.v, t, static_cast<mp_bitcnt_t>(drop));
    uint64_t mm = mpz_get_ui(q.v);
    bool half = mpz_tstbit(t, static_cast<mp_bitcnt_t>(drop - 1));
    bool low = sticky || (drop >= 2 && mpz_scan1(t, 0) < static_cast<mp_bitcnt_t>(drop - 1));
    if (half && (low || (mm & 1))) mm++;
    m = static_cast<double>(mm);  // at most 2^53: exact
    scale = drop - k;
  }
  if (scale > 4000) scale = 4000;
  if (scale < -4000) scale = -4000;
  return std::ldexp(m, static_cast<int>(scale));
}

double mpz_to_double(mpz_srcptr z) {
  if (mpz_sizeinbase(z, 2) <= 53) return mpz_get_d(z);  // exact
  Z a;
  mpz_abs(a.v, z);
  double d = round_scaled(a.v, 0, false);
  return mpz_sgn(z) < 0 ? -d : d;
}

double mpq_to_double(mpq_srcptr q) {
  mpz_srcptr num = mpq_numref(q), den = mpq_denref(q);
  if (mpz_cmp_ui(den, 1) == 0) return mpz_to_double(num);
  if (mpz_sgn(num) == 0) return 0.0;
  if (mpz_sizeinbase(num, 2) <= 53 && mpz_sizeinbase(den, 2) <= 53) {
    // Both exact as doubles: one correctly rounded division.
    return mpz_get_d(num) / mpz_get_d(den);
  }
  Z a, t, r;
  mpz_abs(a.v, num);
  long bp = static_cast<long>(mpz_sizeinbase(a.v, 2));
  long bd = static_cast<long>(mpz_sizeinbase(den, 2));
  long k = 55 + bd - bp;
  if (k < 0) k = 0;
  mpz_mul_2exp(a.v, a.v, static_cast<mp_bitcnt_t>(k));
  mpz_tdiv_qr(t.v, r.v, a.v, den);
  double d = round_scaled(t.v, k, mpz_sgn(r.v) != 0);
  return mpz_sgn(num) < 0 ? -d : d;
}

inline double to_double(Value v) {
  switch (kind_of(v)) {
    case kFix: return static_cast<double>(v.fixnum());
    case kBig: return mpz_to_double(&v.as<Bignum>()->z);
    case kRat: return mpq_to_double(&v.as<Ratnum>()->q);
    case kFlo: return flonum_value(v);
    default: type_error(nullptr, "a number", v);
  }
}

// The exact value of a finite double.
Value exact_from_double(double d) {
  if (d == std::trunc(d) && std::fabs(d) < 4611686018427387904.0) {  // |d| < 2^62
    return make_fixnum(static_cast<int64_t>(d));
  }
  Q q;
  mpq_set_d(q.v, d);
  mpq_canonicalize(q.v);
  return take_q(q.v);
}

inline bool is_integral_double(double d) { return std::isfinite(d) && d == std::trunc(d); }

// An exact integer or an integral flonum; sets *inexact for the latter.
void check_integer(const char* who, Value v, bool* inexact) {
  NumKind k = kind_of(v);
  if (k == kFix || k == kBig) return;
  if (k == kFlo && is_integral_double(flonum_value(v))) {
    *inexact = true;
    return;
  }
  type_error(who, "an integer", v);
}
// The exact integer value of v (exact integer or integral flonum).
mpz_srcptr int_ref(Value v, Z& tmp) {
  if (is_flonum(v)) {
    mpz_set_d(tmp.v, flonum_value(v));
    return tmp.v;
  }
  return zref(v, tmp);
}
inline Value int_result(mpz_ptr z, bool inexact) {
  return inexact ? make_flonum(mpz_to_double(z)) : take_z(z);
}

void check_exact_integer(const char* who, Value v) {
  if (!is_exact_integer(v)) type_error(who, "an exact integer", v);
}

// ---- generic arithmetic --------------------------------------------------------------------

enum class Op { Add, Sub, Mul };

Value cpx_arith(Op op, Value a, Value b);
Value cpx_divide(Value a, Value b, const char* who);

Value arith(Op op, Value a, Value b, const char* who) {
  if (a.is_fixnum() && b.is_fixnum()) {
    int64_t x = a.fixnum(), y = b.fixnum(), r;
    bool overflow = false;
    switch (op) {
      case Op::Add: overflow = __builtin_add_overflow(x, y, &r); break;
      case Op::Sub: overflow = __builtin_sub_overflow(x, y, &r); break;
      case Op::Mul: overflow = __builtin_mul_overflow(x, y, &r); break;
    }
    if (!overflow) return make_integer(r);
    Z z;
    mpz_set_si(z.v, x);
    mpz_mul_si(z.v, z.v, y);  // only multiplication can overflow int64
    return take_z(z.v);
  }
  if (is_flonum(a) && is_flonum(b)) {  // the flonum case below, without classifying twice
    double x = flonum_value(a), y = flonum_value(b);
    switch (op) {
      case Op::Add: return make_flonum(x + y);
      case Op::Sub: return make_flonum(x - y);
      case Op::Mul: return make_flonum(x * y);
    }
  }
  NumKind ka = check_num(who, a), kb = check_num(who, b);
  if (ka == kCpx || kb == kCpx) return cpx_arith(op, a, b);
  if (ka == kFlo || kb == kFlo) {
    double x = to_double(a), y = to_double(b);
    switch (op) {
      case Op::Add: return make_flonum(x + y);
      case Op::Sub: return make_flonum(x - y);
      case Op::Mul: return make_flonum(x * y);
    }
  }
  if (ka == kRat || kb == kRat) {
    Q ta, tb, r;
    mpq_srcptr qa = qref(a, ta), qb = qref(b, tb);
    before_big(who, mpz_size(mpq_numref(qa)) + mpz_size(mpq_denref(qa)) + mpz_size(mpq_numref(qb)) +
                        mpz_size(mpq_denref(qb)));
    switch (op) {
      case Op::Add: mpq_add(r.v, qa, qb); break;
      case Op::Sub: mpq_sub(r.v, qa, qb); break;
      case Op::Mul: mpq_mul(r.v, qa, qb); break;
    }
    return take_q(r.v);
  }
  Z ta, tb, r;
  mpz_srcptr za = zref(a, ta), zb = zref(b, tb);
  before_big(who, op == Op::Mul ? mpz_size(za) + mpz_size(zb) : std::max(mpz_size(za), mpz_size(zb)) + 1);
  switch (op) {
    case Op::Add: mpz_add(r.v, za, zb); break;
    case Op::Sub: mpz_sub(r.v, za, zb); break;
    case Op::Mul: mpz_mul(r.v, za, zb); break;
  }
  return take_z(r.v);
}

Value divide(Value a, Value b, const char* who) {
  // two flonums, the common case of numeric code (gradients divide at every step): no kind tests
  if (is_flonum(a) && is_flonum(b)) return make_flonum(flonum_value(a) / flonum_value(b));
  NumKind ka = check_num(who, a), kb = check_num(who, b);
  if (ka == kCpx || kb == kCpx) return cpx_divide(a, b, who);
  if (ka == kFlo || kb == kFlo) return make_flonum(to_double(a) / to_double(b));
  if (b == make_fixnum(0)) divide_by_zero(who, {a, b});
  if (ka == kFix && kb == kFix) {
    int64_t x = a.fixnum(), y = b.fixnum();
    if (x % y == 0) return make_integer(x / y);
  }
  Q ta, tb, r;
  mpq_srcptr qa = qref(a, ta), qb = qref(b, tb);
  before_big(who, mpz_size(mpq_numref(qa)) + mpz_size(mpq_denref(qa)) + mpz_size(mpq_numref(qb)) +
                      mpz_size(mpq_denref(qb)));
  mpq_div(r.v, qa, qb);
  return take_q(r.v);
}

// Exact comparison of two exact numbers.
int compare_exact(Value a, Value b, NumKind ka, NumKind kb) {
  if (ka == kRat || kb == kRat) {
    Q ta, tb;
    int c = mpq_cmp(qref(a, ta), qref(b, tb));
    return (c > 0) - (c < 0);
  }
  if (ka == kFix && kb == kFix) return (a.fixnum() > b.fixnum()) - (a.fixnum() < b.fixnum());
  // A bignum lies outside the fixnum range, so its sign decides against a fixnum.
  if (ka == kFix) return -mpz_sgn(&b.as<Bignum>()->z);
  if (kb == kFix) return mpz_sgn(&a.as<Bignum>()->z);
  int c = mpz_cmp(&a.as<Bignum>()->z, &b.as<Bignum>()->z);
  return (c > 0) - (c < 0);
}

int compare(Value a, Value b, const char* who) {
  if (a.is_fixnum() && b.is_fixnum()) return (a.fixnum() > b.fixnum()) - (a.fixnum() < b.fixnum());
  NumKind ka = check_num(who, a), kb = check_num(who, b);
  if (ka == kCpx || kb == kCpx) {
    // Only = (and zero?) are defined on non-real numbers: equal parts, else "unordered".
    if (std::strcmp(who, "=") != 0 && std::strcmp(who, "zero?") != 0)
      type_error(who, "a real number", ka == kCpx ? a : b);
    return compare(re_part(a), re_part(b), who) == 0 && compare(im_part(a), im_part(b), who) == 0
               ? 0
               : 2;
  }
  if (ka == kFlo && kb == kFlo) {
    double x = flonum_value(a), y = flonum_value(b);
    if (std::isnan(x) || std::isnan(y)) return 2;
    return (x > y) - (x < y);
  }
  if (ka == kFlo || kb == kFlo) {
    // Mixed: compare exactly, so that = stays transitive.
    bool flip = kb == kFlo;
    double d = flonum_value(flip ? b : a);
    Value e = flip ? a : b;
    NumKind ke = flip ? ka : kb;
    int c;
    if (std::isnan(d)) return 2;
    if (std::isinf(d)) {
      c = d > 0 ? 1 : -1;
    } else if (ke == kFix && std::llabs(e.fixnum()) <= (int64_t(1) << 53)) {
      double x = static_cast<double>(e.fixnum());
      c = (d > x) - (d < x);
    } else {
      Value de = exact_from_double(d);
      c = compare_exact(de, e, kind_of(de), ke);
    }
    return flip ? -c : c;
  }
  return compare_exact(a, b, ka, kb);
}

// Quotient and remainder of integers (integral flonums allowed).
void int_divide(Value a, Value b, DivMode mode, const char* who, Value* q, Value* r) {
  bool inexact = false;
  check_integer(who, a, &inexact);
  check_integer(who, b, &inexact);
  if (a.is_fixnum() && b.is_fixnum()) {
    int64_t x = a.fixnum(), y = b.fixnum();
    if (y == 0) divide_by_zero(who, {a, b});
    int64_t qq = x / y, rr = x % y;
    if (mode == DivMode::Floor && rr != 0 && ((rr < 0) != (y < 0))) {
      qq -= 1;
      rr += y;
    }
    if (q) *q = make_integer(qq);  // kFixnumMin / -1 needs a bignum
    if (r) *r = make_fixnum(rr);
    return;
  }
  Z ta, tb, zq, zr;
  mpz_srcptr za = int_ref(a, ta), zb = int_ref(b, tb);
  if (mpz_sgn(zb) == 0) divide_by_zero(who, {a, b});
  before_big(who, mpz_size(za) + mpz_size(zb));
  if (mode == DivMode::Floor) mpz_fdiv_qr(zq.v, zr.v, za, zb);
  else mpz_tdiv_qr(zq.v, zr.v, za, zb);
  if (q) *q = int_result(zq.v, inexact);
  if (r) *r = int_result(zr.v, inexact);
}

uint64_t hash_mpz(mpz_srcptr z) {
  uint64_t h = mix64(static_cast<uint64_t>(mpz_sgn(z)) + 0x9e3779b97f4a7c15ULL);
  size_t n = mpz_size(z);
  for (size_t i = 0; i < n; i++) h = mix64(h ^ mpz_getlimbn(z, i));
  return h;
}

// Natural logarithm of a positive exact integer of any size.
double log_mpz(mpz_srcptr z) {
  if (mpz_sizeinbase(z, 2) <= 1000) return std::log(mpz_to_double(z));
  long e;
  double m = mpz_get_d_2exp(&e, z);
  return std::log(m) + static_cast<double>(e) * M_LN2;
}

// log of any number; negative arguments would need complex results.
double log_of(Value x, const char* who) {
  switch (check_num(who, x)) {
    case kFix:
      if (x.fixnum() < 0) complex_result(who);
      return std::log(static_cast<double>(x.fixnum()));
    case kBig:
      if (mpz_sgn(&x.as<Bignum>()->z) < 0) complex_result(who);
      return log_mpz(&x.as<Bignum>()->z);
    case kRat: {
      mpq_srcptr q = &x.as<Ratnum>()->q;
      if (mpq_sgn(q) < 0) complex_result(who);
      // Near 1, q's nearest double may be 1.0 itself ((log (+ 1 (expt 2 -60))) would be 0.0):
      // log1p of the exact q - 1 keeps the digits.
      mpq_t t;  // (num - den) / den, in lowest terms as num / den is
      mpq_init(t);
      mpz_sub(mpq_numref(t), mpq_numref(q), mpq_denref(q));
      mpz_set(mpq_denref(t), mpq_denref(q));
      double below_one = mpq_to_double(t);
      mpq_clear(t);
      if (std::fabs(below_one) < 0.5) return std::log1p(below_one);
      double d = mpq_to_double(q);
      if (std::isnormal(d)) return std::log(d);
      return log_mpz(mpq_numref(q)) - log_mpz(mpq_denref(q));
    }
    default: {
      double d = flonum_value(x);
      if (d < 0) complex_result(who);
      return std::log(d);
    }
  }
}

// sqrt of a non-negative exact integer as a double (also beyond the double range of z).
double sqrt_mpz_double(mpz_srcptr z) {
  if (mpz_sizeinbase(z, 2) <= 1000) return std::sqrt(mpz_to_double(z));
  Z s;
  mpz_sqrt(s.v, z);
  return mpz_to_double(s.v);
}

// r = b^e, in steps that check the evaluation's limits when the result is big: one mpz_pow_ui
// of a 2^24-bit result runs for a second, past any time limit. Squaring from the exponent's top
// bit: the last squaring, the longest step, is about half of the whole. Without limits on this
// thread, GMP's own.
void pow_checked(mpz_ptr r, mpz_srcptr b, uint64_t e, const char* who) {
  long exp2;
  double mant = std::fabs(mpz_get_d_2exp(&exp2, b));  // |b| = mant * 2^exp2, mant in [0.5, 1)
  double bits = mant > 0 ? double(exp2) + std::log2(mant) : 0;
  size_t result_limbs = size_t(std::min(bits * double(e) / 64 + 1, 1e15));
  if (result_limbs < kBigLimbs || !tl_limits_set) {
    mpz_pow_ui(r, b, e);
    return;
  }
  before_big(who, result_limbs);
  Z base;
  mpz_set(base.v, b);
  mpz_set(r, b);
  for (int bit = 62 - __builtin_clzll(e); bit >= 0; bit--) {
    before_big(who, 2 * mpz_size(r));
    mpz_mul(r, r, r);
    if ((e >> bit) & 1) mpz_mul(r, r, base.v);
  }
}

// base^e for an exact base and exact integer exponent.
Value expt_exact(Value base, Value e) {
  const char* who = "expt";
  int se = sign_of_exact(e);
  if (se == 0) return make_fixnum(1);
  if (base == make_fixnum(0)) {
    if (se < 0) divide_by_zero(who, {base, e});
    return base;
  }
  if (base == make_fixnum(1)) return base;
  if (base == make_fixnum(-1)) {
    bool odd = e.is_fixnum() ? (e.fixnum() & 1) : mpz_odd_p(&e.as<Bignum>()->z);
    return odd ? base : make_fixnum(1);
  }
  int64_t ee;
  if (!integer_to_int64(e, &ee)) too_large(who);
  uint64_t ue = ee < 0 ? static_cast<uint64_t>(-(ee + 1)) + 1 : static_cast<uint64_t>(ee);
  Q tb;
  mpq_srcptr q = qref(base, tb);
  uint64_t bn = mpz_sizeinbase(mpq_numref(q), 2), bd = mpz_sizeinbase(mpq_denref(q), 2);
  // A lower bound of the result's size in bits.
  unsigned __int128 est = static_cast<unsigned __int128>((bn - 1) + (bd - 1)) * ue;
  if (est > kMaxResultBits) too_large(who);
  Q r;
  pow_checked(mpq_numref(r.v), mpq_numref(q), ue, who);
  pow_checked(mpq_denref(r.v), mpq_denref(q), ue, who);
  if (se < 0) {
    mpz_swap(mpq_numref(r.v), mpq_denref(r.v));
    if (mpz_sgn(mpq_denref(r.v)) < 0) {
      mpz_neg(mpq_numref(r.v), mpq_numref(r.v));
      mpz_neg(mpq_denref(r.v), mpq_denref(r.v));
    }
  }
  return take_q(r.v);  // coprime powers of coprime numbers: canonical
}

// Exact root for (expt exact p/q): the q-th root of a non-negative exact base, when exact.
bool exact_root(Value base, Value e, Value* out) {
  mpq_srcptr qe = &e.as<Ratnum>()->q;
  if (!mpz_fits_ulong_p(mpq_denref(qe))) return false;
  unsigned long n = mpz_get_ui(mpq_denref(qe));
  if (n > (1ul << 20)) return false;
  Q tb;
  mpq_srcptr qb = qref(base, tb);
  Q root;
  if (!mpz_root(mpq_numref(root.v), mpq_numref(qb), n)) return false;
  if (!mpz_root(mpq_denref(root.v), mpq_denref(qb), n)) return false;
  Value rv = take_q(root.v);
  Z tn;
  mpz_set(tn.v, mpq_numref(qe));
  *out = expt_exact(rv, take_z(tn.v));
  return true;
}

// ---- complex numbers -----------------------------------------------------------------------
// Exact complex arithmetic works on the parts with the real operations; inexact transcendental
// functions go through std::complex<double>, with R7RS's (Common Lisp's) branch cuts.

using Cd = std::complex<double>;


Value make_rect(Value re, Value im) {
  if (is_exact_zero(im)) return re;
  if (is_flonum(re) != is_flonum(im)) {  // both parts inexact, or both exact
    re = make_flonum(to_double(re));
    im = make_flonum(to_double(im));
  }
  Compnum* c = gc_alloc_object<Compnum>(Type::Compnum, sizeof(Compnum));
  c->re = re;
  c->im = im;
  return make_ptr(c);
}

inline Cd to_cd(Value v) {
  if (kind_of(v) == kCpx) return Cd(to_double(cpx_re(v)), to_double(cpx_im(v)));
  return Cd(to_double(v), 0.0);
}
inline Value from_cd(Cd c) { return make_rect(make_flonum(c.real()), make_flonum(c.imag())); }

// The parts of a flonum, a fixnum or a complex number with flonum parts as doubles: for those,
// every operation of cpx_arith's generic path below is a double operation (a missing imaginary
// part is exact 0, which converts to 0.0), so computing in doubles, in the same order, gives the
// same bits without the intermediate flonums.
inline bool double_parts(Value v, double* re, double* im) {
  if (is_flonum(v)) {
    *re = flonum_value(v);
    *im = 0.0;
    return true;
  }
  if (v.is_fixnum()) {
    *re = static_cast<double>(v.fixnum());
    *im = 0.0;
    return true;
  }
  if (kind_of(v) == kCpx && is_flonum(cpx_re(v))) {  // parts are both inexact or both exact
    *re = flonum_value(cpx_re(v));
    *im = flonum_value(cpx_im(v));
    return true;
  }
  return false;
}

Value cpx_arith(Op op, Value a, Value b) {
  double xr, xi, yr, yi;
  // One operand is complex; the other may be an exact complex, whose parts stay exact: not here.
  if (double_parts(a, &xr, &xi) && double_parts(b, &yr, &yi)) {
    double re, im;
    switch (op) {
      case Op::Add: re = xr + yr; im = xi + yi; break;
      case Op::Sub: re = xr - yr; im = xi - yi; break;
      case Op::Mul:
        if (kind_of(a) != kCpx) { re = xr * yr; im = xr * yi; }
        else if (kind_of(b) != kCpx) { re = xr * yr; im = xi * yr; }
        else { re = xr * yr - xi * yi; im = xr * yi + xi * yr; }
        break;
    }
    return make_rect(make_flonum(re), make_flonum(im));
  }
  Value ar = re_part(a), ai = im_part(a), br = re_part(b), bi = im_part(b);
  switch (op) {
    case Op::Add: return make_rect(num_add(ar, br), num_add(ai, bi));
    case Op::Sub: return make_rect(num_sub(ar, br), num_sub(ai, bi));
    case Op::Mul:
      // A real times a complex scales each part (as Chez does): the full product's zero terms
      // would turn an infinite part's partner into NaN and lose a -0.0, so (* 1.0 z) is z.
      if (kind_of(a) != kCpx) return make_rect(num_mul(a, br), num_mul(a, bi));
      if (kind_of(b) != kCpx) return make_rect(num_mul(ar, b), num_mul(ai, b));
      return make_rect(num_sub(num_mul(ar, br), num_mul(ai, bi)),
                       num_add(num_mul(ar, bi), num_mul(ai, br)));
  }
  return a;
}

Value cpx_divide(Value a, Value b, const char* who) {
  if (is_exact(a) && is_exact(b)) {
    Value ar = re_part(a), ai = im_part(a), br = re_part(b), bi = im_part(b);
    Value d = num_add(num_mul(br, br), num_mul(bi, bi));
    if (is_exact_zero(d)) divide_by_zero(who, {a, b});
    return make_rect(divide(num_add(num_mul(ar, br), num_mul(ai, bi)), d, who),
                     divide(num_sub(num_mul(ai, br), num_mul(ar, bi)), d, who));
  }
  // A complex over a nonzero real divides each part, as cpx_arith multiplies: the full quotient's
  // zero terms would make an infinite part's partner NaN ((log -0.0 10) is -inf.0+1.36...i).
  if (kind_of(b) != kCpx && !is_exact_zero(b))
    return make_rect(divide(re_part(a), b, who), divide(im_part(a), b, who));
  return from_cd(to_cd(a) / to_cd(b));
}

const Cd kI(0.0, 1.0);
// 1 - z*z keeps the sign of a zero imaginary part (double - complex would negate it, and put
// asin 2 on the wrong side of its cut).
Cd cd_asin(Cd z) { return -kI * std::log(kI * z + std::sqrt(Cd(1.0, 0.0) - z * z)); }
Cd cd_acos(Cd z) { return M_PI / 2 - cd_asin(z); }
Cd cd_atan(Cd z) { return (std::log(1.0 + kI * z) - std::log(1.0 - kI * z)) / (2.0 * kI); }

// An exact complex result when `approx` rounds to Gaussian-rational parts whose square is z.
bool exact_complex_sqrt(Value z, Cd approx, Value* out) {
  double re = std::nearbyint(approx.real()), im = std::nearbyint(approx.imag());
  if (std::fabs(re) > 1e15 || std::fabs(im) > 1e15) return false;
  Value r = make_rect(make_integer(static_cast<int64_t>(re)), make_integer(static_cast<int64_t>(im)));
  Value sq = cpx_arith(Op::Mul, r, r);
  if (!num_eqv(sq, z)) return false;
  *out = r;
  return true;
}

// ---- number syntax -------------------------------------------------------------------------

inline int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}
size_t scan_digits(std::string_view s, size_t i, int radix) {
  while (i < s.size() && digit_value(s[i]) < radix) i++;
  return i;
}
// ---- digits of big numbers, in steps that check the limits --------------------------------------
// mpz_get_str and mpz_set_str are one call each, seconds long for millions of decimal digits.
// Above kDigitsLeaf digits, both convert by divide and conquer over the powers
// radix^(kDigitsLeaf * 2^j) (computed once by squaring), checking the evaluation's limits at
// every split. Radixes 2, 8 and 16 are linear in GMP and need none of this, and neither does an
// evaluation without a time or memory limit: GMP's own conversion is 20-40% faster.
constexpr size_t kDigitsLeaf = 100000;

struct DigitPowers {
  int radix;
  std::vector<std::unique_ptr<Z>> p;  // p[j] = radix^(kDigitsLeaf * 2^j)
  const char* who;
  mpz_srcptr at(size_t j) {
    while (p.size() <= j) {
      auto z = std::make_unique<Z>();
      if (p.empty()) {
        mpz_ui_pow_ui(z->v, unsigned(radix), kDigitsLeaf);
      } else {
        before_big(who, 2 * mpz_size(p.back()->v));
        mpz_mul(z->v, p.back()->v, p.back()->v);
      }
      p.push_back(std::move(z));
    }
    return p[j]->v;
  }
  static size_t digits(size_t j) { return kDigitsLeaf << j; }
};

// Appends the digits of 0 <= z < radix^(2 * digits(j)) (j = -1: z < radix^kDigitsLeaf), padded
// with zeros to `width` digits.
void put_digits(std::string& out, mpz_srcptr z, int j, size_t width, DigitPowers& pw) {
  if (j < 0) {
    size_t start = out.size();
    out.resize(start + mpz_sizeinbase(z, pw.radix) + 2);
    mpz_get_str(out.data() + start, pw.radix, z);
    size_t n = std::strlen(out.c_str() + start);
    out.resize(start + n);
    if (n < width) out.insert(start, width - n, '0');
    return;
  }
  mpz_srcptr p = pw.at(size_t(j));
  if (width == 0 && mpz_cmp(z, p) < 0) return put_digits(out, z, j - 1, 0, pw);
  watch_limits(0, pw.who);
  Z q, r;
  before_big(pw.who, mpz_size(z));
  mpz_tdiv_qr(q.v, r.v, z, p);
  size_t low = DigitPowers::digits(size_t(j));
  put_digits(out, q.v, j - 1, width > low ? width - low : 0, pw);
  put_digits(out, r.v, j - 1, low, pw);
}

std::string z_to_string(mpz_srcptr z, int radix) {
  size_t n = mpz_sizeinbase(z, radix);
  if (n <= kDigitsLeaf || (radix & (radix - 1)) == 0 || !tl_limits_set) {
    std::string out(n + 2, '\0');
    mpz_get_str(out.data(), radix, z);
    out.resize(std::strlen(out.c_str()));
    return out;
  }
  watch_limits(n, "number->string");  // the string's bytes
  DigitPowers pw{radix, {}, "number->string"};
  int j = 0;
  while (2 * DigitPowers::digits(size_t(j)) < n) j++;
  std::string out;
  out.reserve(n + 1);
  if (mpz_sgn(z) < 0) out.push_back('-');
  Z a;
  mpz_abs(a.v, z);
  put_digits(out, a.v, j, 0, pw);
  return out;
}

// The value of digits.size() <= 2 * digits(j) digits (j = -1: at most kDigitsLeaf).
void get_digits(mpz_ptr out, std::string_view digits, int j, DigitPowers& pw) {
  if (j < 0) {
    std::string tmp(digits);
    mpz_set_str(out, tmp.c_str(), pw.radix);
    return;
  }
  size_t low = DigitPowers::digits(size_t(j));
  if (digits.size() <= low) return get_digits(out, digits, j - 1, pw);
  watch_limits(0, pw.who);
  Z hi, lo;
  get_digits(hi.v, digits.substr(0, digits.size() - low), j - 1, pw);
  get_digits(lo.v, digits.substr(digits.size() - low), j - 1, pw);
  mpz_srcptr p = pw.at(size_t(j));
  before_big(pw.who, mpz_size(hi.v) + mpz_size(p));
  mpz_mul(out, hi.v, p);
  mpz_add(out, out, lo.v);
}

// Digits already validated for radix.
void digits_to_mpz(mpz_ptr out, std::string_view digits, int radix) {
  if (digits.size() <= 15) {
    uint64_t n = 0;
    for (char c : digits) n = n * radix + digit_value(c);
    mpz_set_ui(out, n);
    return;
  }
  if (digits.size() <= kDigitsLeaf || (radix & (radix - 1)) == 0 || !tl_limits_set) {
    std::string tmp(digits);
    mpz_set_str(out, tmp.c_str(), radix);
    return;
  }
  DigitPowers pw{radix, {}, "string->number"};
  before_big(pw.who, size_t(double(digits.size()) * std::log2(radix) / 64) + 1);
  int j = 0;
  while (2 * DigitPowers::digits(size_t(j)) < digits.size()) j++;
  get_digits(out, digits, j, pw);
}
bool equals_ci(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

// A decimal in radix 10: int_digits [. frac_digits] [e exponent], already split.
Value decimal_value(bool neg, std::string_view int_digits, std::string_view frac_digits,
                    bool exp_neg, std::string_view exp_digits, bool exact) {
  // Exponent, saturated far beyond anything that matters.
  size_t k = 0;
  while (k < exp_digits.size() && exp_digits[k] == '0') k++;
  std::string_view ed = exp_digits.substr(k);
  int64_t ex = 0;
  if (ed.size() > 12) ex = 1000000000000LL;
  else for (char c : ed) ex = ex * 10 + (c - '0');
  if (exp_neg) ex = -ex;

  if (exact) {
    Z m;
    std::string all(int_digits);
    all += frac_digits;
    size_t nz = all.find_first_not_of('0');
    if (nz == std::string::npos) return make_fixnum(0);
    digits_to_mpz(m.v, std::string_view(all).substr(nz), 10);
    int64_t scale = ex - static_cast<int64_t>(frac_digits.size());
    // A well-formed number Quasi will not build: a limit, not a syntax error.
    if (scale > kMaxExactDecimalExponent || scale < -kMaxExactDecimalExponent)
      throw_condition("limit", nullptr,
                      "exact number too large: decimal exponent beyond " + std::to_string(kMaxExactDecimalExponent));
    if (neg) mpz_neg(m.v, m.v);
    Z p;
    mpz_ui_pow_ui(p.v, 10, static_cast<unsigned long>(scale < 0 ? -scale : scale));
    if (scale >= 0) {
      mpz_mul(m.v, m.v, p.v);
      return take_z(m.v);
    }
    Q q;
    mpz_swap(mpq_numref(q.v), m.v);
    mpz_swap(mpq_denref(q.v), p.v);
    mpq_canonicalize(q.v);
    return take_q(q.v);
  }

  // Inexact: a clean, locale-independent text for from_chars (correctly rounded).
  if (ex > 100000000) ex = 100000000;
  if (ex < -100000000) ex = -100000000;
  std::string text;
  text.reserve(int_digits.size() + frac_digits.size() + 16);
  text += int_digits.empty() ? std::string_view("0") : int_digits;
  text += '.';
  text += frac_digits.empty() ? std::string_view("0") : frac_digits;
  text += 'e';
  text += std::to_string(ex);
  double d = 0;
  auto res = std::from_chars(text.data(), text.data() + text.size(), d);
  if (res.ec == std::errc::result_out_of_range) {
    // Overflow or underflow: decide by where the first significant digit sits.
    size_t nz = int_digits.find_first_not_of('0');
    int64_t eff;
    if (nz != std::string_view::npos) {
      eff = ex + static_cast<int64_t>(int_digits.size() - nz);
    } else {
      size_t fz = frac_digits.find_first_not_of('0');
      eff = ex - static_cast<int64_t>(fz == std::string_view::npos ? 0 : fz);
    }
    d = eff > 0 ? HUGE_VAL : 0.0;
  } else if (res.ec != std::errc()) {
    return kFalse;
  }
  return make_flonum(neg ? -d : d);
}

// A real without prefixes. exactness: 0, 'e' or 'i'.
Value parse_real(std::string_view s, int radix, char exactness) {
  if (s.empty()) return kFalse;
  bool neg = false, has_sign = false;
  size_t i = 0;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    has_sign = true;
    i = 1;
  }
  std::string_view rest = s.substr(i);
  if (has_sign && (equals_ci(rest, "inf.0") || equals_ci(rest, "nan.0"))) {
    if (exactness == 'e') return kFalse;
    if (rest[0] == 'n' || rest[0] == 'N') return make_flonum(std::nan(""));
    return make_flonum(neg ? -HUGE_VAL : HUGE_VAL);
  }
  size_t int_end = scan_digits(s, i, radix);
  std::string_view int_digits = s.substr(i, int_end - i);
  if (int_end == s.size()) {
    if (int_digits.empty()) return kFalse;
    Z z;
    digits_to_mpz(z.v, int_digits, radix);
    if (exactness == 'i') {
      double d = mpz_to_double(z.v);
      return make_flonum(neg ? -d : d);
    }
    if (neg) mpz_neg(z.v, z.v);
    return take_z(z.v);
  }
  char c = s[int_end];
  if (c == '/') {
    if (int_digits.empty()) return kFalse;
    size_t den_end = scan_digits(s, int_end + 1, radix);
    std::string_view den_digits = s.substr(int_end + 1, den_end - int_end - 1);
    if (den_digits.empty() || den_end != s.size()) return kFalse;
    Q q;
    digits_to_mpz(mpq_numref(q.v), int_digits, radix);
    digits_to_mpz(mpq_denref(q.v), den_digits, radix);
    if (mpz_sgn(mpq_denref(q.v)) == 0) return kFalse;
    mpq_canonicalize(q.v);
    if (exactness == 'i') {
      double d = mpq_to_double(q.v);
      return make_flonum(neg ? -d : d);
    }
    if (neg) mpq_neg(q.v, q.v);
    return take_q(q.v);
  }
  auto is_exp_marker = [](char m) {
    switch (m) {
      case 'e': case 'E': case 's': case 'S': case 'f': case 'F':
      case 'd': case 'D': case 'l': case 'L': return true;
      default: return false;
    }
  };
  if (radix != 10 || (c != '.' && !is_exp_marker(c))) return kFalse;
  size_t j = int_end;
  std::string_view frac_digits;
  if (c == '.') {
    size_t frac_end = scan_digits(s, j + 1, 10);
    frac_digits = s.substr(j + 1, frac_end - j - 1);
    j = frac_end;
  }
  if (int_digits.empty() && frac_digits.empty()) return kFalse;
  bool exp_neg = false;
  std::string_view exp_digits;
  if (j < s.size()) {
    if (!is_exp_marker(s[j])) return kFalse;
    j++;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) {
      exp_neg = s[j] == '-';
      j++;
    }
    size_t exp_end = scan_digits(s, j, 10);
    exp_digits = s.substr(j, exp_end - j);
    if (exp_digits.empty() || exp_end != s.size()) return kFalse;
  }
  return decimal_value(neg, int_digits, frac_digits, exp_neg, exp_digits, exactness == 'e');
}

// A complex number without prefixes: real, real@real, [real](+|-)[ureal]i, (+|-)inf.0i ...
Value parse_complex(std::string_view s, int radix, char exactness) {
  if (s.empty()) return kFalse;
  size_t at = s.find('@');
  if (at != std::string_view::npos) {
    Value m = parse_real(s.substr(0, at), radix, exactness);
    Value a = m == kFalse ? kFalse : parse_real(s.substr(at + 1), radix, exactness);
    if (a == kFalse) return kFalse;
    Value z = num_make_polar(m, a);
    return exactness == 'e' ? num_exact(z) : z;
  }
  char last = s.back();
  if (last != 'i' && last != 'I') return parse_real(s, radix, exactness);
  std::string_view body = s.substr(0, s.size() - 1);
  // The imaginary part starts at the last sign that is not the sign of an exponent.
  size_t k = std::string_view::npos;
  for (size_t j = body.size(); j-- > 0;) {
    if (body[j] != '+' && body[j] != '-') continue;
    if (j >= 2 && radix == 10) {
      char m = body[j - 1], before = body[j - 2];
      bool marker = std::strchr("eEsSfFdDlL", m) != nullptr;
      if (marker && ((before >= '0' && before <= '9') || before == '.')) continue;
    }
    k = j;
    break;
  }
  if (k == std::string_view::npos) return kFalse;  // the imaginary part needs its sign
  std::string_view re_text = body.substr(0, k), im_text = body.substr(k);
  Value re = re_text.empty() ? make_fixnum(0) : parse_real(re_text, radix, exactness);
  if (re == kFalse) return kFalse;
  Value im;
  if (im_text.size() == 1) {
    im = make_fixnum(im_text[0] == '-' ? -1 : 1);
    if (exactness == 'i') im = make_flonum(im_text[0] == '-' ? -1.0 : 1.0);
  } else {
    im = parse_real(im_text, radix, exactness);
  }
  if (im == kFalse) return kFalse;
  if (exactness == 'i' && re_text.empty()) re = make_flonum(0.0);
  return make_rect(re, im);
}

std::string exact_to_string(Value n, int radix) {
  if (n.is_fixnum()) {
    char buf[80];
    auto res = std::to_chars(buf, buf + sizeof buf, n.fixnum(), radix);
    return std::string(buf, res.ptr);
  }
  if (is_bignum(n)) return z_to_string(&n.as<Bignum>()->z, radix);
  mpq_srcptr q = &n.as<Ratnum>()->q;
  return z_to_string(mpq_numref(q), radix) + "/" + z_to_string(mpq_denref(q), radix);
}

// Simplest rational in [lo, hi], 0 < lo <= hi (Stern-Brocot / continued fractions).
void simplest_positive(mpq_ptr out, mpq_srcptr lo_in, mpq_srcptr hi_in) {
  Q lo, hi, t;
  mpq_set(lo.v, lo_in);
  mpq_set(hi.v, hi_in);
  std::vector<std::unique_ptr<Z>> terms;
  Z fl, flh;
  for (;;) {
    mpz_fdiv_q(fl.v, mpq_numref(lo.v), mpq_denref(lo.v));
    auto term = std::make_unique<Z>();
    if (mpz_cmp_ui(mpq_denref(lo.v), 1) == 0) {  // lo is an integer
      mpz_set(term->v, fl.v);
      terms.push_back(std::move(term));
      break;
    }
    mpz_fdiv_q(flh.v, mpq_numref(hi.v), mpq_denref(hi.v));
    if (mpz_cmp(fl.v, flh.v) < 0) {  // an integer lies in (lo, hi]
      mpz_add_ui(term->v, fl.v, 1);
      terms.push_back(std::move(term));
      break;
    }
    mpz_set(term->v, fl.v);
    terms.push_back(std::move(term));
    // Next: simplest in [1/(hi - fl), 1/(lo - fl)].
    mpq_set_z(t.v, fl.v);
    Q nlo, nhi;
    mpq_sub(nlo.v, hi.v, t.v);
    mpq_inv(nlo.v, nlo.v);
    mpq_sub(nhi.v, lo.v, t.v);
    mpq_inv(nhi.v, nhi.v);
    mpq_swap(lo.v, nlo.v);
    mpq_swap(hi.v, nhi.v);
  }
  mpq_set_z(out, terms.back()->v);
  for (size_t i = terms.size() - 1; i-- > 0;) {
    mpq_inv(out, out);
    mpq_set_z(t.v, terms[i]->v);
    mpq_add(out, out, t.v);
  }
}

}  // namespace

// ---- predicates and conversions --------------------------------------------------------------

bool is_number(Value v) { return kind_of(v) != kNotNumber; }
bool is_exact(Value v) {
  NumKind k = kind_of(v);
  if (k == kCpx) return !is_flonum(cpx_re(v));
  return k == kFix || k == kBig || k == kRat;
}
bool is_real_value(Value v) {
  NumKind k = kind_of(v);
  return k != kNotNumber && k != kCpx;
}
bool is_exact_integer(Value v) { return v.is_fixnum() || is_bignum(v); }
bool is_integer_value(Value v) {
  switch (kind_of(v)) {
    case kFix:
    case kBig: return true;
    case kFlo: return is_integral_double(flonum_value(v));
    default: return false;
  }
}
bool is_rational_value(Value v) {
  switch (kind_of(v)) {
    case kFix:
    case kBig:
    case kRat: return true;
    case kFlo: return std::isfinite(flonum_value(v));
    default: return false;
  }
}
bool is_nan_value(Value v) {
  if (kind_of(v) == kCpx) return is_nan_value(cpx_re(v)) || is_nan_value(cpx_im(v));
  return is_flonum(v) && std::isnan(flonum_value(v));
}

void check_number(const char* who, Value v) { check_num(who, v); }

Value make_integer(int64_t n) {
  if (fits_fixnum(n)) return make_fixnum(n);
  Z z;
  mpz_set_si(z.v, n);
  return take_z(z.v);
}
Value make_integer(const mpz_t z) { return take_z(z); }
Value make_rational(const mpq_t q) {
  if (mpz_sgn(mpq_denref(q)) == 0) {
    Z n;
    mpz_set(n.v, mpq_numref(q));
    divide_by_zero("/", {take_z(n.v), make_fixnum(0)});
  }
  Q c;
  mpq_set(c.v, q);
  mpq_canonicalize(c.v);
  return take_q(c.v);
}

bool integer_to_int64(Value v, int64_t* out) {
  if (v.is_fixnum()) {
    *out = v.fixnum();
    return true;
  }
  if (is_bignum(v) && mpz_fits_slong_p(&v.as<Bignum>()->z)) {
    *out = mpz_get_si(&v.as<Bignum>()->z);
    return true;
  }
  return false;
}

double number_to_double(Value v) { return to_double(v); }

// ---- arithmetic ------------------------------------------------------------------------------

Value num_add(Value a, Value b) { return arith(Op::Add, a, b, "+"); }
Value num_sub(Value a, Value b) { return arith(Op::Sub, a, b, "-"); }
Value num_mul(Value a, Value b) { return arith(Op::Mul, a, b, "*"); }
Value num_div(Value a, Value b) { return divide(a, b, "/"); }

int num_compare(Value a, Value b, const char* who) { return compare(a, b, who); }
bool num_eq(Value a, Value b) { return compare(a, b, "=") == 0; }
bool num_lt(Value a, Value b) { return compare(a, b, "<") == -1; }
bool num_le(Value a, Value b) {
  int c = compare(a, b, "<=");
  return c == -1 || c == 0;
}
bool num_gt(Value a, Value b) { return compare(a, b, ">") == 1; }
bool num_ge(Value a, Value b) {
  int c = compare(a, b, ">=");
  return c == 1 || c == 0;
}

Value num_quotient(Value a, Value b) {
  Value q;
  int_divide(a, b, DivMode::Truncate, "quotient", &q, nullptr);
  return q;
}
Value num_remainder(Value a, Value b) {
  Value r;
  int_divide(a, b, DivMode::Truncate, "remainder", nullptr, &r);
  return r;
}
Value num_modulo(Value a, Value b) {
  Value r;
  int_divide(a, b, DivMode::Floor, "modulo", nullptr, &r);
  return r;
}
void num_integer_divide(Value a, Value b, DivMode mode, const char* who, Value* q, Value* r) {
  int_divide(a, b, mode, who, q, r);
}

bool num_eqv(Value a, Value b) {
  if (a == b) return true;
  NumKind ka = kind_of(a), kb = kind_of(b);
  if (ka != kb) return false;
  switch (ka) {
    case kFlo: {
      double x = flonum_value(a), y = flonum_value(b);
      if (std::isnan(x) && std::isnan(y)) return true;
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case kBig: return mpz_cmp(&a.as<Bignum>()->z, &b.as<Bignum>()->z) == 0;
    case kRat: return mpq_equal(&a.as<Ratnum>()->q, &b.as<Ratnum>()->q) != 0;
    case kCpx: return num_eqv(cpx_re(a), cpx_re(b)) && num_eqv(cpx_im(a), cpx_im(b));
    default: return false;  // distinct fixnums, or not numbers
  }
}

uint64_t num_hash(Value v) {
  switch (kind_of(v)) {
    case kFlo: {
      double d = flonum_value(v);
      if (std::isnan(d)) return 0x7ff8dead0000beefULL;
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      return mix64(bits ^ 0x5bd1e9955bd1e995ULL);
    }
    case kBig: return hash_mpz(&v.as<Bignum>()->z);
    case kRat: {
      mpq_srcptr q = &v.as<Ratnum>()->q;
      return mix64(hash_mpz(mpq_numref(q)) * 31 + hash_mpz(mpq_denref(q)));
    }
    case kCpx: return mix64(num_hash(cpx_re(v)) * 37 + num_hash(cpx_im(v)));
    default: return mix64(v.bits);
  }
}

Value num_negate(Value x) {
  if (is_flonum(x)) return make_flonum(-flonum_value(x));
  switch (check_num("-", x)) {
    case kFix: return make_integer(-x.fixnum());
    case kBig: {
      Z z;
      mpz_neg(z.v, &x.as<Bignum>()->z);
      return take_z(z.v);
    }
    case kRat: {
      Q q;
      mpq_neg(q.v, &x.as<Ratnum>()->q);
      return take_q(q.v);
    }
    case kCpx: return make_rect(num_negate(cpx_re(x)), num_negate(cpx_im(x)));
    default: return make_flonum(-flonum_value(x));
  }
}

Value num_abs(Value x) {
  NumKind k = check_real("abs", x);
  if (k == kFlo) return make_flonum(std::fabs(flonum_value(x)));
  return sign_of_exact(x) < 0 ? num_negate(x) : x;
}

Value num_exact(Value x, const char* who) {
  NumKind k = check_num(who, x);
  if (k == kCpx) return make_rect(num_exact(cpx_re(x), who), num_exact(cpx_im(x), who));
  if (k != kFlo) return x;
  double d = flonum_value(x);
  if (!std::isfinite(d)) {
    throw_condition("range", who, "no exact representation for " + flonum_to_string(d));
  }
  return exact_from_double(d);
}

Value num_inexact(Value x) {
  NumKind k = check_num("inexact", x);
  if (k == kCpx) return make_rect(num_inexact(cpx_re(x)), num_inexact(cpx_im(x)));
  if (k == kFlo) return x;
  return make_flonum(to_double(x));
}

bool num_odd(Value x, const char* who) {
  bool inexact = false;
  check_integer(who, x, &inexact);
  if (x.is_fixnum()) return x.fixnum() & 1;
  if (inexact) return std::fmod(flonum_value(x), 2.0) != 0;
  return mpz_odd_p(&x.as<Bignum>()->z);
}

Value num_gcd(Value a, Value b) {
  bool inexact = false;
  check_integer("gcd", a, &inexact);
  check_integer("gcd", b, &inexact);
  if (a.is_fixnum() && b.is_fixnum()) {
    return make_integer(std::gcd(std::llabs(a.fixnum()), std::llabs(b.fixnum())));
  }
  Z ta, tb, r;
  mpz_srcptr za = int_ref(a, ta), zb = int_ref(b, tb);
  before_big("gcd", mpz_size(za) + mpz_size(zb));
  mpz_gcd(r.v, za, zb);
  return int_result(r.v, inexact);
}

Value num_lcm(Value a, Value b) {
  bool inexact = false;
  check_integer("lcm", a, &inexact);
  check_integer("lcm", b, &inexact);
  Z ta, tb, r;
  mpz_srcptr za = int_ref(a, ta), zb = int_ref(b, tb);
  before_big("lcm", mpz_size(za) + mpz_size(zb));
  mpz_lcm(r.v, za, zb);
  return int_result(r.v, inexact);
}

Value num_round(Value x, RoundMode mode) {
  static const char* const names[] = {"floor", "ceiling", "truncate", "round"};
  switch (check_real(names[static_cast<int>(mode)], x)) {
    case kFix:
    case kBig: return x;
    case kFlo: {
      double d = flonum_value(x);
      switch (mode) {
        case RoundMode::Floor: return make_flonum(std::floor(d));
        case RoundMode::Ceiling: return make_flonum(std::ceil(d));
        case RoundMode::Truncate: return make_flonum(std::trunc(d));
        case RoundMode::Round: return make_flonum(std::nearbyint(d));  // ties to even
      }
      return x;
    }
    default: {
      mpq_srcptr q = &x.as<Ratnum>()->q;
      mpz_srcptr n = mpq_numref(q), d = mpq_denref(q);
      Z r, rem;
      switch (mode) {
        case RoundMode::Floor: mpz_fdiv_q(r.v, n, d); break;
        case RoundMode::Ceiling: mpz_cdiv_q(r.v, n, d); break;
        case RoundMode::Truncate: mpz_tdiv_q(r.v, n, d); break;
        case RoundMode::Round: {
          mpz_fdiv_qr(r.v, rem.v, n, d);  // 0 < rem < d
          mpz_mul_2exp(rem.v, rem.v, 1);
          int c = mpz_cmp(rem.v, d);
          if (c > 0 || (c == 0 && mpz_odd_p(r.v))) mpz_add_ui(r.v, r.v, 1);
          break;
        }
      }
      return take_z(r.v);
    }
  }
}

Value num_numerator(Value x) {
  switch (check_real("numerator", x)) {
    case kFix:
    case kBig: return x;
    case kRat: return make_integer(mpq_numref(&x.as<Ratnum>()->q));
    default: {
      double d = flonum_value(x);
      if (!std::isfinite(d)) type_error("numerator", "a rational number", x);
      Value e = exact_from_double(d);
      return make_flonum(is_ratnum(e) ? mpz_to_double(mpq_numref(&e.as<Ratnum>()->q)) : d);
    }
  }
}

Value num_denominator(Value x) {
  switch (check_real("denominator", x)) {
    case kFix:
    case kBig: return make_fixnum(1);
    case kRat: return make_integer(mpq_denref(&x.as<Ratnum>()->q));
    default: {
      double d = flonum_value(x);
      if (!std::isfinite(d)) type_error("denominator", "a rational number", x);
      Value e = exact_from_double(d);
      return make_flonum(is_ratnum(e) ? mpz_to_double(mpq_denref(&e.as<Ratnum>()->q)) : 1.0);
    }
  }
}

Value num_rationalize(Value x, Value y) {
  NumKind kx = check_real("rationalize", x), ky = check_real("rationalize", y);
  bool inexact = kx == kFlo || ky == kFlo;
  if (inexact) {
    double dx = to_double(x), dy = to_double(y);
    if (std::isnan(dx) || std::isnan(dy)) return make_flonum(std::nan(""));
    if (std::isinf(dy)) return make_flonum(std::isinf(dx) ? std::nan("") : 0.0);
    if (std::isinf(dx)) return make_flonum(dx);
  }
  Value ex = num_exact(x, "rationalize"), ey = num_exact(y, "rationalize");
  Q tx, ty, lo, hi, r;
  mpq_srcptr qx = qref(ex, tx), qy = qref(ey, ty);
  Q ay;
  mpq_abs(ay.v, qy);
  mpq_sub(lo.v, qx, ay.v);
  mpq_add(hi.v, qx, ay.v);
  if (mpq_sgn(lo.v) > 0) {
    simplest_positive(r.v, lo.v, hi.v);
  } else if (mpq_sgn(hi.v) < 0) {
    mpq_neg(lo.v, lo.v);
    mpq_neg(hi.v, hi.v);
    simplest_positive(r.v, hi.v, lo.v);
    mpq_neg(r.v, r.v);
  }  // else 0 lies in the interval: r stays 0
  if (inexact) return make_flonum(mpq_to_double(r.v));
  return take_q(r.v);
}

Value num_sqrt(Value x) {
  const char* who = "sqrt";
  NumKind k = check_num(who, x);
  if (k == kCpx) {
    Cd r = std::sqrt(to_cd(x));
    Value exact;
    if (is_exact(x) && exact_complex_sqrt(x, r, &exact)) return exact;
    return from_cd(r);
  }
  if (k != kFlo ? sign_of_exact(x) < 0 : flonum_value(x) < 0) {
    Value s = num_sqrt(num_negate(x));  // sqrt(-4) = +2i, exact when it can be
    return make_rect(is_flonum(s) ? make_flonum(0.0) : make_fixnum(0), s);
  }
  switch (k) {
    case kFix:
    case kBig: {
      Z t;
      mpz_srcptr z = zref(x, t);
      if (mpz_perfect_square_p(z)) {
        Z s;
        mpz_sqrt(s.v, z);
        return take_z(s.v);
      }
      return make_flonum(sqrt_mpz_double(z));
    }
    case kRat: {
      mpq_srcptr q = &x.as<Ratnum>()->q;
      if (mpz_perfect_square_p(mpq_numref(q)) && mpz_perfect_square_p(mpq_denref(q))) {
        Q r;
        mpz_sqrt(mpq_numref(r.v), mpq_numref(q));
        mpz_sqrt(mpq_denref(r.v), mpq_denref(q));
        return take_q(r.v);
      }
      double d = mpq_to_double(q);
      if (std::isnormal(d)) return make_flonum(std::sqrt(d));
      return make_flonum(sqrt_mpz_double(mpq_numref(q)) / sqrt_mpz_double(mpq_denref(q)));
    }
    default: {
      return make_flonum(std::sqrt(flonum_value(x)));
    }
  }
}

void num_exact_integer_sqrt(Value n, Value* s, Value* rest) {
  if (!is_exact_integer(n) || sign_of_exact(n) < 0) {
    type_error("exact-integer-sqrt", "an exact non-negative integer", n);
  }
  if (n.is_fixnum()) {
    int64_t v = n.fixnum();
    int64_t r = static_cast<int64_t>(std::sqrt(static_cast<double>(v)));
    while (r > 0 && r * r > v) r--;
    while ((r + 1) * (r + 1) <= v) r++;
    *s = make_fixnum(r);
    *rest = make_fixnum(v - r * r);
    return;
  }
  Z zs, zr;
  before_big("exact-integer-sqrt", mpz_size(&n.as<Bignum>()->z));
  mpz_sqrtrem(zs.v, zr.v, &n.as<Bignum>()->z);
  *s = take_z(zs.v);
  *rest = take_z(zr.v);
}

Value num_expt(Value base, Value e) {
  const char* who = "expt";
  NumKind kb = check_num(who, base), ke = check_num(who, e);
  if (kb == kCpx || ke == kCpx) {
    if (ke == kFix && kb == kCpx && is_exact(base) && std::llabs(e.fixnum()) <= 100000) {
      int64_t n = std::llabs(e.fixnum());
      Value r = make_fixnum(1), p = base;
      for (; n; n >>= 1) {
        if (n & 1) r = num_mul(r, p);
        if (n > 1) p = num_mul(p, p);
      }
      return e.fixnum() < 0 ? num_div(make_fixnum(1), r) : r;
    }
    if (base == make_fixnum(0)) {
      if (num_compare(re_part(e), make_fixnum(0), who) == 1) return base;
      divide_by_zero(who, {base, e});
    }
    if (ke == kFix || ke == kBig) return from_cd(std::pow(to_cd(base), to_double(e)));
    return from_cd(std::exp(to_cd(e) * std::log(to_cd(base))));
  }
  if (ke == kFix || ke == kBig) {
    if (kb != kFlo) return expt_exact(base, e);
    return make_flonum(std::pow(flonum_value(base), to_double(e)));
  }
  if (ke == kRat && kb != kFlo && sign_of_exact(base) >= 0) {
    Value r;
    if (exact_root(base, e, &r)) return r;
  }
  double x = to_double(base), y = to_double(e);
  if (x < 0 && std::isfinite(y) && y != std::trunc(y))
    return from_cd(std::exp(to_cd(e) * std::log(to_cd(base))));
  return make_flonum(std::pow(x, y));
}

Value num_exp(Value x) {
  if (check_num("exp", x) == kCpx) return from_cd(std::exp(to_cd(x)));
  if (x == make_fixnum(0)) return make_fixnum(1);
  return make_flonum(std::exp(to_double(x)));
}

// Whether log has a non-real value at x. -0.0 counts as negative: it lies on the branch cut's
// negative side, so (log -0.0) is -inf.0+pi*i as (angle -0.0) is pi (C's clog, Chez, Guile).
bool log_is_complex(Value x) {
  NumKind k = check_num("log", x);
  if (k == kCpx) return true;
  if (k != kFlo) return sign_of_exact(x) < 0;
  double d = flonum_value(x);
  return std::signbit(d) && !std::isnan(d);
}

Value num_log(Value x) {
  if (log_is_complex(x)) return from_cd(std::log(to_cd(x)));
  double l = log_of(x, "log");
  if (x == make_fixnum(1)) return make_fixnum(0);
  return make_flonum(l);
}

Value num_log(Value x, Value base) {
  if (log_is_complex(x) || log_is_complex(base)) return num_div(num_log(x), num_log(base));
  double lx = log_of(x, "log");
  double lb = log_of(base, "log");
  double dx = to_double(x);
  if (std::isnormal(dx) && is_number(base)) {
    double db = to_double(base);
    if (db == 2.0) return make_flonum(std::log2(dx));
    if (db == 10.0) return make_flonum(std::log10(dx));
  }
  return make_flonum(lx / lb);
}

Value num_trig(TrigFn f, Value x) {
  static const char* const names[] = {"sin", "cos", "tan", "asin", "acos", "atan"};
  const char* who = names[static_cast<int>(f)];
  if (check_num(who, x) == kCpx) {
    Cd z = to_cd(x);
    switch (f) {
      case TrigFn::Sin: return from_cd(std::sin(z));
      case TrigFn::Cos: return from_cd(std::cos(z));
      case TrigFn::Tan: return from_cd(std::tan(z));
      case TrigFn::Asin: return from_cd(cd_asin(z));
      case TrigFn::Acos: return from_cd(cd_acos(z));
      case TrigFn::Atan:
        if (z == kI || z == -kI) divide_by_zero(who, {x});
        return from_cd(cd_atan(z));
    }
  }
  if (x == make_fixnum(0)) {
    if (f == TrigFn::Cos) return make_fixnum(1);
    if (f != TrigFn::Acos) return x;
  }
  double d = to_double(x);
  switch (f) {
    case TrigFn::Sin: return make_flonum(std::sin(d));
    case TrigFn::Cos: return make_flonum(std::cos(d));
    case TrigFn::Tan: return make_flonum(std::tan(d));
    case TrigFn::Asin:
      if (d < -1 || d > 1) return from_cd(cd_asin(Cd(d, 0.0)));
      return make_flonum(std::asin(d));
    case TrigFn::Acos:
      if (d < -1 || d > 1) return from_cd(cd_acos(Cd(d, 0.0)));
      if (x == make_fixnum(1)) return make_fixnum(0);
      return make_flonum(std::acos(d));
    case TrigFn::Atan: return make_flonum(std::atan(d));
  }
  return x;
}

Value num_atan2(Value y, Value x) {
  check_real("atan", y);
  check_real("atan", x);
  if (y == make_fixnum(0) && is_exact(x) && sign_of_exact(x) > 0) return y;
  return make_flonum(std::atan2(to_double(y), to_double(x)));
}

// ---- (scheme complex) ------------------------------------------------------------------------

Value num_make_rectangular(Value re, Value im) {
  check_real("make-rectangular", re);
  check_real("make-rectangular", im);
  return make_rect(re, im);
}

Value num_make_polar(Value magnitude, Value angle) {
  check_real("make-polar", magnitude);
  check_real("make-polar", angle);
  if (is_exact_zero(angle)) return magnitude;
  double m = to_double(magnitude), a = to_double(angle);
  return make_rect(make_flonum(m * std::cos(a)), make_flonum(m * std::sin(a)));
}

Value num_real_part(Value z) {
  check_num("real-part", z);
  return re_part(z);
}

Value num_imag_part(Value z) {
  check_num("imag-part", z);
  return im_part(z);
}

Value num_magnitude(Value z) {
  if (check_num("magnitude", z) != kCpx) return num_abs(z);
  if (is_exact(z)) {
    Value sq = num_add(num_mul(cpx_re(z), cpx_re(z)), num_mul(cpx_im(z), cpx_im(z)));
    return num_sqrt(sq);  // exact when it is a perfect square: (magnitude 3+4i) = 5
  }
  return make_flonum(std::hypot(flonum_value(cpx_re(z)), flonum_value(cpx_im(z))));
}

Value num_angle(Value z) {
  NumKind k = check_num("angle", z);
  if (k == kCpx) return make_flonum(std::atan2(to_double(cpx_im(z)), to_double(cpx_re(z))));
  if (k == kFlo) return make_flonum(std::atan2(0.0, flonum_value(z)));
  return sign_of_exact(z) < 0 ? make_flonum(M_PI) : make_fixnum(0);
}

// ---- bitwise operations ----------------------------------------------------------------------

namespace {
enum class BitOp { And, Or, Xor };
Value bitwise(BitOp op, Value a, Value b, const char* who) {
  check_exact_integer(who, a);
  check_exact_integer(who, b);
  if (a.is_fixnum() && b.is_fixnum()) {
    int64_t x = a.fixnum(), y = b.fixnum();
    switch (op) {
      case BitOp::And: return make_fixnum(x & y);
      case BitOp::Or: return make_fixnum(x | y);
      case BitOp::Xor: return make_fixnum(x ^ y);
    }
  }
  Z ta, tb, r;
  mpz_srcptr za = zref(a, ta), zb = zref(b, tb);
  switch (op) {
    case BitOp::And: mpz_and(r.v, za, zb); break;
    case BitOp::Or: mpz_ior(r.v, za, zb); break;
    case BitOp::Xor: mpz_xor(r.v, za, zb); break;
  }
  return take_z(r.v);
}
}  // namespace

Value num_bitwise_and(Value a, Value b) { return bitwise(BitOp::And, a, b, "bitwise-and"); }
Value num_bitwise_or(Value a, Value b) { return bitwise(BitOp::Or, a, b, "bitwise-or"); }
Value num_bitwise_xor(Value a, Value b) { return bitwise(BitOp::Xor, a, b, "bitwise-xor"); }

Value num_bitwise_not(Value a) {
  check_exact_integer("bitwise-not", a);
  if (a.is_fixnum()) return make_fixnum(~a.fixnum());
  Z r;
  mpz_com(r.v, &a.as<Bignum>()->z);
  return take_z(r.v);
}

Value num_arithmetic_shift(Value n, Value count) {
  const char* who = "arithmetic-shift";
  check_exact_integer(who, n);
  check_exact_integer(who, count);
  int sn = sign_of_exact(n);
  if (sn == 0) return n;
  int64_t c;
  if (!integer_to_int64(count, &c) || c < -(int64_t(1) << 40) || c > (int64_t(1) << 40)) {
    if (sign_of_exact(count) < 0) return make_fixnum(sn < 0 ? -1 : 0);
    too_large(who);
  }
  if (c == 0) return n;
  if (n.is_fixnum()) {
    int64_t x = n.fixnum();
    if (c < 0) return make_fixnum(x >> (c < -63 ? 63 : -c));
    if (c < 62) {
      int64_t r = static_cast<int64_t>(static_cast<uint64_t>(x) << c);
      if ((r >> c) == x && fits_fixnum(r)) return make_fixnum(r);
    }
  }
  Z t, r;
  mpz_srcptr z = zref(n, t);
  if (c < 0) {
    mpz_fdiv_q_2exp(r.v, z, static_cast<mp_bitcnt_t>(-c));
  } else {
    if (mpz_sizeinbase(z, 2) + static_cast<uint64_t>(c) > kMaxResultBits) too_large(who);
    mpz_mul_2exp(r.v, z, static_cast<mp_bitcnt_t>(c));
  }
  return take_z(r.v);
}

Value num_bit_count(Value n) {
  check_exact_integer("bit-count", n);
  if (n.is_fixnum()) {
    int64_t x = n.fixnum();
    return make_fixnum(__builtin_popcountll(static_cast<uint64_t>(x < 0 ? ~x : x)));
  }
  mpz_srcptr z = &n.as<Bignum>()->z;
  if (mpz_sgn(z) >= 0) return make_integer(static_cast<int64_t>(mpz_popcount(z)));
  Z c;
  mpz_com(c.v, z);
  return make_integer(static_cast<int64_t>(mpz_popcount(c.v)));
}

// ---- text ------------------------------------------------------------------------------------

std::string flonum_to_string(double d) {
  if (std::isnan(d)) return "+nan.0";
  if (std::isinf(d)) return d > 0 ? "+inf.0" : "-inf.0";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  // Shortest round-tripping digits in scientific form: [-]D[.DDD]e[+-]XX
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  bool neg = sci[0] == '-';
  if (neg) sci.remove_prefix(1);
  size_t epos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, epos)) {
    if (c != '.') digits += c;
  }
  int exp10 = std::atoi(std::string(sci.substr(epos + 1)).c_str());
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int k = static_cast<int>(digits.size());
  int n = exp10 + 1;  // value = 0.DIGITS * 10^n
  std::string out = neg ? "-" : "";
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<size_t>(n - k), '0');
    out += ".0";
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, static_cast<size_t>(n));
    out += '.';
    out += digits.substr(static_cast<size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += 'e';
    out += std::to_string(n - 1);
  }
  return out;
}

std::string number_to_string(Value n, int radix) {
  NumKind k = check_num("number->string", n);
  if (radix != 2 && radix != 8 && radix != 10 && radix != 16) {
    range_error("number->string", "radix", make_fixnum(radix));
  }
  if (k == kCpx) {  // 1+2i, +i, -1/2-i, 1.5+inf.0i; an exact 0 real part is left out
    Value re = cpx_re(n), im = cpx_im(n);
    std::string out;
    if (!is_exact_zero(re)) out = number_to_string(re, radix);
    std::string is = number_to_string(im, radix);
    if (is == "1" || is == "-1") is.pop_back();  // +i, -i
    if (is.empty() || (is[0] != '-' && is[0] != '+')) out.push_back('+');
    out.append(is);
    out.push_back('i');
    return out;
  }
  if (k == kFlo) {
    if (radix != 10) throw_error("number->string", "inexact numbers are written in radix 10 only");
    return flonum_to_string(flonum_value(n));
  }
  return exact_to_string(n, radix);
}

Value parse_number(std::string_view s, int radix) {
  char exactness = 0;
  bool radix_seen = false;
  size_t i = 0;
  while (i < s.size() && s[i] == '#') {
    if (i + 1 >= s.size()) return kFalse;
    switch (s[i + 1]) {
      case 'x': case 'X': if (radix_seen) return kFalse; radix = 16; radix_seen = true; break;
      case 'd': case 'D': if (radix_seen) return kFalse; radix = 10; radix_seen = true; break;
      case 'o': case 'O': if (radix_seen) return kFalse; radix = 8; radix_seen = true; break;
      case 'b': case 'B': if (radix_seen) return kFalse; radix = 2; radix_seen = true; break;
      case 'e': case 'E': if (exactness) return kFalse; exactness = 'e'; break;
      case 'i': case 'I': if (exactness) return kFalse; exactness = 'i'; break;
      default: return kFalse;
    }
    i += 2;
  }
  if (radix != 2 && radix != 8 && radix != 10 && radix != 16) return kFalse;
  return parse_complex(s.substr(i), radix, exactness);
}

}  // namespace quasi
