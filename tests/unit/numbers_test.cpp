// Numeric tower: core/numbers.cpp (normalization, contagion, exact <-> double, syntax, printing)
// and the primitives of builtins/numeric.cpp, called directly through an environment.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "builtins/registry.hpp"
#include "core/alloc_watch.hpp"
#include "core/error.hpp"
#include "core/gc.hpp"
#include "core/numbers.hpp"
#include "core/object.hpp"
#include "eval/environment.hpp"
#include "vm/vm.hpp"

using namespace quasi;

namespace {

// Parses a number literal (must be valid).
Value N(const char* text) {
  Value v = parse_number(text);
  INFO("literal " << text);
  REQUIRE(v != kFalse);
  return v;
}
std::string S(Value v) { return number_to_string(v); }
Value fx(int64_t n) { return make_fixnum(n); }
Value fl(double d) { return make_flonum(d); }
bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct NumPrims {
  quasi::Vm vm;
  Environment* env;

  NumPrims() {
    env = make_environment(kFalse);
    register_numeric_primitives(env);
  }

  Primitive* prim(const char* name) {
    Value cell = env->lookup(intern(name));
    INFO("primitive " << name);
    REQUIRE(has_type(cell, Type::GlobalCell));
    Value p = cell.as<GlobalCell>()->value;
    REQUIRE(is_primitive(p));
    return p.as<Primitive>();
  }

  Value call(const char* name, std::initializer_list<Value> args) {
    Primitive* p = prim(name);
    int argc = static_cast<int>(args.size());
    if (argc < p->min_args || (p->max_args >= 0 && argc > p->max_args))
      arity_error(name, p->min_args, p->max_args, argc);
    std::vector<Value> argv(args);
    return p->fn(vm, p, argc, argv.data());
  }
  // The printed result (multiple values joined by spaces).
  std::string show(const char* name, std::initializer_list<Value> args) {
    Value v = call(name, args);
    if (has_type(v, Type::Values)) {
      MultipleValues* mv = v.as<MultipleValues>();
      std::string out;
      for (int64_t i = 0; i < mv->count(); i++) out += (i ? " " : "") + S(mv->items()[i]);
      return out;
    }
    if (v == kTrue) return "#t";
    if (v == kFalse) return "#f";
    return S(v);
  }
  std::string error(const char* name, std::initializer_list<Value> args) {
    try {
      call(name, args);
    } catch (const SchemeError& e) {
      return condition_text(e.payload);
    }
    return "<no error>";
  }
  std::string error_kind(const char* name, std::initializer_list<Value> args) {
    try {
      call(name, args);
    } catch (const SchemeError& e) {
      return is_condition(e.payload) ? symbol_name(e.payload.as<Condition>()->kind) : "?";
    }
    return "<no error>";
  }
};

}  // namespace

TEST_CASE("numbers: fixnum boundaries and bignum normalization", "[numbers]") {
  gc_init();
  Value max = fx(kFixnumMax), min = fx(kFixnumMin);
  Value over = num_add(max, fx(1));
  CHECK(is_bignum(over));
  CHECK(S(over) == "4611686018427387904");
  Value back = num_sub(over, fx(1));
  CHECK(back.is_fixnum());
  CHECK(back == max);
  Value under = num_sub(min, fx(1));
  CHECK(is_bignum(under));
  CHECK(S(under) == "-4611686018427387905");
  CHECK(num_add(under, fx(1)) == min);
  CHECK(num_add(max, min) == fx(-1));
  CHECK(S(num_mul(max, max)) == "21267647932558653957237540927630737409");
  CHECK(S(num_mul(min, fx(-1))) == "4611686018427387904");
  CHECK(S(num_mul(min, min)) == "21267647932558653966460912964485513216");
  CHECK(num_mul(fx(1ll << 31), fx(1ll << 30)) == fx(1ll << 61));
  CHECK(is_bignum(num_mul(fx(1ll << 31), fx(1ll << 31))));
  CHECK(S(num_negate(min)) == "4611686018427387904");
  CHECK(num_negate(num_negate(min)) == min);
  CHECK(S(num_abs(min)) == "4611686018427387904");
  CHECK(S(num_quotient(min, fx(-1))) == "4611686018427387904");
  CHECK(num_remainder(min, fx(-1)) == fx(0));
  CHECK(make_integer(int64_t(1) << 62) != fx(0));
  CHECK(is_bignum(make_integer(int64_t(1) << 62)));
  CHECK(make_integer(kFixnumMin).is_fixnum());
  // Bignum arithmetic that comes back into the fixnum range.
  Value big = N("100000000000000000000000000000");
  CHECK(num_sub(big, N("99999999999999999999999999999")) == fx(1));
  CHECK(num_div(big, N("50000000000000000000000000000")) == fx(2));
  CHECK(num_quotient(big, big) == fx(1));
  int64_t out = 0;
  CHECK(integer_to_int64(over, &out));
  CHECK(out == (int64_t(1) << 62));
  CHECK_FALSE(integer_to_int64(big, &out));
  CHECK(parse_number("4611686018427387903").is_fixnum());
  CHECK(is_bignum(parse_number("4611686018427387904")));
  CHECK(parse_number("-4611686018427387904").is_fixnum());
  CHECK(is_bignum(parse_number("-4611686018427387905")));
}

