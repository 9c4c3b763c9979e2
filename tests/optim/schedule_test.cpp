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

TEST(Schedule, SteppedCooldownLevels) {
  const LrSchedule s{0, 0.6, 0.05, 19};  // 19 levels of 1/20, floor 0.05
  EXPECT_DOUBLE_EQ(lr_multiplier(s, 10, 0.3), 1.0);
  for (double p = 0.4; p <= 1.0; p += 0.0137) {
    const double v = lr_multiplier(s, 10, p);
    EXPECT_NEAR(v * 20.0, std::round(v * 20.0), 1e-9) << p;  // a multiple of 1/20
    EXPECT_GE(v, 0.05);
    EXPECT_GE(v + 1e-12, 0.05 + 0.95 * (1.0 - p) / 0.6);  // rounded up from the linear value
  }
  EXPECT_DOUBLE_EQ(lr_multiplier(s, 10, 1.0), 0.05);
}

TEST(Schedule, RejectsBadFractions) {
  EXPECT_THROW(lr_multiplier({0, 1.5, 0.0, 0}, 0, 0.5), Error);
  EXPECT_THROW(lr_multiplier({0, 0.5, -0.1, 0}, 0, 0.5), Error);
}

}  // namespace
}  // namespace nanotrn
