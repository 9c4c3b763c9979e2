// AdamW against the update rule evaluated in fp64 by hand-written scalar code, over several steps.
#include <gtest/gtest.h>

#include <cmath>

#include "optim/adamw.h"

namespace nanotrn {
namespace {

TEST(AdamW, MatchesFp64UpdateRuleOverSteps) {
  Tensor p = Tensor::from_vector({3}, {0.5f, -1.0f, 2.0f});
  p.set_requires_grad();
  AdamWOptions o{0.01f, 0.8f, 0.95f, 1e-8f, 0.1f};
  AdamW opt({&p}, o);
  double ref_p[3] = {0.5, -1.0, 2.0}, m[3] = {0, 0, 0}, v[3] = {0, 0, 0};
  for (int t = 1; t <= 5; t++) {
    std::vector<float> g = {0.3f * t, -0.2f, t % 2 ? 1.0f : -1.0f};
    if (t == 3) {
      p.zero_grad();  // no gradient this step: treated as zero
      g = {0, 0, 0};
    } else {
      p.autograd()->grad = Tensor::from_vector({3}, g);
    }
    opt.step();
    for (int i = 0; i < 3; i++) {
      ref_p[i] -= 0.01 * 0.1 * ref_p[i];
      m[i] = 0.8 * m[i] + 0.2 * g[i];
      v[i] = 0.95 * v[i] + 0.05 * g[i] * g[i];
      const double mh = m[i] / (1 - std::pow(0.8, t)), vh = v[i] / (1 - std::pow(0.95, t));
      ref_p[i] -= 0.01 * mh / (std::sqrt(vh) + 1e-8);
    }
    const std::vector<float> got = p.to_vector();
    for (int i = 0; i < 3; i++) EXPECT_NEAR(got[i], ref_p[i], 1e-6) << "step " << t << " element " << i;
  }
  EXPECT_EQ(opt.steps_taken(), 5);
}

}  // namespace
}  // namespace nanotrn