TEST_CASE("numbers: rationals and exactness contagion", "[numbers]") {
  gc_init();
  CHECK(S(num_div(fx(1), fx(3))) == "1/3");
  CHECK(S(num_div(fx(6), fx(4))) == "3/2");
  CHECK(num_div(fx(6), fx(3)) == fx(2));
  CHECK(num_add(N("1/3"), N("2/3")) == fx(1));
  CHECK(num_mul(N("2/3"), N("3/2")) == fx(1));
  CHECK(S(num_sub(N("1/2"), N("1/3"))) == "1/6");
  CHECK(S(num_add(N("1/2"), fx(1))) == "3/2");
  CHECK(S(num_div(N("-6/4"), fx(3))) == "-1/2");
  CHECK(S(N("-6/4")) == "-3/2");
  CHECK(S(num_add(fx(1), fl(0.5))) == "1.5");
  CHECK(S(num_add(N("1/2"), fl(0.5))) == "1.0");
  CHECK(S(num_mul(fx(0), fl(1.5))) == "0.0");
  CHECK(S(num_sub(N("100000000000000000000"), fl(1.0))) == "100000000000000000000.0");
  CHECK(S(num_div(fl(1.0), fx(0))) == "+inf.0");
  CHECK(S(num_div(fl(-1.0), fx(0))) == "-inf.0");
  CHECK(S(num_div(fl(0.0), fx(0))) == "+nan.0");
  CHECK(S(num_div(fx(1), fl(0.0))) == "+inf.0");
  CHECK(is_ratnum(N("1/3")));
  CHECK(N("4/2") == fx(2));
  CHECK(S(num_negate(fl(0.0))) == "-0.0");
  CHECK(S(num_negate(N("1/3"))) == "-1/3");
}

TEST_CASE("numbers: division by exact zero", "[numbers]") {
  gc_init();
  auto kind_of_error = [](auto f) -> std::string {
    try {
      f();
    } catch (const SchemeError& e) {
      return symbol_name(e.payload.as<Condition>()->kind);
    }
    return "<no error>";
  };
  CHECK(kind_of_error([] { num_div(fx(1), fx(0)); }) == "divide-by-zero");
  CHECK(kind_of_error([] { num_div(N("1/2"), fx(0)); }) == "divide-by-zero");
  CHECK(kind_of_error([] { num_quotient(fx(1), fx(0)); }) == "divide-by-zero");
  CHECK(kind_of_error([] { num_modulo(N("100000000000000000000"), fx(0)); }) == "divide-by-zero");
  CHECK(kind_of_error([] { num_remainder(fl(7.0), fl(0.0)); }) == "divide-by-zero");
  try {
    num_div(fx(1), fx(0));
  } catch (const SchemeError& e) {
    CHECK(condition_text(e.payload) == "/: division by zero in (/ 1 0)");
  }
}

TEST_CASE("numbers: comparisons", "[numbers]") {
  gc_init();
  CHECK(num_lt(fx(1), fx(2)));
  CHECK(num_eq(fx(2), fl(2.0)));
  CHECK(num_lt(N("1/3"), fl(0.34)));
  CHECK(num_lt(fl(0.3333333333333333), N("1/3")));
  CHECK_FALSE(num_eq(fl(0.3333333333333333), N("1/3")));
  // Exact comparison beyond 2^53: = stays transitive.
  CHECK_FALSE(num_eq(N("9007199254740993"), fl(9007199254740992.0)));
  CHECK(num_gt(N("9007199254740993"), fl(9007199254740992.0)));
  CHECK(num_eq(N("9007199254740992"), fl(9007199254740992.0)));
  CHECK(num_lt(N("100000000000000000000000"), fl(1e300)));
  CHECK(num_gt(N("-100000000000000000000000"), fl(-HUGE_VAL)));
  std::string googol4 = "1" + std::string(400, '0');
  CHECK(num_lt(N(googol4.c_str()), fl(HUGE_VAL)));
  CHECK(num_gt(N(googol4.c_str()), fl(1.7976931348623157e308)));
  CHECK(num_lt(fx(kFixnumMin), N("-4611686018427387905")) == false);
  CHECK(num_gt(N("4611686018427387904"), fx(kFixnumMax)));
  CHECK(num_lt(N("-4611686018427387905"), fx(kFixnumMin)));
  Value nan = fl(std::nan(""));
  CHECK_FALSE(num_eq(nan, nan));
  CHECK_FALSE(num_lt(nan, fx(1)));
  CHECK_FALSE(num_ge(nan, fx(1)));
  CHECK_FALSE(num_le(fx(1), nan));
  CHECK(num_compare(nan, fx(1), "<") == 2);
  CHECK(num_eq(fl(0.0), fl(-0.0)));
  CHECK(num_le(fx(1), fx(1)));
  CHECK(num_ge(N("1/2"), fl(0.5)));
}

TEST_CASE("numbers: exact <-> inexact conversion", "[numbers]") {
  gc_init();
  CHECK(number_to_double(N("9007199254740993")) == 9007199254740992.0);  // tie to even
  CHECK(number_to_double(N("9007199254740995")) == 9007199254740996.0);
  CHECK(number_to_double(N("9007199254740994")) == 9007199254740994.0);
  CHECK(number_to_double(N("1/3")) == 1.0 / 3.0);
  CHECK(number_to_double(N("-2/3")) == -2.0 / 3.0);
  std::string big = "1" + std::string(400, '0');
  CHECK(std::isinf(number_to_double(N(big.c_str()))));
  CHECK(number_to_double(N(("1/" + big).c_str())) == 0.0);
  CHECK(number_to_double(N(("1/" + big.substr(0, 301)).c_str())) == 1e-300);
  Value tiny = num_div(fx(1), num_expt(fx(2), fx(1074)));
  CHECK(number_to_double(tiny) == 4.9406564584124654e-324);
  CHECK(number_to_double(num_div(fx(1), num_expt(fx(2), fx(1075)))) == 0.0);  // tie to even
  CHECK(number_to_double(num_div(fx(3), num_expt(fx(2), fx(1076)))) == 4.9406564584124654e-324);
  CHECK(number_to_double(num_expt(fx(2), fx(1023))) == std::ldexp(1.0, 1023));
  CHECK(std::isinf(number_to_double(num_expt(fx(2), fx(1024)))));
  // Largest double and the first value that rounds to infinity.
  Value maxd = num_exact(fl(1.7976931348623157e308));
  CHECK(number_to_double(maxd) == 1.7976931348623157e308);
  Value half_ulp = num_expt(fx(2), fx(970));
  CHECK(std::isinf(number_to_double(num_add(maxd, half_ulp))));
  CHECK(number_to_double(num_sub(num_add(maxd, half_ulp), fx(1))) == 1.7976931348623157e308);

  CHECK(S(num_exact(fl(0.5))) == "1/2");
  CHECK(S(num_exact(fl(0.1))) == "3602879701896397/36028797018963968");
  CHECK(S(num_exact(fl(1e20))) == "100000000000000000000");
  CHECK(num_exact(fl(-3.0)) == fx(-3));
  CHECK(S(num_exact(fl(-0.0))) == "0");
  CHECK(S(num_inexact(N("1/3"))) == "0.3333333333333333");
  // Random exact rationals: correctly rounded like strtod on the same decimal.
  std::mt19937_64 rng(42);
  for (int i = 0; i < 400; i++) {
    std::string digits = std::to_string(rng() % 1000000000000000000ull) +
                         std::to_string(rng() % 1000000000ull);
    int point = static_cast<int>(rng() % digits.size());
    int exp10 = static_cast<int>(rng() % 700) - 350;
    std::string dec = digits.substr(0, point) + "." + digits.substr(point) + "e" +
                      std::to_string(exp10);
    Value exact = parse_number("#e" + dec);
    REQUIRE(exact != kFalse);
    double want = std::strtod(dec.c_str(), nullptr);
    INFO(dec);
    CHECK(same_double(number_to_double(exact), want));
    Value inexact = parse_number(dec);
    REQUIRE(is_flonum(inexact));
    CHECK(same_double(flonum_value(inexact), want));
  }
}

