#include "vm/jit_policy.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace quasi {

namespace {
JitMode mode_from_environment() {
  const char* env = std::getenv("QUASI_JIT");
  JitMode m = JitMode::kOn;
  if (env && *env) parse_jit_mode(env, &m);
  return m;
}
std::atomic<JitMode>& default_mode() {
  static std::atomic<JitMode> m{mode_from_environment()};
  return m;
}
std::atomic<bool>& log_flag() {
  static std::atomic<bool> on{[] {
    const char* env = std::getenv("QUASI_JIT_LOG");
    return env && *env && std::strcmp(env, "0") != 0;
  }()};
  return on;
}

}  // namespace

JitMode jit_default_mode() { return default_mode().load(); }
void set_jit_default_mode(JitMode mode) { default_mode().store(mode); }
bool jit_log_enabled() { return log_flag().load(); }
void set_jit_log(bool on) { log_flag().store(on); }

const char* jit_mode_name(JitMode mode) {
  switch (mode) {
    case JitMode::kOff: return "off";
    case JitMode::kForce: return "force";
    default: return "on";
  }
}

bool parse_jit_mode(const std::string& name, JitMode* out) {
  if (name == "off" || name == "0") *out = JitMode::kOff;
  else if (name == "on" || name == "1") *out = JitMode::kOn;
  else if (name == "force") *out = JitMode::kForce;
  else return false;
  return true;
}

}  // namespace quasi
