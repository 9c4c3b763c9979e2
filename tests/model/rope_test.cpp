// The rotary frequencies of model/rope.h against their definitions (Hugging Face's modeling_rope_utils), worked by
// hand on small cases; tests/train/parity_test.cpp checks both scalings again against PyTorch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "model/rope.h"

namespace nanotrn::model {
namespace {

GptConfig with(RopeScalingKind kind) {
  GptConfig c;
  c.rotary_base = 10000.0;
  c.rope_scaling.kind = kind;
  c.rope_scaling.factor = 8.0;
  c.rope_scaling.original_max_positions = 64;
  return c;
}

// R = 8, base 1e4: frequencies 1, 0.1, 0.01, 0.001, wavelengths 6.28, 62.8, 628, 6283. At L = 64 (low 1, high 4):
// 6.28 < 16 is kept, 628 and 6283 > 64 are divided by 8, and 62.8 lies between: s = (64 / 62.83 - 1) / 3.
TEST(Rope, Llama3KeepsHighDividesLowAndBlendsBetween) {
  const RotaryFrequencies f = rotary_frequencies(with(RopeScalingKind::llama3), 8);
  ASSERT_EQ(f.inv_freq.size(), 4u);
  EXPECT_DOUBLE_EQ(f.inv_freq[0], 1.0);
  const double s = (64.0 / (2 * std::numbers::pi / 0.1) - 1.0) / 3.0;
  EXPECT_NEAR(f.inv_freq[1], (1 - s) * 0.1 / 8 + s * 0.1, 1e-15);
  EXPECT_NEAR(f.inv_freq[2], 0.01 / 8, 1e-18);
  EXPECT_NEAR(f.inv_freq[3], 0.001 / 8, 1e-19);
  EXPECT_EQ(f.magnitude, 1.0);
  EXPECT_EQ(rotary_frequencies(with(RopeScalingKind::none), 8).inv_freq[1], std::pow(10000.0, -0.25));
}

// YaRN at R = 8, L = 64, factor 8: d(r) = 8 ln(64 / (2 pi r)) / (2 ln 1e4); d(32) = -0.50 -> 0, d(1) = 1.008 -> 2
// when truncated. Pair 0 extrapolates (kept), pair 1 blends half and half, pairs 2 and 3 interpolate (/ 8);
// magnitude 0.1 ln 8 + 1.
TEST(Rope, YarnRampsFromExtrapolationToInterpolation) {
  GptConfig c = with(RopeScalingKind::yarn);
  const RotaryFrequencies f = rotary_frequencies(c, 8);
  const double base[] = {1.0, 0.1, 0.01, 0.001};
  for (int j = 0; j < 4; ++j) {
    const double keep = 1.0 - std::min(1.0, j / 2.0);
    EXPECT_NEAR(f.inv_freq[static_cast<size_t>(j)], base[j] / 8 * (1 - keep) + base[j] * keep, 1e-15) << j;
  }
  EXPECT_NEAR(f.magnitude, 0.1 * std::log(8.0) + 1.0, 1e-15);
  c.rope_scaling.attention_factor = 1.25;
  EXPECT_EQ(rotary_frequencies(c, 8).magnitude, 1.25);
}

}  // namespace
}  // namespace nanotrn::model
