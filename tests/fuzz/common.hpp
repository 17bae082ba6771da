// common.hpp — what every fuzz target shares: sanitizer defaults (common.cpp), a deterministic
// choice from the input's bytes, and the abort that reports a broken invariant to libFuzzer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace quasi_fuzz {

// FNV-1a of the input: choices (JIT mode, static positions) that depend only on the bytes, so a
// crash reproduces from the input file alone.
inline uint64_t hash(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// A broken invariant (not a crash): printed, then abort() so libFuzzer saves the input.
[[noreturn]] void fail(const std::string& what, std::string_view input);

}  // namespace quasi_fuzz
