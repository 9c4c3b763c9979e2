// OptimizerSet::clip_gradients: the global gradient norm against an fp64 (long double) sum of every gradient's
// squares written here, bit for bit the same on 1 and 2 threads (fixed chunks of lane sums, not an OpenMP
// reduction), and the clipping it applies (every gradient scaled by max_norm / norm).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <vector>

#include "autograd/tape.h"
#include "model/gpt.h"
#include "recipe/recipe.h"
#include "support/random_ids.h"
#include "train/optimizers.h"

namespace nanotrn::train {
namespace {

long double exact_sum_of_squares(model::Gpt& gpt) {
  long double s = 0;
  for (model::Parameter& p : gpt.parameters()) {
    if (!p.value.grad().defined()) continue;
    for (const float g : p.value.grad().to_vector()) s += static_cast<long double>(g) * g;
  }
  return s;
}

TEST(GradientNorm, IsTheFp64NormTheSameOnAnyThreadCountAndClipsToMaxNorm) {
  // Vocabulary 4096 x width 32: the embedding's and head's gradients span several 64K-element chunks.
  recipe::Recipe r =
      recipe::default_recipe_with({"model.vocab_size=4096", "model.depth=1", "model.model_dim=32", "model.head_dim=16",
                                   "model.n_kv_head=1", "model.ve_gate_channels=8", "train.budget=0", "train.steps=1"});
  r.model = model::resolve(r.model);
  Engine engine;
  Tape tape;
  Ctx ctx{engine, &tape};
  model::Gpt gpt(ctx, r.model, 11);
  tape.backward(gpt.loss(ctx, testing_support::random_ids(2, 32, 4096, 3, 1),
                         testing_support::random_ids(2, 32, 4096, 3, 2), r.train.mtp_weights));
  OptimizerSet optim(engine.gemm(), gpt, r.optim);
  const long double exact = std::sqrt(exact_sum_of_squares(gpt));
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const double one = optim.clip_gradients(0.0f);
  omp_set_num_threads(2);
  const double two = optim.clip_gradients(0.0f);
  omp_set_num_threads(threads);
  EXPECT_EQ(one, two);
  EXPECT_NEAR(one, static_cast<double>(exact), 1e-12 * static_cast<double>(exact));
  // Clipping to half the norm halves every gradient, so the norm after is max_norm.
  const auto max_norm = static_cast<float>(one / 2);
  EXPECT_EQ(optim.clip_gradients(max_norm), one);
  EXPECT_NEAR(static_cast<double>(std::sqrt(exact_sum_of_squares(gpt))), max_norm, 1e-6 * max_norm);
}

}  // namespace
}  // namespace nanotrn::train
