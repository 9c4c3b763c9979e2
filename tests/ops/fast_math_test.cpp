// The vectorisable exp and tanh against libm over their whole useful range (every 97th float bit pattern in
// [-87, 88] for exp, and [-20, 20] for tanh, plus the special values the kernels rely on).
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "ops/fast_math.h"

namespace nanotrn {
namespace {

// Every `step`-th finite float between lo and hi (both signs handled by walking bit patterns of |x|).
template <typename F>
void for_floats(float lo, float hi, uint32_t step, F&& f) {
  for (float sign : {-1.0f, 1.0f}) {
    for (uint32_t b = 0; b < 0x7F800000u; b += step) {
      const float x = sign * std::bit_cast<float>(b);
      if (x >= lo && x <= hi) f(x);
    }
  }
}

TEST(FastMath, ExpWithinTwoUlpOfLibm) {
  double worst = 0.0;
  for_floats(-87.0f, 88.0f, 97, [&](float x) {
    const double want = std::exp(static_cast<double>(x));
    const double got = fast_exp(x);
    const double ulp = std::ldexp(1.0, std::ilogb(want) - 23);
    worst = std::max(worst, std::fabs(got - want) / ulp);
  });
  EXPECT_LT(worst, 2.0);
  EXPECT_EQ(fast_exp(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(fast_exp(-100.0f), 0.0f);
  EXPECT_EQ(fast_exp(0.0f), 1.0f);
}

TEST(FastMath, TanhAbsoluteErrorBelow2e7) {
  double worst = 0.0;
  for_floats(-20.0f, 20.0f, 97, [&](float x) {
    worst = std::max(worst, std::fabs(static_cast<double>(fast_tanh(x)) - std::tanh(static_cast<double>(x))));
  });
  EXPECT_LT(worst, 2e-7);
  EXPECT_EQ(fast_tanh(0.0f), 0.0f);
  EXPECT_EQ(fast_tanh(50.0f), 1.0f);
  EXPECT_EQ(fast_tanh(-50.0f), -1.0f);
}

}  // namespace
}  // namespace nanotrn
