// bf16 parity with PyTorch: nanotrn's bf16 matmul mode (operands rounded to bf16, fp32 accumulation and output,
// fp32 everywhere else) against tests/python/gpt_parity.py under torch.autocast(cpu, bfloat16), from the same fp32
// weights: the step-0 loss and every gradient. The model is tiny (one layer, width 32) because PyTorch's bf16
// matmuls are slow on AVX2 hosts. Fails, never skips, when /usr/bin/python3 or torch is missing.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "autograd/tape.h"
#include "io/safetensors.h"
#include "model/gpt.h"
#include "recipe/recipe.h"
#include "support/gpt_peer.h"

namespace nanotrn::train {
namespace {

// The tolerances, from bf16's unit roundoff u = 2^-8 (relative error of one rounding, bound taken conservatively).
// Along the longest forward path (q/k/v, attention output, MLP in, MLP out, lm_head: 5 matmuls in series; attention
// and the norms stay fp32 on both sides) nanotrn rounds 2 operands per matmul and autocast rounds 2 operands and
// the bf16 output: 25 roundings between the two results. Independent rounding errors add in quadrature, so each
// logit differs by about sqrt(25) u = 5 u ~ 2% relative; the loss, a mean over B * T = 32 positions of
// cross-entropies that move by at most their logits' change, by about 5 u / sqrt(32) ~ 0.35%. The backward pass
// runs the chain again (another 25 roundings): sqrt(50) u ~ 2.8% of a gradient's largest entry. Tolerances: 2x those
// estimates (measured: loss 0.01%, gradients 1-3.1%), far below the error of a wrong formula (order 1).
constexpr int64_t kB = 2, kT = 16;  // the batch
constexpr double kU = 1.0 / 256.0;
const double kLossTolerance = 2 * 5 * kU / std::sqrt(static_cast<double>(kB * kT));
constexpr double kGradTolerance = 14 * kU;

// max |got - want| / max |want|.
double max_rel_error(const std::vector<float>& got, const std::vector<float>& want) {
  double err = 0.0, scale = 0.0;
  for (size_t i = 0; i < want.size(); i++) {
    err = std::max(err, std::fabs(static_cast<double>(got[i]) - want[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  }
  return scale > 0 ? err / scale : err;
}

TEST(PyTorchParity, Bf16LossAndGradientsWithinBf16Rounding) {
  recipe::Recipe recipe = recipe::default_recipe_with(
      {"model.vocab_size=64", "model.depth=1", "model.model_dim=32", "model.head_dim=16", "model.ve_gate_channels=8",
       "model.init.attn_proj=0.5", "model.init.mlp_proj=0.5", "model.init.lm_head_std=0.3", "train.budget=0",
       "train.steps=1", "optim.momentum_warmup_steps=1"});
  recipe.model = model::resolve(recipe.model);
  Engine engine;
  Tape tape;
  Ctx ctx{engine, &tape, DType::bf16};
  model::Gpt gpt(ctx, recipe.model, 7);
  const int64_t B = kB, T = kT, V = recipe.model.vocab_size;
  const testing_support::PeerBatch batch = testing_support::random_batch(9, static_cast<size_t>(B * T), V);
  const std::vector<int32_t>&ids = batch.ids, &targets = batch.targets;
  const SafetensorsFile ref = testing_support::run_gpt_peer(gpt, recipe, batch, {1, B, T},
                                                            ::testing::TempDir() + "/nanotrn_bf16_parity", "--bf16");
  const double ref_loss = ref.find("loss")->to_vector()[0];

  const Tensor x = Tensor::from_ints({B, T}, ids), y = Tensor::from_ints({B, T}, targets);
  const Tensor loss = gpt.loss(ctx, x, y, recipe.train.mtp_weights);
  const double bf16_loss = loss.item();
  tape.backward(loss);
  EXPECT_NEAR(bf16_loss, ref_loss, kLossTolerance * std::fabs(ref_loss));
  for (const model::Parameter& p : gpt.parameters()) {
    const Tensor* g = ref.find("grad." + p.name);
    ASSERT_NE(g, nullptr) << p.name;
    EXPECT_LT(max_rel_error(p.value.grad().to_vector(), g->to_vector()), kGradTolerance) << "gradient of " << p.name;
  }
  // The bf16 mode is really on: its loss differs from the same model's fp32 loss by more than fp32 rounding.
  Ctx fp32{engine, nullptr};
  const double fp32_loss = gpt.loss(fp32, x, y, recipe.train.mtp_weights).item();
  EXPECT_GT(std::fabs(bf16_loss - fp32_loss), 1e-5 * std::fabs(fp32_loss));
}

}  // namespace
}  // namespace nanotrn::train