TEST_CASE("numbers: flonum printing", "[numbers]") {
  gc_init();
  CHECK(flonum_to_string(1.0) == "1.0");
  CHECK(flonum_to_string(0.5) == "0.5");
  CHECK(flonum_to_string(-0.0) == "-0.0");
  CHECK(flonum_to_string(0.0) == "0.0");
  CHECK(flonum_to_string(123.456) == "123.456");
  CHECK(flonum_to_string(1e100) == "1e100");
  CHECK(flonum_to_string(1.5e-7) == "1.5e-7");
  CHECK(flonum_to_string(1e21) == "1e21");
  CHECK(flonum_to_string(1e20) == "100000000000000000000.0");
  CHECK(flonum_to_string(100.0) == "100.0");
  CHECK(flonum_to_string(0.1) == "0.1");
  CHECK(flonum_to_string(0.000001) == "0.000001");
  CHECK(flonum_to_string(-2.5) == "-2.5");
  CHECK(flonum_to_string(1.0 / 3.0) == "0.3333333333333333");
  CHECK(flonum_to_string(5e-324) == "5e-324");
  CHECK(flonum_to_string(1.7976931348623157e308) == "1.7976931348623157e308");
  CHECK(flonum_to_string(HUGE_VAL) == "+inf.0");
  CHECK(flonum_to_string(-HUGE_VAL) == "-inf.0");
  CHECK(flonum_to_string(std::nan("")) == "+nan.0");
  CHECK(flonum_to_string(-std::nan("")) == "+nan.0");
  CHECK(flonum_to_string(123456789.0) == "123456789.0");
  CHECK(flonum_to_string(9007199254740993.0) == "9007199254740992.0");

  // Round trips over many doubles, including subnormals and huge ones.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; i++) {
    uint64_t bits = rng();
    if (i % 4 == 1) bits &= 0x800FFFFFFFFFFFFFull;  // subnormals
    if (i % 4 == 2) bits = (bits & 0x800FFFFFFFFFFFFFull) | (uint64_t(1023 + (rng() % 80)) << 52);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (std::isnan(d)) continue;
    std::string text = flonum_to_string(d);
    Value back = parse_number(text);
    INFO(text);
    REQUIRE(is_flonum(back));
    CHECK(same_double(flonum_value(back), d));
    // Always looks like a flonum.
    CHECK(text.find_first_of(".e") != std::string::npos);
  }
}

TEST_CASE("numbers: exact printing and radix", "[numbers]") {
  gc_init();
  CHECK(number_to_string(fx(255), 16) == "ff");
  CHECK(number_to_string(fx(-255), 2) == "-11111111");
  CHECK(number_to_string(fx(8), 8) == "10");
  CHECK(number_to_string(fx(kFixnumMin), 16) == "-4000000000000000");
  CHECK(number_to_string(N("#x123456789abcdef0123456789"), 16) == "123456789abcdef0123456789");
  CHECK(number_to_string(N("-1/3"), 2) == "-1/11");
  CHECK(number_to_string(N("#xff/100"), 16) == "ff/100");
  CHECK(S(fx(0)) == "0");
  CHECK(S(N("-123456789012345678901234567890")) == "-123456789012345678901234567890");
  CHECK_THROWS_AS(number_to_string(fl(1.5), 16), SchemeError);
  CHECK_THROWS_AS(number_to_string(fx(1), 7), SchemeError);
}

