// main.cpp — quasi_gen: generates random programs and runs each every way (differential.hpp).
//
//   quasi_gen [--seed S] [--count N] [--start I] [--seconds T] [--no-specialize] [--no-minimize]
//             [--print] [--keep-going]
//   quasi_gen --program-seed P [--print]      one program alone (what a mismatch report names)
//   quasi_gen --check-minimizer [--count N]   a test of the minimizer (see check_minimizer)
//   quasi_gen --oracle [--oracle-strict] [--seed S] [--count N] [--start I]
//             the same programs in Guile 3 against Quasi's interpreter (oracle.hpp); exit status
//             77 (skipped) when Guile is not installed
//
// Exit status 0 when every program agreed every way, 1 on a mismatch (reported with the run
// seed, the program's index and seed, the program minimized, each disagreeing outcome and the
// command that reruns it). ctest runs a bounded number of programs with a fixed seed; long runs:
// tests/gen/README.md.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "differential.hpp"
#include "generator.hpp"
#include "minimize.hpp"
#include "oracle.hpp"

using namespace quasi_gen;

namespace {

int hot_threshold_of(uint64_t pseed) { return 2 + static_cast<int>((pseed >> 7) % 39); }

std::string args_text(const Program& p, size_t t) {
  std::string s;
  for (const std::string& a : p.args[t]) s += (s.empty() ? "" : " ") + a;
  return s;
}

void report(const Program& p, uint64_t pseed, const Result& r, Runner& runner, bool specialize, bool do_minimize) {
  const Mismatch& m = r.mismatches.front();
  std::printf("MISMATCH (program seed %llu, way %s, hot threshold %d)\n", static_cast<unsigned long long>(pseed),
              m.way.c_str(), hot_threshold_of(pseed));
  std::printf("  program:  %s\n", p.proc.str().c_str());
  std::printf("  args:     %s\n", args_text(p, m.tuple).c_str());
  std::printf("  call:     %s\n", m.call.c_str());
  std::printf("  off:      %s\n", m.expected.c_str());
  std::printf("  %-8s  %s\n", (m.way + ":").c_str(), m.got.c_str());
  for (size_t i = 1; i < r.mismatches.size() && i < 6; ++i)
    std::printf("  also %s (tuple %zu): %s\n", r.mismatches[i].way.c_str(), r.mismatches[i].tuple,
                r.mismatches[i].got.c_str());
  if (do_minimize) {
    std::string way = m.way;
    int tuple = static_cast<int>(m.tuple);
    int threshold = hot_threshold_of(pseed);
    Program small = minimize(p, [&](const Program& c) {
      Result rr = runner.run(c, threshold, specialize, tuple);
      for (const Mismatch& x : rr.mismatches)
        if (x.way == way) return true;
      return false;
    });
    Result again = runner.run(small, threshold, specialize, tuple);
    std::printf("  minimized body: %s\n", body_of(small).str().c_str());
    std::printf("  minimized:      %s\n", small.proc.str().c_str());
    for (const Mismatch& x : again.mismatches)
      if (x.way == way) {
        std::printf("    off:      %s\n", x.expected.c_str());
        std::printf("    %-8s  %s\n", (x.way + ":").c_str(), x.got.c_str());
        break;
      }
  }
  std::printf("  reproduce: quasi_gen --program-seed %llu\n", static_cast<unsigned long long>(pseed));
  std::fflush(stdout);
}

// --check-minimizer: the minimizer on the first `count` programs whose first call raises an
// error, asked to keep "the reference raises an error with the same message": the result must be
// no larger, must still raise it, and over all of them must be smaller.
int check_minimizer(uint64_t seed, uint64_t count) {
  Runner runner;
  size_t before = 0, after = 0, done = 0;
  for (uint64_t i = 0; done < count && i < count * 50; ++i) {
    Program p = generate(program_seed(seed, i));
    std::string ref = runner.reference(p, 0);
    if (ref.rfind("((error ", 0) != 0) continue;
    std::string message = ref.substr(0, ref.find('"', ref.find('"') + 1) + 1);
    auto raises_same = [&](const Program& c) { return runner.reference(c, 0).rfind(message, 0) == 0; };
    Program small = minimize(p, raises_same, 400);
    size_t b = body_of(p).size(), a = body_of(small).size();
    if (a > b || !raises_same(small)) {
      std::printf("minimizer broke program %llu: %s -> %s\n", static_cast<unsigned long long>(i),
                  body_of(p).str().c_str(), body_of(small).str().c_str());
      return 1;
    }
    before += b;
    after += a;
    ++done;
    std::printf("%zu -> %zu nodes: %s  ;; %s\n", b, a, body_of(small).str().c_str(), message.c_str());
  }
  std::printf("minimizer: %zu programs, %zu -> %zu nodes\n", done, before, after);
  return done > 0 && after < before ? 0 : 1;
}

// --oracle: programs in batches, each batch one Guile process; a mismatch is reported with the
// program seed, the call and both canonical outcomes, and the program minimized (each candidate
// is one more Guile process, so the budget is small).
int run_oracle(uint64_t seed, uint64_t start, uint64_t count, bool strict, bool do_minimize) {
  std::string guile = Oracle::find_guile();
  if (guile.empty()) {
    std::printf("quasi_gen --oracle: Guile is not installed; skipped\n");
    return 77;
  }
  Oracle oracle(guile, strict);
  constexpr uint64_t kBatch = 100;
  uint64_t failed = 0, not_run = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t b = start; b < start + count; b += kBatch) {
    std::vector<Program> batch;
    std::vector<uint64_t> seeds;
    for (uint64_t i = b; i < std::min(start + count, b + kBatch); ++i) {
      seeds.push_back(program_seed(seed, i));
      batch.push_back(generate(seeds.back()));
    }
    std::vector<OracleMismatch> ms;
    // A batch Guile cannot finish is split until the program it cannot run is alone; that one is
    // reported and left out (what Quasi did with it the other ways check).
    std::function<void(size_t, size_t)> run_part = [&](size_t from, size_t to) {
      std::vector<Program> part(batch.begin() + from, batch.begin() + to);
      std::string error;
      std::vector<OracleMismatch> found = oracle.compare(part, &error);
      if (error.empty()) {
        for (OracleMismatch& m : found) {
          m.program += from;
          ms.push_back(m);
        }
      } else if (to - from > 1) {
        run_part(from, from + (to - from) / 2);
        run_part(from + (to - from) / 2, to);
      } else {
        ++not_run;
        std::printf("quasi_gen --oracle: program %llu (seed %llu) left out: %s\n",
                    static_cast<unsigned long long>(b + from), static_cast<unsigned long long>(seeds[from]),
                    error.c_str());
      }
    };
    run_part(0, batch.size());
    for (const OracleMismatch& m : ms) {
      ++failed;
      std::printf("ORACLE MISMATCH (program %llu, seed %llu, tuple %zu)\n  call:   %s\n  quasi:  %s\n  %s:  %s\n",
                  static_cast<unsigned long long>(b + m.program), static_cast<unsigned long long>(seeds[m.program]),
                  m.tuple, m.call.c_str(), m.quasi.c_str(), "guile", m.other.c_str());
      if (do_minimize) {
        Program one = batch[m.program];
        one.args = {one.args[m.tuple]};
        Oracle probe(guile, strict);
        Program small = minimize(one, [&](const Program& c) {
          std::string err;
          return !probe.compare({c}, &err).empty() && err.empty();
        }, 150);
        std::string err;
        std::vector<OracleMismatch> again = probe.compare({small}, &err);
        std::printf("  minimized: %s\n", small.proc.str().c_str());
        if (!again.empty())
          std::printf("    quasi:  %s\n    guile:  %s\n", again[0].quasi.c_str(), again[0].other.c_str());
      }
      std::printf("  rerun (minimized): quasi_gen --oracle --seed %llu --start %llu --count 1\n",
                  static_cast<unsigned long long>(seed), static_cast<unsigned long long>(b + m.program));
      std::fflush(stdout);
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("quasi_gen --oracle: seed %llu: %llu programs, %llu calls compared with %s, %llu left out "
              "(an error on one side only), %llu agreed within rounding, %llu more exact in Quasi, %llu in another order, %llu mismatched; %llu calls of programs Quasi stopped at a limit not given to it, %llu programs it could not run; %.1f s\n",
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(count),
              static_cast<unsigned long long>(oracle.compared), guile.c_str(),
              static_cast<unsigned long long>(oracle.left_out), static_cast<unsigned long long>(oracle.rounding),
              static_cast<unsigned long long>(oracle.more_exact), static_cast<unsigned long long>(oracle.order),
              static_cast<unsigned long long>(failed), static_cast<unsigned long long>(oracle.not_terminating),
              static_cast<unsigned long long>(not_run), secs);
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 1, start = 0, count = 100, program_seed_only = 0;
  bool oracle = false, oracle_strict = false;
  bool minimizer_only = false, one = false, specialize = true, do_minimize = true, print = false, keep_going = false;
  double seconds = 0;
  for (int i = 1; i < argc; ++i) {
    auto val = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "quasi_gen: %s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(val(), nullptr, 10);
    else if (!std::strcmp(argv[i], "--count")) count = std::strtoull(val(), nullptr, 10);
    else if (!std::strcmp(argv[i], "--start")) start = std::strtoull(val(), nullptr, 10);
    else if (!std::strcmp(argv[i], "--seconds")) seconds = std::strtod(val(), nullptr);
    else if (!std::strcmp(argv[i], "--program-seed")) {
      program_seed_only = std::strtoull(val(), nullptr, 10);
      one = true;
    } else if (!std::strcmp(argv[i], "--no-specialize")) specialize = false;
    else if (!std::strcmp(argv[i], "--no-minimize")) do_minimize = false;
    else if (!std::strcmp(argv[i], "--print")) print = true;
    else if (!std::strcmp(argv[i], "--keep-going")) keep_going = true;
    else if (!std::strcmp(argv[i], "--check-minimizer")) minimizer_only = true;
    else if (!std::strcmp(argv[i], "--oracle")) oracle = true;
    else if (!std::strcmp(argv[i], "--oracle-strict")) oracle = oracle_strict = true;
    else {
      std::fprintf(stderr,
                   "usage: quasi_gen [--seed S] [--count N] [--start I] [--seconds T] [--no-specialize]\n"
                   "                 [--no-minimize] [--print] [--keep-going] | --program-seed P\n"
                   "       quasi_gen --oracle [--oracle-strict] [--seed S] [--count N] [--start I]\n");
      return 2;
    }
  }

  if (minimizer_only) return check_minimizer(seed, count);
  if (oracle) return run_oracle(seed, start, count, oracle_strict, do_minimize);
  Runner runner;
  auto t0 = std::chrono::steady_clock::now();
  uint64_t ran = 0, skipped = 0, failed = 0, values = 0, raises = 0;
  for (uint64_t i = start; one ? ran + skipped == 0 : i < start + count; ++i) {
    if (seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds)
      break;
    uint64_t pseed = one ? program_seed_only : program_seed(seed, i);
    Program p = generate(pseed);
    if (print) {
      std::printf(";; program %llu (seed %llu)\n%s\n", static_cast<unsigned long long>(i),
                  static_cast<unsigned long long>(pseed), p.proc.str().c_str());
      for (size_t t = 0; t < p.args.size(); ++t) std::printf(";;   args: %s\n", args_text(p, t).c_str());
    }
    if (!one && (i - start) % 250 == 249) runner.renew();
    Result r = runner.run(p, hot_threshold_of(pseed), specialize);
    if (r.skipped) {
      ++skipped;
      continue;
    }
    ++ran;
    values += r.values;
    raises += r.raises;
    if (!r.mismatches.empty()) {
      ++failed;
      std::printf("run seed %llu, program %llu:\n", static_cast<unsigned long long>(seed),
                  static_cast<unsigned long long>(i));
      report(p, pseed, r, runner, specialize, do_minimize);
      if (!keep_going) break;
      runner.renew();
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("quasi_gen: seed %llu: %llu programs run, %llu skipped (limit in the reference), %llu mismatched; "
              "calls that returned %llu, raised %llu; %.1f s\n",
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(ran),
              static_cast<unsigned long long>(skipped), static_cast<unsigned long long>(failed),
              static_cast<unsigned long long>(values), static_cast<unsigned long long>(raises), secs);
  return failed ? 1 : 0;
}
