// differential.cpp — see differential.hpp.
#include "differential.hpp"

#include <cstdlib>

#include "engine/engine_bridge.hpp"
#include "quasi/error.hpp"
#include "vm/jit_policy.hpp"
#include "vm/vm.hpp"
#include "vm/vm_impl.hpp"

namespace quasi_gen {

namespace qb = quasi::bridge;

namespace {

// What a program's guard reports of a raise (see generator.hpp): errors by message and irritants,
// anything else as itself.
const char* const kPrelude =
    "(define (gen-describe e)"
    "  (if (error-object? e)"
    "      (list 'error (error-object-message e) (error-object-irritants e))"
    "      (list 'raise e)))";

// A runaway guard, not a speed test: generous enough that a program the reference finishes in
// well under a second, specialized (static work first) on a loaded machine, still finishes; the
// sanitizers cost about five times as much.
#if defined(QUASI_SANITIZED)
constexpr int64_t kTimeLimitNs = 10'000'000'000;
#else
constexpr int64_t kTimeLimitNs = 4'000'000'000;
#endif
constexpr uint64_t kMemoryLimit = 1ull << 30;

qb::Engine* make_engine(quasi::JitMode mode, bool passes_off) {
  qb::EngineConfig c;
  c.allow_files = c.allow_process = c.allow_environment = false;
  c.time_limit_ns = kTimeLimitNs;
  c.alloc_limit = kMemoryLimit;
  c.jit_mode = static_cast<int>(mode);
  std::string old;
  const char* o = std::getenv("QUASI_PASSES");
  bool had = o != nullptr;
  if (had) old = o;
  if (passes_off) setenv("QUASI_PASSES", "off", 1);
  qb::Engine* e = qb::create_engine(c);
  if (passes_off) {
    if (had) setenv("QUASI_PASSES", old.c_str(), 1);
    else unsetenv("QUASI_PASSES");
  }
  qb::eval(e, kPrelude, "<gen-prelude>");
  return e;
}

std::string outcome(qb::Engine* e, const std::string& code) {
  try {
    return qb::write(qb::eval(e, code, "<gen>"), false);
  } catch (quasi::Error& err) {
    if (err.kind() == "limit") return "limit: " + err.message();
    return "error: " + std::string(err.what()) + " [" + err.kind() + "]";
  } catch (quasi::Exit& ex) {
    return "exit " + std::to_string(ex.status());
  }
}

bool is_limit(const std::string& o) { return o.rfind("limit: ", 0) == 0; }

// An argument literal inside a quoted datum: '(1 2) is written (1 2) there.
std::string unquoted(const std::string& lit) { return !lit.empty() && lit[0] == '\'' ? lit.substr(1) : lit; }

}  // namespace

struct Runner::Engines {
  qb::Engine* off = nullptr;
  qb::Engine* force = nullptr;
  qb::Engine* hot = nullptr;
  qb::Engine* nopass = nullptr;
  Engines() {
    off = make_engine(quasi::JitMode::kOff, false);
    force = make_engine(quasi::JitMode::kForce, false);
    hot = make_engine(quasi::JitMode::kOn, false);
    nopass = make_engine(quasi::JitMode::kOn, true);
  }
  ~Engines() {
    for (qb::Engine* e : {off, force, hot, nopass}) qb::destroy_engine(e);
  }
};

Runner::Runner() : e_(std::make_unique<Engines>()) {}
Runner::~Runner() = default;

void Runner::renew() {
  e_.reset();
  qb::collect_garbage();
  e_ = std::make_unique<Engines>();
}

std::string Runner::reference(const Program& p, size_t tuple) {
  outcome(e_->off, "(define gen-f #f)");  // nothing left of the previous program if this one is bad syntax
  outcome(e_->off, "(define gen-f " + p.proc.str() + ")");
  std::string c = "(gen-f";
  for (const std::string& a : p.args[tuple]) c += " " + a;
  return outcome(e_->off, c + ")");
}

Result Runner::run(const Program& p, int hot_threshold, bool specialize, int only_tuple) {
  Result res;
  std::string define = "(define gen-f " + p.proc.str() + ")";
  std::vector<std::string> calls;
  for (const auto& args : p.args) {
    std::string c = "(gen-f";
    for (const std::string& a : args) c += " " + a;
    calls.push_back(c + ")");
  }
  auto wanted = [&](size_t t) { return only_tuple < 0 || static_cast<size_t>(only_tuple) == t; };

  // The reference. gen-f is cleared first everywhere: a program that is bad syntax (a minimizer's
  // candidate) must not leave the previous one's gen-f to be called.
  for (qb::Engine* e : {e_->off, e_->force, e_->hot, e_->nopass}) outcome(e, "(define gen-f #f)");
  std::string ref_define = outcome(e_->off, define);
  std::vector<std::string> ref(calls.size());
  for (size_t t = 0; t < calls.size(); ++t) {
    if (!wanted(t)) continue;
    ref[t] = outcome(e_->off, calls[t]);
    if (is_limit(ref[t])) {
      res.skipped = true;
      return res;
    }
    if (ref[t].rfind("((value", 0) == 0) ++res.values;
    else ++res.raises;
  }

  // Time is not meaning: a transformed run that hits a limit where the reference finished (a
  // loaded machine, a specialization's first cold run) is run once more before it counts; a
  // second hit is a runaway and a mismatch.
  auto check = [&](const char* way, size_t t, const std::string& call, qb::Engine* e) {
    std::string got = outcome(e, call);
    if (is_limit(got)) got = outcome(e, call);
    if (got != ref[t]) res.mismatches.push_back({way, t, call, ref[t], got});
  };

  struct Way {
    const char* name;
    qb::Engine* e;
    int repeats;
  };
  quasi::bridge::vm_of(e_->hot).impl->jit.threshold = static_cast<uint32_t>(hot_threshold);
  for (const Way& w : {Way{"force", e_->force, 1}, Way{"hot", e_->hot, 3}, Way{"nopass", e_->nopass, 1}}) {
    std::string d = outcome(w.e, define);
    if (d != ref_define) {
      res.mismatches.push_back({w.name, 0, define, ref_define, d});
      continue;
    }
    for (size_t t = 0; t < calls.size(); ++t) {
      if (!wanted(t)) continue;
      for (int r = 0; r < w.repeats; ++r) check(w.name, t, calls[t], w.e);
    }
  }

  if (specialize) {
    for (size_t t = 0; t < calls.size(); ++t) {
      if (!wanted(t)) continue;
      const std::vector<int>& st = p.static_positions[t];
      std::string statics = "'(";
      std::string rest;
      for (int k = 0; k < kParams; ++k) {
        bool is_static = false;
        for (int s : st) is_static |= s == k;
        if (is_static) statics += "(" + std::to_string(k) + " . " + unquoted(p.args[t][k]) + ")";
        else rest += " " + p.args[t][k];
      }
      std::string call = "((specialize* gen-f " + statics + "))" + rest + ")";
      check("spec-off", t, call, e_->off);
      check("spec-hot", t, call, e_->hot);
    }
  }
  return res;
}

}  // namespace quasi_gen