TEST_CASE("numbers: parse_number syntax", "[numbers]") {
  gc_init();
  struct Case {
    const char* text;
    const char* printed;  // nullptr: not a number
  };
  const Case cases[] = {
      {"0", "0"}, {"-0", "0"}, {"+5", "5"}, {"#x-FF", "-255"}, {"#XfF", "255"},
      {"#b101", "5"}, {"#o17", "15"}, {"#d99", "99"}, {"#e1.5", "3/2"}, {"#E1.5", "3/2"},
      {"#i1/3", "0.3333333333333333"}, {"#x#e10", "16"}, {"#e#x10", "16"}, {"#i#x10", "16.0"},
      {"#x#i10", "16.0"}, {"1/3", "1/3"}, {"-6/4", "-3/2"}, {"#x1/F", "1/15"}, {"4/2", "2"},
      {"1.", "1.0"}, {".5", "0.5"}, {"+.5", "0.5"}, {"-.5e2", "-50.0"}, {"1.5e10", "15000000000.0"},
      {"1E-3", "0.001"}, {"1e+3", "1000.0"}, {"1.e2", "100.0"}, {"00012", "12"},
      {"#e1e400", nullptr /* checked below */}, {"#e1.2e-2", "3/250"}, {"#e-0.5", "-1/2"},
      {"+inf.0", "+inf.0"}, {"-inf.0", "-inf.0"}, {"+nan.0", "+nan.0"}, {"-nan.0", "+nan.0"},
      {"+INF.0", "+inf.0"}, {"#i-0", "-0.0"}, {"-0.0", "-0.0"}, {"#i5", "5.0"},
      {"1e1000000000", "+inf.0"}, {"1e-1000000000", "0.0"}, {"-1e400", "-inf.0"},
      {"0e999999999999999999999", "0.0"}, {"#e0e1000000000", "0"},
      {"123456789012345678901234567890", "123456789012345678901234567890"},
      {"#b-1/10", "-1/2"}, {"1+2i", "1+2i"}, {"+i", "+i"}, {"-i", "-i"}, {"1-0i", "1"},
      {"1s2", "100.0"}, {"1L2", "100.0"}, {"-1.5-inf.0i", "-1.5-inf.0i"},
      // Not numbers.
      {"", nullptr}, {"abc", nullptr}, {"+", nullptr}, {"-", nullptr}, {"...", nullptr},
      {".", nullptr}, {"1/0", nullptr}, {"#i1/0", nullptr},
      {"#e+inf.0", nullptr}, {"inf.0", nullptr}, {"nan.0", nullptr}, {"+inf.1", nullptr},
      {"#b2", nullptr}, {"#o8", nullptr}, {"#x1.5", nullptr}, {"#xg", nullptr},
      {"#e#e1", nullptr}, {"#e#i1", nullptr}, {"#x#b1", nullptr}, {"#", nullptr}, {"#t", nullptr},
      {"#x", nullptr}, {"1/2/3", nullptr}, {"1e", nullptr}, {"1e+", nullptr}, {"e1", nullptr},
      {"1/-2", nullptr}, {"1/2.0", nullptr}, {"1.2.3", nullptr}, {"--1", nullptr},
      {"+-1", nullptr}, {" 1", nullptr}, {"1 ", nullptr}, {"1+2", nullptr}, {"+ii", nullptr}, {"1i", nullptr},
      {"1#", nullptr}, {"1/", nullptr}, {"/2", nullptr}, {"#b1e1", nullptr}, {"-.e1", nullptr},
      {"1ee1", nullptr}, {"1e1.5", nullptr}, {"+.", nullptr},
  };
  for (const Case& c : cases) {
    INFO("parsing \"" << c.text << "\"");
    Value v = parse_number(c.text);
    if (std::string(c.text) == "#e1e400") {
      REQUIRE(is_bignum(v));
      CHECK(S(v) == "1" + std::string(400, '0'));
      continue;
    }
    if (c.printed) {
      REQUIRE(v != kFalse);
      CHECK(S(v) == c.printed);
    } else {
      CHECK(v == kFalse);
    }
  }
  // Well-formed but too large to build: a limit error, not "not a number" (issue 8).
  try {
    parse_number("#e1e1000000000");
    FAIL("no error");
  } catch (SchemeError& e) {
    REQUIRE(is_condition(e.payload));
    CHECK(symbol_name(e.payload.as<Condition>()->kind) == std::string("limit"));
  }
  CHECK(parse_number("ff", 16) == fx(255));
  CHECK(parse_number("#d10", 16) == fx(10));
  CHECK(parse_number("101", 2) == fx(5));
  CHECK(parse_number("1.5", 16) == kFalse);
  CHECK(is_flonum(parse_number("#i1")));
  CHECK(is_exact(parse_number("#e1.25")));

  // Never crashes on arbitrary input.
  std::mt19937 rng(3);
  const char alphabet[] = "0123456789+-./#eixbodEXaInf\xce\xbb";
  for (int i = 0; i < 20000; i++) {
    std::string s;
    int len = static_cast<int>(rng() % 12);
    for (int k = 0; k < len; k++) s += alphabet[rng() % (sizeof alphabet - 1)];
    Value v;
    try {
      v = parse_number(s);
    } catch (SchemeError&) {
      continue;  // an exact literal beyond the size limit
    }
    if (v != kFalse) {
      REQUIRE(is_number(v));
      // What we print reads back as the same number.
      if (!is_nan_value(v)) CHECK(num_eqv(parse_number(S(v)), v));
    }
  }
}

TEST_CASE("numbers: eqv and hash", "[numbers]") {
  gc_init();
  Value a = num_expt(fx(2), fx(70)), b = num_mul(num_expt(fx(2), fx(35)), num_expt(fx(2), fx(35)));
  CHECK(a != b);
  CHECK(num_eqv(a, b));
  CHECK(num_hash(a) == num_hash(b));
  CHECK(num_eqv(N("1/3"), num_div(fx(2), fx(6))));
  CHECK(num_hash(N("1/3")) == num_hash(num_div(fx(2), fx(6))));
  CHECK(num_eqv(fl(1.5), fl(1.5)));
  CHECK(num_hash(fl(1.5)) == num_hash(fl(1.5)));
  CHECK_FALSE(num_eqv(fl(0.0), fl(-0.0)));
  CHECK(num_eqv(fl(std::nan("")), fl(std::nan(""))));
  CHECK(num_hash(fl(std::nan(""))) == num_hash(fl(-std::nan(""))));
  CHECK_FALSE(num_eqv(fx(1), fl(1.0)));
  CHECK_FALSE(num_eqv(fx(1), fx(2)));
  CHECK_FALSE(num_eqv(N("1/2"), fl(0.5)));
  CHECK_FALSE(num_eqv(a, num_add(a, fx(1))));
}

