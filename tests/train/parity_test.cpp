// Parity with PyTorch, for the baseline GPT and its Llama-family variants (model/gpt.h):
// tests/python/gpt_parity.py is an independent PyTorch implementation of the same GPT and of
// one Muon + AdamW step (Debian's python3-torch, CPU, fp32). From the same initial weights (exported here as
// safetensors) both compute the step-0 loss and every gradient (relative error < 1e-4), then take 10 optimiser
// steps on the same 10 batches (loss after the last step: relative error < 1e-3; every weight within 3% of the
// distance its parameter moved). The test fails, never skips, when /usr/bin/python3 or torch is missing.
#include <cmath>

#include <gtest/gtest.h>

#include "autograd/tape.h"
#include "io/safetensors.h"
#include "model/gpt.h"
#include "recipe/recipe.h"
#include "support/gpt_peer.h"
#include "train/optimizers.h"
#include "train/parity_weights.h"

namespace nanotrn::train {
namespace {

constexpr int kSteps = 10;

// Every block feature of the baseline on: GQA, value embeddings with gates (layers 0 and 2 of 3), LeakyReLU^2, QK gain,
// rotary base 1e5, MTP; non-zero output projections and lm_head so that every gradient is non-trivial at step 0.
const std::vector<std::string> kBaseline = {"model.vocab_size=96",
                                            "model.depth=3",
                                            "model.model_dim=64",
                                            "model.head_dim=16",
                                            "model.n_kv_head=2",
                                            "model.ve_gate_channels=8",
                                            "model.activation=leaky_relu2",
                                            "model.leaky_slope=0.35",
                                            "model.qk_gain=1.44",
                                            "model.rotary_base=100000",
                                            "model.init.attn_proj=0.5",
                                            "model.init.mlp_proj=0.5",
                                            "model.init.lm_head_std=0.3",
                                            "model.init.ve_gate=0.5",
                                            "train.mtp_weights=[1,0.5]",
                                            "train.budget=0",
                                            "train.steps=10",
                                            "optim.momentum_warmup_steps=5",
                                            "optim.matrix_lr=0.02"};

// The Llama family as Hugging Face configs bring it (Qwen3's block: norm gains, QK-norm with gains before rotary,
// SwiGLU, tied head, no softcap or value embeddings) with gpt-oss's alternating sliding window and attention biases
// on q, k, v and the output projection (Llama's attention_bias), and Llama 3.1's rope scaling (its frequencies
// kept, blended and divided at this small original context).
std::vector<std::string> llama_variant() {
  std::vector<std::string> o = kBaseline;
  o.insert(o.end(),
           {"model.activation=swiglu", "model.mlp_hidden=96", "model.norm_weights=true", "model.tie_embeddings=true",
            "model.init.wte_std=0.3", "model.softcap=0", "model.value_embeds=none", "model.window=5",
            "model.window_pattern=SL", "model.qk_gain=1", "model.attention_bias=qkvo", "model.rope_scaling.kind=llama3",
            "model.rope_scaling.factor=8", "model.rope_scaling.original_max_positions=64", "optim.norm_gain_lr=0.01",
            "optim.bias_lr=0.01", "optim.embedding_lr=0.02"});  // the head's rate, not the table's
  return o;
}

// Mixtral's block: the Llama block with 4 SwiGLU experts per layer, top-2 routing and the load-balancing loss (at 0.1,
// so its gradient shows in the router's).
std::vector<std::string> moe_variant() {
  std::vector<std::string> o = kBaseline;
  o.insert(o.end(), {"model.activation=swiglu", "model.mlp_hidden=48", "model.norm_weights=true", "model.experts=4",
                     "model.experts_per_token=2", "model.moe_aux_loss=0.1", "model.softcap=0",
                     "model.value_embeds=none", "model.qk_norm=false", "optim.norm_gain_lr=0.01"});
  return o;
}

// GPT-2's MLP (GELU, tanh form) in the Llama block without QK-norm, untied, softcapped, with Qwen2's q/k/v biases.
std::vector<std::string> gelu_variant() {
  std::vector<std::string> o = kBaseline;
  o.insert(o.end(),
           {"model.activation=gelu", "model.norm_weights=true", "model.qk_norm=false", "model.value_embeds=none",
            "model.attention_bias=qkv", "optim.norm_gain_lr=0.01", "optim.bias_lr=0.02"});
  return o;
}

// GPT-2's block: LayerNorm with gains and biases, learned positions in place of rotary, biases on q, k, v, the output
// projection and the MLP, GELU, a tied head; with QK-norm, which GPT-2 has not: without it (and without rotary) the
// key bias adds q.b_k to every score of a query, which the softmax cancels, so its exact gradient is 0 and both sides'
// are rounding noise that AdamW turns into steps of about lr either way (measured: relative gradient error 1.6).
std::vector<std::string> gpt2_variant() {
  std::vector<std::string> o = kBaseline;
  o.insert(o.end(),
           {"model.activation=gelu", "model.norm_weights=true", "model.norm=layer", "model.qk_norm=true",
            "model.learned_positions=24", "model.attention_bias=qkvo", "model.mlp_bias=true",
            "model.tie_embeddings=true", "model.init.wte_std=0.3", "model.softcap=0", "model.value_embeds=none",
            "optim.norm_gain_lr=0.01", "optim.bias_lr=0.02", "optim.embedding_lr=0.02"});
  return o;
}

// gpt-oss's block: the mixture of experts with biases on every expert, the clamped SwiGLU (a limit of 1, so the
// clamps bind on some elements of this small model), attention sinks and q/k/v/o biases, alternating windows, YaRN.
std::vector<std::string> gpt_oss_variant() {
  std::vector<std::string> o = moe_variant();
  o.insert(o.end(),
           {"model.swiglu_limit=1", "model.attention_sinks=true", "model.attention_bias=qkvo", "model.mlp_bias=true",
            "model.window=5", "model.window_pattern=SL", "model.rope_scaling.kind=yarn", "model.rope_scaling.factor=4",
            "model.rope_scaling.original_max_positions=32", "model.rope_scaling.truncate=false", "optim.bias_lr=0.02"});
  return o;
}

// The gated GELU MLP (T5 v1.1's, Gemma's) in the Llama block.
std::vector<std::string> geglu_variant() {
  std::vector<std::string> o = kBaseline;
  o.insert(o.end(), {"model.activation=geglu", "model.mlp_hidden=96", "model.norm_weights=true", "model.qk_norm=false",
                     "model.value_embeds=none", "optim.norm_gain_lr=0.01"});
  return o;
}

double max_rel_error(const std::vector<float>& got, const std::vector<float>& want) {
  double err = 0.0, scale = 0.0;
  for (size_t i = 0; i < want.size(); i++) {
    err = std::max(err, std::fabs(static_cast<double>(got[i]) - want[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  }
  return scale > 0 ? err / scale : err;
}

void expect_parity_with_pytorch(const std::vector<std::string>& overrides, const std::string& name,
                                uint64_t seed = 2024) {
  recipe::Recipe recipe = recipe::default_recipe_with(overrides);
  recipe.model = model::resolve(recipe.model);
  Engine engine;
  Tape tape;
  Ctx ctx{engine, &tape};
  model::Gpt gpt(ctx, recipe.model, seed);
  const int64_t B = 3, T = 16, V = recipe.model.vocab_size;
  const testing_support::PeerBatch batch = testing_support::random_batch(5, static_cast<size_t>(kSteps * B * T), V);
  const std::vector<int32_t>&ids = batch.ids, &targets = batch.targets;
  const SafetensorsFile ref = testing_support::run_gpt_peer(gpt, recipe, batch, {kSteps, B, T},
                                                            ::testing::TempDir() + "/nanotrn_parity_" + name);
  const std::vector<float> ref_loss = ref.find("loss")->to_vector();
  ASSERT_EQ(ref_loss.size(), static_cast<size_t>(kSteps + 1));

  const std::vector<std::vector<float>> initial = testing::weights_of(gpt);
  OptimizerSet optim(engine.gemm(), gpt, recipe.optim);
  std::vector<double> losses;
  for (int step = 0; step < kSteps; step++) {
    const Tensor x = Tensor::from_ints({B, T}, {ids.begin() + step * B * T, ids.begin() + (step + 1) * B * T});
    const Tensor y = Tensor::from_ints({B, T}, {targets.begin() + step * B * T, targets.begin() + (step + 1) * B * T});
    const Tensor loss = gpt.loss(ctx, x, y, recipe.train.mtp_weights);
    losses.push_back(loss.item());
    tape.backward(loss);
    if (step == 0) {
      EXPECT_NEAR(losses[0], ref_loss[0], 1e-4 * std::fabs(ref_loss[0]));
      for (const model::Parameter& p : gpt.parameters()) {
        const Tensor* g = ref.find("grad." + p.name);
        ASSERT_NE(g, nullptr) << p.name;
        const double e = max_rel_error(p.value.grad().to_vector(), g->to_vector());
        EXPECT_LT(e, 1e-4) << "gradient of " << p.name;
      }
    }
    optim.schedule(step, 1.0, static_cast<double>(step) / kSteps);
    optim.step();
    optim.zero_grad();
  }
  {
    NoGradGuard no_grad(ctx);
    const Tensor x = Tensor::from_ints({B, T}, {ids.end() - B * T, ids.end()});
    const Tensor y = Tensor::from_ints({B, T}, {targets.end() - B * T, targets.end()});
    losses.push_back(gpt.loss(ctx, x, y, recipe.train.mtp_weights).item());
  }
  for (int s = 0; s <= kSteps; s++) {
    EXPECT_NEAR(losses[s], ref_loss[s], 1e-3 * std::fabs(ref_loss[s])) << "loss before step " << s;
  }
  EXPECT_LT(losses[kSteps], losses[0]);  // the 10 steps did learn something (same batches are not repeated)

  // The weights after the 10 steps, every parameter (parity_weights.h: the tolerance and why).
  testing::expect_weights_match(gpt, initial, ref);
}

TEST(PyTorchParity, LossGradientsAndTenMuonAdamWSteps) { expect_parity_with_pytorch(kBaseline, "baseline"); }

TEST(PyTorchParity, LlamaBlockSwigluTiedHeadAndAlternatingWindows) {
  expect_parity_with_pytorch(llama_variant(), "llama");
}

TEST(PyTorchParity, GeluMlpInTheLlamaBlock) { expect_parity_with_pytorch(gelu_variant(), "gelu"); }

// Seed 1, as the mixture of experts above (routing ties).
TEST(PyTorchParity, GptOssBlockSinksClampedSwigluAndExpertBiases) {
  expect_parity_with_pytorch(gpt_oss_variant(), "gpt_oss", /*seed=*/1);
}

TEST(PyTorchParity, GegluMlpInTheLlamaBlock) { expect_parity_with_pytorch(geglu_variant(), "geglu"); }

TEST(PyTorchParity, Gpt2BlockLayerNormLearnedPositionsAndBiases) { expect_parity_with_pytorch(gpt2_variant(), "gpt2"); }

// Routing is discontinuous: where two experts' probabilities tie to within the rounding of the two implementations,
// the top 2 can differ and the runs part (a step later, by far more than any tolerance). At weight seed 2024 one
// such tie falls at step 8 (nanotrn's loss moved 2.6e-4 there after agreeing to 6e-7); at seeds 1-8 both agree to
// 8e-6 or better over every step. The test takes seed 1: it still fails on any routing, gather or weighting error.
TEST(PyTorchParity, MixtureOfExpertsTopTwoWithTheLoadBalancingLoss) {
  expect_parity_with_pytorch(moe_variant(), "moe", /*seed=*/1);
}

}  // namespace
}  // namespace nanotrn::train
