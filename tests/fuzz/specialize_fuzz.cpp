// specialize_fuzz.cpp — `specialize*` against the procedure it specializes.
//
// The input is Scheme source that defines `f` (the seed corpus holds programs of the random
// generator, tests/gen, as (define f (lambda (a b c d) ...))). Each input runs in a fresh
// environment of one sandboxed engine with limits. When `f` is a procedure of 1..6 required
// parameters, a subset of them (chosen from the input's hash) is fixed to values from a pool of
// numbers, lists and strings, and
//     (f v0 v1 ...)   and   ((specialize* f '((i . vi) ...)) the-others ...)
// must agree: the same written value, or both an error of the same kind and message. A limit hit
// in either makes the input uninteresting. A disagreement aborts (libFuzzer saves the input).
#include <quasi/quasi.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "common.hpp"

namespace {

quasi::Engine& engine() {
  static quasi::Engine* e = [] {
    quasi::Engine::Options o = quasi::Engine::Options::sandboxed();
    o.step_limit = 1'000'000;
    o.time_limit = std::chrono::milliseconds(1000);
    o.memory_limit = 256u << 20;
    auto* engine = new quasi::Engine(o);
    engine->eval("(define (fuzz-required f) (cadr (assq 'arity (procedure-information f))))");
    return engine;
  }();
  return *e;
}

const char* const kPool[] = {"0",   "1",        "-7",     "4611686018427387904", "1/3",  "2.5",     "-0.0",
                             "+nan.0", "()",    "(1 2 3)", "(10 -5 100000000000000000000)", "\"\"", "\"abc\"",
                             "#\\a", "#t",      "#f",     "foo",                 "#(1 2)", "1152921504606846975"};

struct Outcome {
  bool limit = false;
  std::string text;
};

Outcome run(quasi::Environment& env, const std::string& code) {
  try {
    return {false, env.eval(code, "<fuzz>").to_string()};
  } catch (quasi::Error& err) {
    if (err.kind() == "limit") return {true, ""};
    return {false, "error [" + err.kind() + "] " + err.message()};
  } catch (quasi::Exit& ex) {
    return {false, "exit " + std::to_string(ex.status())};
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view code(reinterpret_cast<const char*>(data), size);
  quasi::Engine& e = engine();
  uint64_t h = quasi_fuzz::hash(code);
  try {
    e.eval(h % 2 ? "(jit-mode 'on)" : "(jit-mode 'off)");
    quasi::Environment env = e.new_environment({"(scheme base)", "(scheme char)", "(scheme cxr)", "(scheme inexact)",
                                                "(scheme write)", "(quasi specialize)"});
    env.eval(code, "<fuzz>");
    if (!env.contains("f")) return 0;
    quasi::Value f = env.get("f");
    if (!f.is_procedure()) return 0;
    int64_t n = e.call("fuzz-required", f).as_int();
    if (n < 1 || n > 6) return 0;
    std::string full = "(f", rest, statics = "'(";
    h /= 3;
    for (int64_t i = 0; i < n; ++i) {
      const char* v = kPool[h % (sizeof kPool / sizeof *kPool)];
      h /= 19;
      bool is_static = h % 2;
      h /= 2;
      std::string arg = std::string(v);
      std::string quoted = (arg[0] == '(' || arg == "foo") ? "'" + arg : arg;
      full += " " + quoted;
      if (is_static) statics += "(" + std::to_string(i) + " . " + arg + ")";
      else rest += " " + quoted;
    }
    full += ")";
    std::string spec = "((specialize* f " + statics + "))" + rest + ")";
    Outcome a = run(env, full);
    Outcome b = run(env, spec);
    if (a.limit || b.limit) return 0;
    if (a.text != b.text) quasi_fuzz::fail(full + " => " + a.text + "\n" + spec + " => " + b.text, code);
  } catch (quasi::Error&) {
  } catch (quasi::Exit&) {
  }
  return 0;
}