TEST_CASE("numbers: predicates and comparison primitives", "[numbers]") {
  gc_init();
  NumPrims p;
  Value str = make_string_utf8("a");
  CHECK(p.show("number?", {fx(1)}) == "#t");
  CHECK(p.show("number?", {str}) == "#f");
  CHECK(p.show("complex?", {N("1/2")}) == "#t");
  CHECK(p.show("real?", {fl(1.5)}) == "#t");
  CHECK(p.show("rational?", {fl(HUGE_VAL)}) == "#f");
  CHECK(p.show("rational?", {fl(1.5)}) == "#t");
  CHECK(p.show("rational?", {str}) == "#f");
  CHECK(p.show("integer?", {fl(2.0)}) == "#t");
  CHECK(p.show("integer?", {fl(2.5)}) == "#f");
  CHECK(p.show("integer?", {N("1/2")}) == "#f");
  CHECK(p.show("exact-integer?", {fl(2.0)}) == "#f");
  CHECK(p.show("exact-integer?", {N("100000000000000000000")}) == "#t");
  CHECK(p.show("exact-rational?", {N("1/2")}) == "#t");
  CHECK(p.show("exact-rational?", {fl(0.5)}) == "#f");
  CHECK(p.show("exact?", {N("1/2")}) == "#t");
  CHECK(p.show("inexact?", {fl(0.5)}) == "#t");
  CHECK(p.error("exact?", {str}) == "exact?: expected a number, got \"a\"");
  CHECK(p.show("nan?", {fx(1)}) == "#f");
  CHECK(p.show("nan?", {N("+nan.0")}) == "#t");
  CHECK(p.show("infinite?", {N("-inf.0")}) == "#t");
  CHECK(p.show("finite?", {N("+inf.0")}) == "#f");
  CHECK(p.show("finite?", {N("1/2")}) == "#t");

  CHECK(p.show("=", {fx(1)}) == "#t");
  CHECK(p.show("=", {fx(1), fl(1.0), N("2/2")}) == "#t");
  CHECK(p.show("<", {fx(1), fx(2), fx(3)}) == "#t");
  CHECK(p.show("<", {fx(1), fx(3), fx(2)}) == "#f");
  CHECK(p.show("<=", {fx(1), fx(1), fx(2)}) == "#t");
  CHECK(p.show(">", {fx(3), fx(2), fx(1)}) == "#t");
  CHECK(p.show(">=", {fx(3), fx(3), fx(4)}) == "#f");
  CHECK(p.error("<", {fx(2), fx(1), str}) == "<: expected a number, got \"a\"");
  CHECK(p.error("=", {str}) == "=: expected a number, got \"a\"");
  CHECK(p.show("=", {N("+nan.0"), N("+nan.0")}) == "#f");
  CHECK(p.show("zero?", {fl(-0.0)}) == "#t");
  CHECK(p.show("zero?", {N("1/2")}) == "#f");
  CHECK(p.show("positive?", {N("+nan.0")}) == "#f");
  CHECK(p.show("negative?", {N("-1/2")}) == "#t");
  CHECK(p.show("positive?", {N("100000000000000000000")}) == "#t");
  CHECK(p.error("zero?", {str}) == "zero?: expected a number, got \"a\"");
  CHECK(p.show("odd?", {fx(-3)}) == "#t");
  CHECK(p.show("even?", {fl(4.0)}) == "#t");
  CHECK(p.show("odd?", {N("100000000000000000001")}) == "#t");
  CHECK(p.error("odd?", {fl(1.5)}) == "odd?: expected an integer, got 1.5");
  CHECK(p.show("max", {fx(1), fl(2.0)}) == "2.0");
  CHECK(p.show("max", {fx(3), fl(2.0)}) == "3.0");
  CHECK(p.show("min", {fx(1), fx(2)}) == "1");
  CHECK(p.show("min", {N("1/2"), fx(2)}) == "1/2");
  CHECK(p.show("max", {fx(1), N("+nan.0"), fx(3)}) == "+nan.0");
  CHECK(p.error("max", {fx(1), str}) == "max: expected a real number, got \"a\"");
}

