// expand_fuzz.cpp — the expander and the optimizer on arbitrary source (Engine::dump_ir).
//
// dump_ir expands every top-level form of the input (macro definitions included) and, when that
// worked, runs the whole default pass pipeline over it; nothing of the input runs. Any outcome but
// a crash, a sanitizer report or a hang (libFuzzer's -timeout) is allowed.
#include <quasi/quasi.hpp>

#include "common.hpp"

namespace {
quasi::Engine& engine() {
  static quasi::Engine* e = new quasi::Engine(quasi::Engine::Options::sandboxed());
  return *e;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view code(reinterpret_cast<const char*>(data), size);
  quasi::Engine& e = engine();
  try {
    e.dump_ir(code, "expand");
    e.dump_ir(code, "all");
  } catch (quasi::Error&) {
  } catch (quasi::Exit&) {
  }
  return 0;
}
