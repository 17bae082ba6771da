// eval_fuzz.cpp — the whole evaluator on arbitrary source: reader, expander, optimizer, VM, JIT,
// builtins. Each input runs in a fresh environment (Engine::new_environment) of one sandboxed
// engine with step, time and memory limits, in a JIT mode chosen from the input's hash (off, on,
// force). Any outcome but a crash, a sanitizer report or a hang is allowed.
//
// The environment imports the R7RS libraries and Quasi's own (quasi specialize), (quasi jit) and
// (quasi pretty-print), not (quasi core): the %-internals are not a user's interface.
#include <quasi/quasi.hpp>

#include <chrono>

#include "common.hpp"

namespace {

quasi::Engine& engine() {
  static quasi::Engine* e = [] {
    quasi::Engine::Options o = quasi::Engine::Options::sandboxed();
    o.step_limit = 2'000'000;
    o.time_limit = std::chrono::milliseconds(1000);
    o.memory_limit = 256u << 20;
    return new quasi::Engine(o);
  }();
  return *e;
}

const char* const kJitModes[] = {"(jit-mode 'off)", "(jit-mode 'on)", "(jit-mode 'force)"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view code(reinterpret_cast<const char*>(data), size);
  quasi::Engine& e = engine();
  try {
    e.eval(kJitModes[quasi_fuzz::hash(code) % 3]);
    quasi::Environment env = e.new_environment(
        {"(scheme base)", "(scheme char)", "(scheme cxr)", "(scheme inexact)", "(scheme complex)",
         "(scheme lazy)", "(scheme case-lambda)", "(scheme write)", "(scheme read)", "(scheme eval)",
         "(quasi specialize)", "(quasi jit)", "(quasi pretty-print)"});
    env.eval(code, "<fuzz>");
  } catch (quasi::Error&) {
  } catch (quasi::Exit&) {
  }
  return 0;
}
