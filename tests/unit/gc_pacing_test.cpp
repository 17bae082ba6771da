// gc_pacing_test.cpp — the collector-pacing policy (lib/core/gc_pacing.hpp) driven with made-up
// CPU times: it moves one step at a time, stays in range, and ignores a single outlier.
#include <catch2/catch.hpp>

#include "core/gc_pacing.hpp"

using quasi::GcPacing;

TEST_CASE("pacing: expensive collections lower the divisor to its floor, never below", "[gc]") {
  GcPacing p;
  REQUIRE(p.divisor == quasi::kMaxFreeSpaceDivisor);
  uint64_t last = p.divisor;
  for (int i = 0; i < 50; i++) {
    uint64_t d = p.after_collection(0.6, 1.0);  // 60 % of the time collecting
    REQUIRE(d <= last);
    REQUIRE(last - d <= 1);
    last = d;
  }
  REQUIRE(last == quasi::kMinFreeSpaceDivisor);
}

TEST_CASE("pacing: cheap collections raise it back to its ceiling, never above", "[gc]") {
  GcPacing p;
  for (int i = 0; i < 20; i++) p.after_collection(0.9, 1.0);
  REQUIRE(p.divisor == quasi::kMinFreeSpaceDivisor);
  for (int i = 0; i < 50; i++) p.after_collection(0.01, 1.0);
  REQUIRE(p.divisor == quasi::kMaxFreeSpaceDivisor);
}

TEST_CASE("pacing: a middling share leaves the divisor alone", "[gc]") {
  GcPacing p;
  for (int i = 0; i < 50; i++) p.after_collection(0.2, 1.0);
  REQUIRE(p.divisor == quasi::kMaxFreeSpaceDivisor);
}

TEST_CASE("pacing: one expensive collection after cheap ones does not move it", "[gc]") {
  GcPacing p;
  for (int i = 0; i < 10; i++) p.after_collection(0.02, 1.0);
  REQUIRE(p.after_collection(0.6, 1.0) == quasi::kMaxFreeSpaceDivisor);
}

TEST_CASE("pacing: an empty cycle changes nothing", "[gc]") {
  GcPacing p;
  REQUIRE(p.after_collection(0.5, 0.0) == quasi::kMaxFreeSpaceDivisor);
  REQUIRE(p.share == 0.0);
}
