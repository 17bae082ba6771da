// gc_pacing_test.cpp — the collector-pacing policy (lib/core/gc_pacing.hpp) driven with made-up
// CPU times: it moves one step at a time, stays in range, and ignores a single outlier; the
// window widens only while the heap in use is small next to it.
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

namespace {
constexpr size_t kMiB = size_t(1) << 20;
}

TEST_CASE("pacing: expensive collections of a small heap double the window up to its ceiling", "[gc]") {
  GcPacing p;
  REQUIRE(p.window == quasi::kMinWindowBytes);
  size_t last = p.window;
  for (int i = 0; i < 50; i++) {
    p.after_collection(0.6, 1.0, 1 * kMiB);  // the prelude's data and little else
    REQUIRE((p.window == last || p.window == 2 * last || p.window == quasi::kMaxWindowBytes));
    last = p.window;
  }
  REQUIRE(p.window == quasi::kMaxWindowBytes);
}

TEST_CASE("pacing: a large heap in use leaves the window alone however dear the collections", "[gc]") {
  GcPacing p;
  for (int i = 0; i < 50; i++) p.after_collection(0.6, 1.0, 17 * kMiB);  // gcbig's live tree and list
  REQUIRE(p.window == quasi::kMinWindowBytes);
  REQUIRE(p.divisor == quasi::kMinFreeSpaceDivisor);
  // Half the window in use is already too much: the live heap then sets the cycle's length.
  GcPacing q;
  for (int i = 0; i < 50; i++) q.after_collection(0.6, 1.0, quasi::kMinWindowBytes / 2);
  REQUIRE(q.window == quasi::kMinWindowBytes);
}

TEST_CASE("pacing: cheap collections halve the window back to its floor, never below", "[gc]") {
  GcPacing p;
  for (int i = 0; i < 20; i++) p.after_collection(0.9, 1.0, 1 * kMiB);
  REQUIRE(p.window == quasi::kMaxWindowBytes);
  for (int i = 0; i < 50; i++) p.after_collection(0.01, 1.0, 1 * kMiB);
  REQUIRE(p.window == quasi::kMinWindowBytes);
}

TEST_CASE("pacing: a heap in use grown past half the window brings it back to its floor", "[gc]") {
  GcPacing p;
  for (int i = 0; i < 20; i++) p.after_collection(0.9, 1.0, 1 * kMiB);
  REQUIRE(p.window == quasi::kMaxWindowBytes);
  // Still expensive, but now the live heap is large (a program that read its data first).
  size_t last = p.window;
  for (int i = 0; i < 50; i++) {
    p.after_collection(0.9, 1.0, 36 * kMiB);
    REQUIRE((p.window == last || 2 * p.window == last || p.window == quasi::kMinWindowBytes));
    last = p.window;
  }
  REQUIRE(p.window == quasi::kMinWindowBytes);
}

TEST_CASE("pacing: a middling share leaves the window alone", "[gc]") {
  GcPacing p;
  for (int i = 0; i < 50; i++) p.after_collection(0.2, 1.0, 1 * kMiB);
  REQUIRE(p.window == quasi::kMinWindowBytes);
}
