// support.hpp — helpers shared by the embedding API tests (public header only).
#pragma once

#include <quasi/quasi.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <string_view>

namespace api_test {

// The message of the error that evaluating `code` raises, or "(no error)".
inline std::string error_of(quasi::Engine& engine, std::string_view code) {
  try {
    engine.eval(code);
  } catch (const quasi::Error& e) {
    return e.message();
  }
  return "(no error)";
}

// The error that evaluating `code` raises; the test fails when there is none.
inline quasi::Error caught(quasi::Engine& engine, std::string_view code, std::string_view source = "<string>") {
  try {
    engine.eval(code, source);
  } catch (const quasi::Error& e) {
    return e;
  }
  FAIL("no error from " << code);
  throw;  // not reached
}

}  // namespace api_test
