// system.cpp — (scheme time), (scheme process-context), features, random numbers and GC control.
#include "builtins/system.hpp"

#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include "builtins/registry.hpp"
#include "core/numbers.hpp"
#include "eval/environment.hpp"
#include "eval/expander.hpp"
#include "vm/vm.hpp"

extern char** environ;

namespace quasi {
namespace {

// ---- time ------------------------------------------------------------------------------------
// current-second: POSIX time (UTC seconds since 1970, no leap seconds) as a flonum. R7RS asks for
// TAI; the constant offset is not worth a leap-second table.
QUASI_PRIM(p_current_second) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return make_flonum(static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9);
}

// current-jiffy: microseconds of a monotonic clock (arbitrary epoch, fixed for the process).
QUASI_PRIM(p_current_jiffy) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return make_fixnum(static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000);
}

QUASI_PRIM(p_jiffies_per_second) { return make_fixnum(1000000); }

// ---- process context -------------------------------------------------------------------------
QUASI_PRIM(p_command_line) { return vm.command_line.get(); }

QUASI_PRIM(p_get_environment_variable) {
  if (!is_string(argv[0])) type_error("get-environment-variable", "a string", argv[0]);
  std::string name = string_to_utf8(argv[0]);
  const char* v = name.find('\0') == std::string::npos ? std::getenv(name.c_str()) : nullptr;
  return v ? make_string_utf8(v) : kFalse;
}

QUASI_PRIM(p_get_environment_variables) {
  Value result = kNil;
  for (char** e = environ; e && *e; e++) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    result = cons(cons(make_string_utf8(entry.substr(0, eq)), make_string_utf8(entry.substr(eq + 1))),
                  result);
  }
  return reverse_list(result);
}

int exit_status(int argc, Value* argv) {
  if (argc == 0 || argv[0] == kDefault || argv[0] == kTrue) return 0;
  if (argv[0] == kFalse) return 1;
  if (argv[0].is_fixnum()) return static_cast<int>(argv[0].fixnum());
  return 0;
}

QUASI_PRIM(p_exit) { throw ExitRequest{exit_status(argc, argv), false}; }
QUASI_PRIM(p_emergency_exit) { throw ExitRequest{exit_status(argc, argv), true}; }

QUASI_PRIM(p_features) { return expander_features(); }

// ---- random ----------------------------------------------------------------------------------
// xoshiro256** per thread, seeded from std::random_device through splitmix64.
struct Xoshiro {
  uint64_t s[4];
  Xoshiro() {
    std::random_device rd;
    uint64_t x = (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
                 static_cast<uint64_t>(reinterpret_cast<uintptr_t>(this));
    for (uint64_t& w : s) {
      x += 0x9E3779B97F4A7C15ull;
      uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      w = z ^ (z >> 31);
    }
  }
  static uint64_t rotl(uint64_t v, int k) { return (v << k) | (v >> (64 - k)); }
  uint64_t next() {
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }
  // Uniform in [0, n), n > 0, without modulo bias.
  uint64_t below(uint64_t n) {
    uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    for (;;) {
      uint64_t x = next();
      if (x >= threshold) return x % n;
    }
  }
};

Xoshiro& rng() {
  thread_local Xoshiro r;
  return r;
}

QUASI_PRIM(p_random) {
  Value n = argv[0];
  if (n.is_fixnum()) {
    if (n.fixnum() <= 0) range_error("random", "bound", n);
    return make_fixnum(static_cast<int64_t>(rng().below(static_cast<uint64_t>(n.fixnum()))));
  }
  if (is_bignum(n)) {
    const __mpz_struct* bound = &n.as<Bignum>()->z;
    if (mpz_sgn(bound) <= 0) range_error("random", "bound", n);
    size_t bits = mpz_sizeinbase(bound, 2);
    mpz_t r;
    mpz_init(r);
    do {  // rejection sampling on `bits` random bits: expected < 2 rounds
      mpz_set_ui(r, 0);
      for (size_t got = 0; got < bits; got += 64) {
        mpz_mul_2exp(r, r, 64);
        mpz_add_ui(r, r, rng().next());
      }
      mpz_fdiv_r_2exp(r, r, bits);
    } while (mpz_cmp(r, bound) >= 0);
    Value result = make_integer(r);
    mpz_clear(r);
    return result;
  }
  if (is_flonum(n)) {
    double x = flonum_value(n);
    if (!(x > 0) || std::isinf(x)) range_error("random", "bound", n);
    double u = static_cast<double>(rng().next() >> 11) * 0x1.0p-53;  // [0, 1)
    double r = u * x;
    if (r >= x) r = std::nextafter(x, 0.0);
    return make_flonum(r);
  }
  type_error("random", "a positive exact integer or flonum", n);
}

// ---- GC --------------------------------------------------------------------------------------
QUASI_PRIM(p_gc) {
  GC_gcollect();
  return kUnspecified;
}

QUASI_PRIM(p_gc_stats) {
  auto entry = [](const char* key, uint64_t v) {
    return cons(intern(key), make_integer(static_cast<int64_t>(v)));
  };
  return list({
      entry("heap-size", GC_get_heap_size()),
      entry("free-bytes", GC_get_free_bytes()),
      entry("bytes-since-gc", GC_get_bytes_since_gc()),
      entry("total-bytes", GC_get_total_bytes()),
      entry("gc-count", GC_get_gc_no()),
      entry("free-space-divisor", GC_get_free_space_divisor()),
      entry("collection-window", GC_get_min_bytes_allocd()),
      entry("interned-symbols", interned_symbol_slots()),
  });
}

const PrimDef kSystemPrims[] = {
    {"current-second", p_current_second, 0, 0, kHasEffects},
    {"current-jiffy", p_current_jiffy, 0, 0, kHasEffects},
    {"jiffies-per-second", p_jiffies_per_second, 0, 0, kPureFold},
    {"command-line", p_command_line, 0, 0, 0},
    {"get-environment-variable", p_get_environment_variable, 1, 1, kMayRaise},
    {"get-environment-variables", p_get_environment_variables, 0, 0, kAllocates},
    {"exit", p_exit, 0, 1, kEffect},
    {"emergency-exit", p_emergency_exit, 0, 1, kEffect},
    {"features", p_features, 0, 0, kAlloc},
    {"random", p_random, 1, 1, kEffect},
    {"gc", p_gc, 0, 0, kHasEffects},
    {"gc-stats", p_gc_stats, 0, 0, kAllocates},
};

}  // namespace

void register_system_primitives(Environment* env) { install_primitives(env, kSystemPrims); }

}  // namespace quasi