TEST_CASE("numbers: arithmetic primitives", "[numbers]") {
  gc_init();
  NumPrims p;
  Value str = make_string_utf8("a");
  CHECK(p.show("+", {}) == "0");
  CHECK(p.show("*", {}) == "1");
  CHECK(p.show("+", {fl(-0.0)}) == "-0.0");
  CHECK(p.show("+", {fx(1), fx(2), N("1/2")}) == "7/2");
  CHECK(p.show("-", {fx(5)}) == "-5");
  CHECK(p.show("-", {fx(10), fx(1), fx(2)}) == "7");
  CHECK(p.show("/", {fx(2)}) == "1/2");
  CHECK(p.show("/", {fl(2.0)}) == "0.5");
  CHECK(p.show("/", {fx(12), fx(2), fx(3)}) == "2");
  CHECK(p.error("+", {fx(1), str}) == "+: expected a number, got \"a\"");
  CHECK(p.error("+", {str}) == "+: expected a number, got \"a\"");
  CHECK(p.error("-", {str}) == "-: expected a number, got \"a\"");
  CHECK(p.error("*", {fx(2), str}) == "*: expected a number, got \"a\"");
  CHECK(p.error("/", {str, fx(2)}) == "/: expected a number, got \"a\"");
  CHECK(p.error("/", {fx(1), fx(0)}) == "/: division by zero in (/ 1 0)");
  CHECK(p.error_kind("/", {fx(1), fx(0)}) == "divide-by-zero");
  CHECK(p.error_kind("/", {fx(0)}) == "divide-by-zero");
  CHECK(p.show("abs", {fx(-7)}) == "7");
  CHECK(p.show("abs", {N("-1/2")}) == "1/2");
  CHECK(p.show("abs", {fl(-0.0)}) == "0.0");
  CHECK(p.show("square", {fx(kFixnumMax)}) == "21267647932558653957237540927630737409");
  CHECK(p.show("square", {N("2/3")}) == "4/9");
  CHECK(p.error("square", {str}) == "square: expected a number, got \"a\"");

  CHECK(p.show("quotient", {fx(17), fx(-5)}) == "-3");
  CHECK(p.show("remainder", {fx(17), fx(-5)}) == "2");
  CHECK(p.show("modulo", {fx(17), fx(-5)}) == "-3");
  CHECK(p.show("modulo", {fx(-7), fx(2)}) == "1");
  CHECK(p.show("remainder", {fx(-7), fx(2)}) == "-1");
  CHECK(p.show("modulo", {fx(-7), fx(-2)}) == "-1");
  CHECK(p.show("quotient", {fl(7.0), fx(2)}) == "3.0");
  CHECK(p.show("modulo", {fl(-7.0), fx(2)}) == "1.0");
  CHECK(p.error("quotient", {fl(7.5), fx(2)}) == "quotient: expected an integer, got 7.5");
  CHECK(p.error("modulo", {fx(7), N("1/2")}) == "modulo: expected an integer, got 1/2");
  CHECK(p.error("modulo", {fx(7), fx(0)}) == "modulo: division by zero in (modulo 7 0)");
  CHECK(p.error("quotient", {fx(7), fl(0.0)}) == "quotient: division by zero in (quotient 7 0.0)");
  CHECK(p.show("floor/", {fx(5), fx(2)}) == "2 1");
  CHECK(p.show("floor/", {fx(-5), fx(2)}) == "-3 1");
  CHECK(p.show("floor/", {fx(5), fx(-2)}) == "-3 -1");
  CHECK(p.show("floor/", {fx(-5), fx(-2)}) == "2 -1");
  CHECK(p.show("truncate/", {fx(5), fx(2)}) == "2 1");
  CHECK(p.show("truncate/", {fx(-5), fx(2)}) == "-2 -1");
  CHECK(p.show("truncate/", {fx(5), fx(-2)}) == "-2 1");
  CHECK(p.show("truncate/", {fl(-5.0), fx(-2)}) == "2.0 -1.0");
  CHECK(p.show("floor-quotient", {fx(-5), fx(2)}) == "-3");
  CHECK(p.show("floor-remainder", {fx(-5), fx(2)}) == "1");
  CHECK(p.show("truncate-quotient", {fx(-5), fx(2)}) == "-2");
  CHECK(p.show("truncate-remainder", {fx(-5), fx(2)}) == "-1");
  Value big = N("-100000000000000000000000000001");
  CHECK(p.show("floor/", {big, fx(7)}) == "-14285714285714285714285714286 1");
  CHECK(p.show("truncate/", {big, fx(7)}) == "-14285714285714285714285714285 -6");
  CHECK(p.show("modulo", {big, N("100000000000000000000")}) == "99999999999999999999");
  CHECK(p.show("floor/", {fx(kFixnumMin), fx(-1)}) == "4611686018427387904 0");

  CHECK(p.show("gcd", {}) == "0");
  CHECK(p.show("gcd", {fx(32), fx(-36)}) == "4");
  CHECK(p.show("gcd", {fx(-4)}) == "4");
  CHECK(p.show("gcd", {fx(0), fx(0)}) == "0");
  CHECK(p.show("gcd", {fx(kFixnumMin), fx(0)}) == "4611686018427387904");
  CHECK(p.show("gcd", {N("100000000000000000000"), N("35000000000000000000000")}) ==
        "100000000000000000000");
  CHECK(p.show("lcm", {}) == "1");
  CHECK(p.show("lcm", {fx(32), fx(-36)}) == "288");
  CHECK(p.show("lcm", {fl(32.0), fx(-36)}) == "288.0");
  CHECK(p.show("lcm", {fx(0), fx(5)}) == "0");
  CHECK(p.error("gcd", {N("1/2")}) == "gcd: expected an integer, got 1/2");

  CHECK(p.show("numerator", {N("6/4")}) == "3");
  CHECK(p.show("denominator", {N("6/4")}) == "2");
  CHECK(p.show("denominator", {fx(5)}) == "1");
  CHECK(p.show("denominator", {fl(0.5)}) == "2.0");
  CHECK(p.show("numerator", {fl(0.75)}) == "3.0");
  CHECK(p.show("numerator", {fl(3.0)}) == "3.0");
  CHECK(p.show("denominator", {fl(3.0)}) == "1.0");

  CHECK(p.show("floor", {fl(-4.3)}) == "-5.0");
  CHECK(p.show("ceiling", {fl(-4.3)}) == "-4.0");
  CHECK(p.show("truncate", {fl(-4.3)}) == "-4.0");
  CHECK(p.show("round", {fl(-4.3)}) == "-4.0");
  CHECK(p.show("floor", {fl(3.5)}) == "3.0");
  CHECK(p.show("round", {fl(3.5)}) == "4.0");
  CHECK(p.show("round", {fl(2.5)}) == "2.0");
  CHECK(p.show("round", {fl(-2.5)}) == "-2.0");
  CHECK(p.show("round", {N("7/2")}) == "4");
  CHECK(p.show("round", {N("5/2")}) == "2");
  CHECK(p.show("round", {N("-5/2")}) == "-2");
  CHECK(p.show("round", {N("-7/2")}) == "-4");
  CHECK(p.show("round", {N("7/3")}) == "2");
  CHECK(p.show("round", {N("8/3")}) == "3");
  CHECK(p.show("floor", {N("-7/2")}) == "-4");
  CHECK(p.show("ceiling", {N("-7/2")}) == "-3");
  CHECK(p.show("truncate", {N("-7/2")}) == "-3");
  CHECK(p.show("round", {fx(7)}) == "7");
  CHECK(p.error("round", {str}) == "round: expected a real number, got \"a\"");

  CHECK(p.show("rationalize", {num_exact(fl(0.3)), N("1/10")}) == "1/3");
  CHECK(p.show("rationalize", {fl(0.3), N("1/10")}) == "0.3333333333333333");
  CHECK(p.show("rationalize", {N("-3/10"), N("1/10")}) == "-1/3");
  CHECK(p.show("rationalize", {N("1/3"), fx(1)}) == "0");
  CHECK(p.show("rationalize", {fx(5), fx(0)}) == "5");
  CHECK(p.show("rationalize", {N("22/7"), N("1/1000")}) == "22/7");
  CHECK(p.show("rationalize", {N("314159/100000"), N("1/1000")}) == "201/64");
  CHECK(p.show("rationalize", {N("+inf.0"), fx(3)}) == "+inf.0");
  CHECK(p.show("rationalize", {fx(3), N("+inf.0")}) == "0.0");
}

