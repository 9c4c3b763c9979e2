// Schedules against the checkpoints of recipe-spec §9.5.
#include <gtest/gtest.h>

#include <cmath>

#include "base/error.h"
#include "optim/schedule.h"

namespace nanotrn {
namespace {

TEST(Schedule, AutoresearchCheckpoints) {
  const LrSchedule s{0, 0.5, 0.0, 0};
  EXPECT_DOUBLE_EQ(lr_multiplier(s, 100, 0.25), 1.0);
  EXPECT_NEAR(lr_multiplier(s, 100, 0.75), 0.5, 1e-12);
  EXPECT_NEAR(lr_multiplier(s, 100, 0.9), 0.2, 1e-12);
  EXPECT_NEAR(lr_multiplier(s, 100, 1.0), 0.0, 1e-12);
  // Muon momentum 0.85 -> 0.95 over 300 steps; weight decay 0.2 * (1 - p).
  EXPECT_DOUBLE_EQ(linear_ramp(0.85, 0.95, 0, 300), 0.85);
  EXPECT_NEAR(linear_ramp(0.85, 0.95, 150, 300), 0.90, 1e-12);
  EXPECT_DOUBLE_EQ(linear_ramp(0.85, 0.95, 300, 300), 0.95);
  EXPECT_DOUBLE_EQ(linear_ramp(0.85, 0.95, 5000, 300), 0.95);
  EXPECT_NEAR(linear_ramp(0.2, 0.0, 50, 100), 0.1, 1e-12);  // WD at p = 0.5
}

TEST(Schedule, NanochatWarmupAndLastIteration) {
  const int64_t N = 1000;
  const LrSchedule s{40, 0.65, 0.05, 0};
  EXPECT_DOUBLE_EQ(lr_multiplier(s, 0, 0.0), 1.0 / 40.0);  // 0.025
  EXPECT_DOUBLE_EQ(lr_multiplier(s, 39, 0.039), 1.0);
  const double last = lr_multiplier(s, N - 1, static_cast<double>(N - 1) / N);
  EXPECT_NEAR(last, 0.05 + 0.95 * (1.0 / (0.65 * N)), 1e-12);  // 0.05 + 0.95 / warmdown_iters
}

// FrontierForge's 19-level cool-down: L = 19 levels of 1/20 over the last 60 %, floor 0.05. The linear value
// f + (1 - f)(1 - p) / c equals k/20 at p_k = 1 - c (k/20 - f) / (1 - f) (the definition solved for p, here in the
// test), so the stepped value is exactly k/20 on [p_k, p_{k-1}): checked at the start, the middle and the end of
// every step, before the cool-down (1) and at p = 1 (the floor).
TEST(Schedule, SteppedCooldownLevels) {
  const double c = 0.6, f = 0.05;
  const LrSchedule s{0, c, f, 19};
  auto p_at = [&](int k) { return 1.0 - c * (k / 20.0 - f) / (1.0 - f); };
  EXPECT_NEAR(p_at(20), 0.4, 1e-15);  // the first step starts with the cool-down
  for (double p : {0.0, 0.2, 0.3999}) EXPECT_EQ(lr_multiplier(s, 10, p), 1.0) << p;
  const double eps = 1e-9;
  for (int k = 20; k >= 2; --k) {
    const double lo = p_at(k), hi = p_at(k - 1);
    for (double p : {lo + eps, 0.5 * (lo + hi), hi - eps})
      EXPECT_NEAR(lr_multiplier(s, 10, p), k / 20.0, 1e-12) << "level " << k << " at p " << p;
  }
  EXPECT_NEAR(lr_multiplier(s, 10, 1.0), f, 1e-12);
}

TEST(Schedule, RejectsBadFractions) {
  EXPECT_THROW(lr_multiplier({0, 1.5, 0.0, 0}, 0, 0.5), Error);
  EXPECT_THROW(lr_multiplier({0, 0.5, -0.1, 0}, 0, 0.5), Error);
}

}  // namespace
}  // namespace nanotrn
