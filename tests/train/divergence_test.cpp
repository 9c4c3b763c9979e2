// The rule that tells dead finite weights (train/divergence.h), on its boundaries: ln V is the loss of guessing
// uniformly over V tokens; a run that had reached 1 nat below it and is back at it has diverged.
#include "train/divergence.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace nanotrn::train {
namespace {

TEST(Divergence, BackAtUniformGuessingAfterLearning) {
  const double u = std::log(256.0);  // 5.545
  EXPECT_TRUE(diverged_to_uniform(u - 1.0, u, 256));
  EXPECT_TRUE(diverged_to_uniform(2.0, 1e4, 256));
  EXPECT_FALSE(diverged_to_uniform(u - 1.0, u - 1e-9, 256));  // still (just) better than guessing
  EXPECT_FALSE(diverged_to_uniform(u - 0.99, 1e4, 256));      // never learned a whole nat: not judged
  EXPECT_FALSE(diverged_to_uniform(std::numeric_limits<double>::infinity(), 1e4, 256));  // the first step
  EXPECT_FALSE(diverged_to_uniform(2.0, 3.0, 256));                                      // a spike that stays below
  EXPECT_FALSE(diverged_to_uniform(-5.0, 100.0, 1));                                     // no vocabulary to guess over
}

}  // namespace
}  // namespace nanotrn::train