TEST_CASE("numbers: inexact functions, sqrt and expt", "[numbers]") {
  gc_init();
  NumPrims p;
  Value str = make_string_utf8("a");
  CHECK(p.show("exp", {fx(0)}) == "1");
  CHECK(p.show("exp", {fx(1)}) == "2.718281828459045");
  CHECK(p.show("log", {fx(1)}) == "0");
  CHECK(p.show("log", {fl(1.0)}) == "0.0");
  CHECK(p.show("log", {fx(8), fx(2)}) == "3.0");
  CHECK(p.show("log", {fx(1000), fx(10)}) == "3.0");
  CHECK(p.show("log", {fx(0)}) == "-inf.0");
  Value huge = num_expt(fx(10), fx(400));
  CHECK(std::fabs(number_to_double(p.call("log", {huge})) - 400 * std::log(10.0)) < 1e-9);
  CHECK(std::fabs(number_to_double(p.call("log", {num_div(fx(1), huge)})) + 400 * std::log(10.0)) <
        1e-9);
  CHECK(p.show("log", {fx(-1)}) == "0.0+3.141592653589793i");
  CHECK(p.error("log", {str}) == "log: expected a number, got \"a\"");
  CHECK(p.show("sin", {fx(0)}) == "0");
  CHECK(p.show("cos", {fx(0)}) == "1");
  CHECK(p.show("sin", {fl(0.0)}) == "0.0");
  CHECK(p.show("atan", {fx(1), fx(1)}) == "0.7853981633974483");
  CHECK(p.show("atan", {fx(1)}) == "0.7853981633974483");
  CHECK(p.show("acos", {fx(1)}) == "0");
  CHECK(p.show("asin", {fl(1.0)}) == "1.5707963267948966");
  CHECK(p.show("asin", {fx(2)}) == "1.5707963267948966-1.3169578969248166i");
  CHECK(p.error("tan", {str}) == "tan: expected a number, got \"a\"");

  CHECK(p.show("sqrt", {fx(16)}) == "4");
  CHECK(p.show("sqrt", {N("1/4")}) == "1/2");
  CHECK(p.show("sqrt", {fx(2)}) == "1.4142135623730951");
  CHECK(p.show("sqrt", {fl(16.0)}) == "4.0");
  CHECK(p.show("sqrt", {fl(-0.0)}) == "-0.0");
  CHECK(p.show("sqrt", {N("+inf.0")}) == "+inf.0");
  CHECK(p.show("sqrt", {num_mul(huge, huge)}) == S(huge));
  CHECK(p.show("sqrt", {num_add(num_mul(huge, huge), fx(1))}) == "+inf.0");
  CHECK(p.show("sqrt", {num_mul(fx(4), num_expt(fx(10), fx(700)))}) ==
        S(num_mul(fx(2), num_expt(fx(10), fx(350)))));
  double r = number_to_double(p.call("sqrt", {num_mul(fx(2), num_expt(fx(10), fx(600)))}));
  CHECK(std::fabs(r / (std::sqrt(2.0) * 1e300) - 1) < 1e-15);
  CHECK(p.show("sqrt", {fx(-1)}) == "+i");
  CHECK(p.show("sqrt", {fl(-4.0)}) == "0.0+2.0i");
  CHECK(p.show("sqrt", {N("-1/4")}) == "+1/2i");
  CHECK(p.show("exact-integer-sqrt", {fx(17)}) == "4 1");
  CHECK(p.show("exact-integer-sqrt", {fx(0)}) == "0 0");
  CHECK(p.show("exact-integer-sqrt", {fx(kFixnumMax)}) == "2147483647 4294967294");
  CHECK(p.show("exact-integer-sqrt", {num_add(num_mul(huge, huge), fx(5))}) == S(huge) + " 5");
  CHECK(p.error("exact-integer-sqrt", {fx(-1)}) ==
        "exact-integer-sqrt: expected an exact non-negative integer, got -1");
  CHECK(p.error("exact-integer-sqrt", {fl(4.0)}) ==
        "exact-integer-sqrt: expected an exact non-negative integer, got 4.0");

  CHECK(p.show("expt", {fx(2), fx(100)}) == "1267650600228229401496703205376");
  CHECK(p.show("expt", {fx(2), fx(-2)}) == "1/4");
  CHECK(p.show("expt", {fx(-2), fx(-3)}) == "-1/8");
  CHECK(p.show("expt", {N("2/3"), fx(3)}) == "8/27");
  CHECK(p.show("expt", {N("-2/3"), fx(-3)}) == "-27/8");
  CHECK(p.show("expt", {fx(0), fx(0)}) == "1");
  CHECK(p.show("expt", {fl(0.0), fx(0)}) == "1.0");
  CHECK(p.show("expt", {fx(0), fx(5)}) == "0");
  CHECK(p.show("expt", {fl(2.0), fx(3)}) == "8.0");
  CHECK(p.show("expt", {fx(2), fl(0.5)}) == "1.4142135623730951");
  CHECK(p.show("expt", {fx(4), N("1/2")}) == "2");
  CHECK(p.show("expt", {N("8/27"), N("2/3")}) == "4/9");
  CHECK(p.show("expt", {fx(2), N("1/2")}) == "1.4142135623730951");
  CHECK(p.show("expt", {fl(0.0), fx(-1)}) == "+inf.0");
  CHECK(p.show("expt", {fx(1), N("100000000000000000000000")}) == "1");
  CHECK(p.show("expt", {fx(-1), N("100000000000000000000001")}) == "-1");
  CHECK(p.show("expt", {fx(-1), N("-100000000000000000000000")}) == "1");
  CHECK(p.show("expt", {fx(0), N("100000000000000000000000")}) == "0");
  CHECK(p.error_kind("expt", {fx(0), fx(-1)}) == "divide-by-zero");
  CHECK(p.error_kind("expt", {fx(2), num_expt(fx(2), fx(40))}) == "limit");
  CHECK(p.error_kind("expt", {fx(2), N("100000000000000000000000")}) == "limit");
  CHECK(p.error_kind("expt", {N("1/2"), num_expt(fx(2), fx(40))}) == "limit");
  CHECK(p.show("expt", {fx(-8), N("1/3")}) == "1.0+1.732050807568877i");
  CHECK(p.error("expt", {str, fx(2)}) == "expt: expected a number, got \"a\"");
  CHECK(is_bignum(p.call("expt", {fx(10), fx(100000)})));

  CHECK(p.show("exact", {fl(2.5)}) == "5/2");
  CHECK(p.show("inexact->exact", {fl(-2.0)}) == "-2");
  CHECK(p.show("inexact", {N("1/8")}) == "0.125");
  CHECK(p.show("exact->inexact", {fx(3)}) == "3.0");
  CHECK(p.error("exact", {N("+inf.0")}) == "exact: no exact representation for +inf.0");
  CHECK(p.error("exact", {N("+nan.0")}) == "exact: no exact representation for +nan.0");
  CHECK(p.error("inexact", {str}) == "inexact: expected a number, got \"a\"");
}

