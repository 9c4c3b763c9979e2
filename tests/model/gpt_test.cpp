// The GPT module: parameter shapes against the §2.3 formula, the zero-init properties of recipe-spec §8 (loss ln V
// at step 0, every block the identity so only c_proj, lm_head and the embeddings get gradients), multi-token
// targets, and the KV-cache decode against the full forward; the Llama-family variants' parameters against the same
// formula (their numerics: tests/train/parity_test.cpp against PyTorch).
#include <cmath>
#include <tuple>

#include <gtest/gtest.h>

#include "autograd/tape.h"
#include "base/error.h"
#include "model/gpt.h"
#include "support/random_ids.h"
#include "support/tiny_gpt.h"

namespace nanotrn::model {
namespace {

GptConfig tiny() { return testing_support::tiny_gpt_config(); }

double max_abs(const Tensor& t) {
  double m = 0.0;
  for (float v : t.to_vector()) m = std::max(m, std::fabs(static_cast<double>(v)));
  return m;
}

TEST(Gpt, ParameterTensorsMatchTheCountFormula) {
  Engine engine;
  Ctx ctx{engine};
  const GptConfig c = tiny();
  Gpt gpt(ctx, c, 1);
  const ParamCounts n = count_params(c);
  int64_t total = 0, matrices = 0;
  for (const Parameter& p : gpt.parameters()) {
    total += p.value.numel();
    if (p.group == ParamGroup::matrix) matrices += p.value.numel();
  }
  EXPECT_EQ(total, n.total());
  EXPECT_EQ(matrices, n.block_matrices + n.ve_gates);
  // value embeddings on layers i % 2 == (depth - 1) % 2: layers 0 and 2 of 3
  EXPECT_NO_THROW(gpt.parameter("value_embeds.0"));
  EXPECT_NO_THROW(gpt.parameter("value_embeds.2"));
  EXPECT_THROW(gpt.parameter("value_embeds.1"), Error);
  EXPECT_EQ(gpt.parameter("blocks.1.attn.c_k").value.shape(), (Shape{16, 48}));
}

// The Llama-family variants (gpt.h): Qwen3's block with SwiGLU, a tied head and alternating windows.
GptConfig llama_variant() {
  GptConfig c = tiny();
  c.activation = Activation::swiglu;
  c.mlp_hidden = 40;
  c.norm_weights = true;
  c.tie_embeddings = true;
  c.value_embeds = ValueEmbeds::none;
  c.window = 3;
  c.window_pattern = "SL";
  return resolve(c);
}

TEST(Gpt, TheLlamaVariantsParametersMatchTheCountFormula) {
  Engine engine;
  Ctx ctx{engine};
  for (const bool qk_norm : {true, false}) {
    GptConfig c = llama_variant();
    c.qk_norm = qk_norm;
    c.attention_bias = qk_norm ? AttentionBias::qkvo : AttentionBias::qkv;  // Llama's flag, Qwen2's q/k/v
    Gpt gpt(ctx, c, 1);
    const ParamCounts n = count_params(c);
    int64_t total = 0, gains = 0, biases = 0;
    for (const Parameter& p : gpt.parameters()) {
      total += p.value.numel();
      if (p.group == ParamGroup::norm_gain) gains += p.value.numel();
      if (p.group == ParamGroup::bias) biases += p.value.numel();
    }
    EXPECT_EQ(total, n.total());
    EXPECT_EQ(gains + biases, n.scalars);  // the gains in place of the resid / x0 scalars, and the biases
    const int64_t qkv = (c.n_head + 2 * c.n_kv_head) * c.head_dim;
    EXPECT_EQ(biases, c.depth * (qk_norm ? qkv + c.model_dim : qkv));
    EXPECT_EQ(gpt.parameter("blocks.0.attn.c_q_bias").value.to_vector(),
              std::vector<float>(static_cast<size_t>(c.n_head * c.head_dim), 0.0f));
    EXPECT_EQ(n.lm_head, 0);
    EXPECT_THROW(gpt.parameter("lm_head"), Error);
    EXPECT_THROW(gpt.parameter("resid_lambdas"), Error);
    EXPECT_EQ(gpt.parameter("blocks.0.mlp.c_gate").value.shape(), (Shape{40, 48}));
    EXPECT_EQ(gpt.parameter("norm_f").value.to_vector(), std::vector<float>(48, 1.0f));
  }
}

// A mixture of experts: the router and E expert MLPs per layer, counted as count_params counts them. With E experts
// that hold the same weights, the layer is that MLP whatever the router chooses (each token's k weights sum to 1), so
// the loss is the dense model's plus the load-balancing term: this holds only if every token's rows come back to it
// from the experts they were gathered for (k of 4: routings that differ per token). With 2 experts, both chosen, the
// load-balancing loss is exactly E sum_e f_e P_e = 2 x sum_e P_e = 2 per layer (every token reaches both: f_e = 1).
TEST(Gpt, AMixtureOfExpertsHasItsRouterAndExpertsAndOneExpertIsTheDenseMlp) {
  Engine engine;
  Tape tape;
  Ctx ctx{engine, &tape};
  GptConfig c = tiny();
  c.experts = 4;
  c.experts_per_token = 2;
  c = resolve(c);
  const Gpt moe(ctx, c, 1);
  int64_t total = 0;
  for (const Parameter& p : moe.parameters()) total += p.value.numel();
  EXPECT_EQ(total, count_params(c).total());

  GptConfig dense = tiny();
  dense.init.mlp_proj = 1.0f;
  Gpt b(ctx, resolve(dense), 3);
  const Tensor ids = testing_support::random_ids(2, 8, 97, 7, 3), targets = testing_support::random_ids(2, 8, 97, 7, 4);
  for (const auto& [experts, k, aux] : {std::tuple{2, 2, 0.5f}, {4, 1, 0.0f}, {4, 3, 0.0f}}) {
    GptConfig one = dense;
    one.experts = experts;
    one.experts_per_token = k;
    one.moe_aux_loss = aux;
    one = resolve(one);
    Gpt a(ctx, one, 3);
    // The same weights: the dense MLP copied into every expert, everything else by name (the router stays random).
    for (int64_t i = 0; i < one.depth; i++)
      for (const char* m : {"c_fc", "c_proj"})
        for (int e = 0; e < experts; e++) {
          const std::string blk = "blocks." + std::to_string(i) + ".mlp.";
          std::vector<float> w = b.parameter(blk + m).value.to_vector();
          std::copy(w.begin(), w.end(),
                    a.parameter(blk + "experts." + std::to_string(e) + "." + m).value.data<float>());
        }
    for (const Parameter& p : b.parameters()) {
      if (p.name.find(".mlp.") != std::string::npos) continue;
      std::vector<float> w = p.value.to_vector();
      std::copy(w.begin(), w.end(), a.parameter(p.name).value.data<float>());
    }
    NoGradGuard no_grad(ctx);
    const double la = a.loss(ctx, ids, targets).item(), lb = b.loss(ctx, ids, targets).item();
    EXPECT_NEAR(la, lb + (experts == 2 ? 0.5 * 2.0 * static_cast<double>(one.depth) : 0.0), 1e-5)
        << experts << " experts, top " << k;
  }
}

TEST(Gpt, ZeroInitMakesEveryBlockTheIdentityAtStepZero) {
  Engine engine;
  Tape tape;
  Ctx ctx{engine, &tape};
  const GptConfig c = tiny();
  Gpt gpt(ctx, c, 3);
  const Tensor ids = testing_support::random_ids(2, 12, 97, 7, 1),
               targets = testing_support::random_ids(2, 12, 97, 7, 2);
  const Tensor loss = gpt.loss(ctx, ids, targets);
  // lm_head ~ N(0, 0.001^2): logits ~ 0, so the loss is ln V to within a few 1e-3.
  EXPECT_NEAR(loss.item(), std::log(97.0), 5e-3);
  tape.backward(loss);
  for (const Parameter& p : gpt.parameters()) {
    const bool zero_expected = p.name.find("c_q") != std::string::npos || p.name.find("c_k") != std::string::npos ||
                               p.name.find("c_v") != std::string::npos || p.name.find("c_fc") != std::string::npos ||
                               p.name.find("ve_gate") != std::string::npos ||
                               p.name.find("value_embeds") != std::string::npos;
    ASSERT_TRUE(p.value.grad().defined()) << p.name;
    if (zero_expected) {
      EXPECT_EQ(max_abs(p.value.grad()), 0.0) << p.name;
    } else {
      EXPECT_GT(max_abs(p.value.grad()), 0.0) << p.name;
    }
  }
}

TEST(Gpt, MultiTokenTargetsShiftWithinTheRow) {
  const Tensor t = Tensor::from_ints({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor s = shift_targets(t, 2);
  const int32_t* d = s.data<int32_t>();
  const std::vector<int32_t> want = {3, 4, -1, -1, 7, 8, -1, -1};
  for (size_t i = 0; i < want.size(); i++) EXPECT_EQ(d[i], want[i]) << i;
}

TEST(Gpt, MultiTokenLossIsTheWeightedSumOfShiftedLosses) {
  Engine engine;
  Ctx ctx{engine};
  GptConfig c = tiny();
  c.init.attn_proj = 1.0f;  // non-trivial blocks
  c.init.mlp_proj = 1.0f;
  c.init.lm_head_std = 0.5f;
  Gpt gpt(ctx, c, 5);
  const Tensor ids = testing_support::random_ids(2, 10, 97, 7, 3),
               targets = testing_support::random_ids(2, 10, 97, 7, 4);
  const double l1 = gpt.loss(ctx, ids, targets).item();
  const double l2 = gpt.loss(ctx, ids, shift_targets(targets, 1)).item();
  const double l3 = gpt.loss(ctx, ids, shift_targets(targets, 2)).item();
  EXPECT_NEAR(gpt.loss(ctx, ids, targets, {1.0f, 0.5f, 0.25f}).item(), l1 + 0.5 * l2 + 0.25 * l3, 1e-5);
}

void expect_kv_cache_decode_matches_the_full_forward(GptConfig c) {
  Engine engine;
  Ctx ctx{engine};
  c.init.attn_proj = 1.0f;
  c.init.mlp_proj = 1.0f;
  c.init.lm_head_std = 0.5f;
  c.init.ve_gate = 0.5f;
  Gpt gpt(ctx, c, 9);
  const int64_t T = 9;
  const Tensor ids = testing_support::random_ids(1, T, 97, 7, 5);
  const std::vector<float> full = gpt.logits(ctx, ids).to_vector();
  KvCache cache;
  // prefill 4 positions, then one at a time
  std::vector<float> got = gpt.logits(ctx, ids.narrow(1, 0, 4).contiguous(), &cache).to_vector();
  for (int64_t t = 4; t < T; t++) {
    const std::vector<float> step = gpt.logits(ctx, ids.narrow(1, t, 1).contiguous(), &cache).to_vector();
    got.insert(got.end(), step.begin(), step.end());
  }
  ASSERT_EQ(got.size(), full.size());
  EXPECT_EQ(cache.length(), T);
  for (size_t i = 0; i < full.size(); i++) ASSERT_NEAR(got[i], full[i], 2e-4) << i;
}

TEST(Gpt, KvCacheDecodeMatchesTheFullForward) { expect_kv_cache_decode_matches_the_full_forward(tiny()); }

// Windows shorter than the decoded length, on alternate layers, and the norm gains before rotary.
TEST(Gpt, KvCacheDecodeMatchesTheFullForwardForTheLlamaVariant) {
  expect_kv_cache_decode_matches_the_full_forward(llama_variant());
}

}  // namespace
}  // namespace nanotrn::model