TEST_CASE("numbers: number->string and string->number primitives", "[numbers]") {
  gc_init();
  NumPrims p;
  auto text = [&](std::initializer_list<Value> args) {
    return string_to_utf8(p.call("number->string", args));
  };
  auto str = [](const char* s) { return make_string_utf8(s); };
  CHECK(text({fx(255), fx(16)}) == "ff");
  CHECK(text({fx(255)}) == "255");
  CHECK(text({fx(5), fx(2)}) == "101");
  CHECK(text({fl(1e100)}) == "1e100");
  CHECK(text({fl(1.5), fx(10)}) == "1.5");
  CHECK(p.error("number->string", {fx(5), fx(3)}) == "number->string: expected a radix (2, 8, 10 or 16), got 3");
  CHECK(p.error("number->string", {str("x")}) == "number->string: expected a number, got \"x\"");
  CHECK(p.call("string->number", {str("abc")}) == kFalse);
  CHECK(p.call("string->number", {str("ff"), fx(16)}) == fx(255));
  CHECK(p.call("string->number", {str("#xff"), fx(2)}) == fx(255));
  CHECK(p.call("string->number", {str("101"), fx(2)}) == fx(5));
  CHECK(p.call("string->number", {str("1e2"), fx(16)}) == fx(0x1e2));
  CHECK(S(p.call("string->number", {str("1e2")})) == "100.0");
  CHECK(p.error("string->number", {fx(1)}) == "string->number: expected a string, got 1");
}

TEST_CASE("numbers: bitwise operations", "[numbers]") {
  gc_init();
  NumPrims p;
  CHECK(p.show("bitwise-and", {}) == "-1");
  CHECK(p.show("bitwise-or", {}) == "0");
  CHECK(p.show("bitwise-and", {fx(12), fx(10)}) == "8");
  CHECK(p.show("bitwise-or", {fx(12), fx(10)}) == "14");
  CHECK(p.show("bitwise-xor", {fx(12), fx(10)}) == "6");
  CHECK(p.show("bitwise-and", {fx(-1), fx(255), fx(15)}) == "15");
  CHECK(p.show("bitwise-not", {fx(0)}) == "-1");
  CHECK(p.show("bitwise-not", {fx(kFixnumMax)}) == std::to_string(kFixnumMin));
  Value big = num_expt(fx(2), fx(100));
  CHECK(p.show("bitwise-and", {num_sub(big, fx(1)), fx(-256)}) == S(num_sub(big, fx(256))));
  CHECK(p.show("bitwise-or", {big, fx(1)}) == S(num_add(big, fx(1))));
  CHECK(p.show("bitwise-xor", {big, big}) == "0");
  CHECK(p.show("bitwise-not", {big}) == S(num_sub(num_negate(big), fx(1))));
  CHECK(p.show("bitwise-and", {num_negate(big), num_sub(num_expt(fx(2), fx(101)), fx(1))}) ==
        S(big));
  CHECK(p.show("arithmetic-shift", {fx(1), fx(100)}) == S(big));
  CHECK(p.show("arithmetic-shift", {fx(1), fx(61)}) == std::to_string(int64_t(1) << 61));
  CHECK(p.show("arithmetic-shift", {fx(1), fx(62)}) == "4611686018427387904");
  CHECK(p.show("arithmetic-shift", {fx(-1), fx(62)}) == std::to_string(kFixnumMin));
  CHECK(p.show("arithmetic-shift", {fx(3), fx(61)}) == "6917529027641081856");
  CHECK(p.show("arithmetic-shift", {big, fx(-98)}) == "4");
  CHECK(p.show("arithmetic-shift", {fx(-1), fx(-100)}) == "-1");
  CHECK(p.show("arithmetic-shift", {fx(-5), fx(-1)}) == "-3");
  CHECK(p.show("arithmetic-shift", {fx(5), fx(-1)}) == "2");
  CHECK(p.show("arithmetic-shift", {fx(5), N("-100000000000000000000000")}) == "0");
  CHECK(p.show("arithmetic-shift", {num_negate(big), N("-100000000000000000000000")}) == "-1");
  CHECK(p.show("arithmetic-shift", {fx(0), N("100000000000000000000000")}) == "0");
  CHECK(p.show("arithmetic-shift", {num_sub(fx(0), big), fx(-99)}) == "-2");
  CHECK(p.error_kind("arithmetic-shift", {fx(1), N("100000000000000000000000")}) == "limit");
  CHECK(p.error_kind("arithmetic-shift", {fx(1), fx(int64_t(1) << 30)}) == "limit");
  CHECK(p.show("bit-count", {fx(7)}) == "3");
  CHECK(p.show("bit-count", {fx(-8)}) == "3");
  CHECK(p.show("bit-count", {fx(0)}) == "0");
  CHECK(p.show("bit-count", {num_sub(big, fx(1))}) == "100");
  CHECK(p.show("bit-count", {num_negate(big)}) == "100");
  CHECK(p.error("bitwise-and", {fl(1.0)}) == "bitwise-and: expected an exact integer, got 1.0");
  CHECK(p.error("bit-count", {N("1/2")}) == "bit-count: expected an exact integer, got 1/2");
}

TEST_CASE("numbers: GMP's temporary memory counts toward the allocated bytes", "[numbers][limits]") {
  // gcd(2^k + 1, 2^k - 1) = 1: a fixnum result, but GMP works on k-bit temporaries. The memory
  // limit counts tl_allocated_bytes (issue 8: GMP's buffers were not counted).
  const int64_t k = 1 << 20;
  Value p = num_expt(make_integer(2), make_integer(k));
  Value a = num_add(p, make_integer(1)), b = num_sub(p, make_integer(1));
  uint64_t before = tl_allocated_bytes;
  CHECK(num_gcd(a, b) == make_integer(1));
  CHECK(tl_allocated_bytes - before >= uint64_t(k / 8));
}
