// Sampling: greedy is the argmax; temperature/top-k draws follow softmax(logits / t) over the top k (checked
// against the exact probabilities by counting draws over a fine grid of u); generate() with a KV cache equals
// greedy decoding by full forwards; a non-finite logit is an error naming its position, and a non-finite weight is
// named before any sampling (eval/finite_weights.h).
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "base/error.h"
#include "eval/finite_weights.h"
#include "model/sample.h"

namespace nanotrn::model {
namespace {

TEST(Sample, GreedyIsTheArgmaxWithTiesToTheLowestId) {
  const std::vector<float> z = {0.1f, 2.0f, -1.0f, 2.0f};
  EXPECT_EQ(pick_token(z.data(), 4, 0.0f, 0, 0.5f), 1);
}

TEST(Sample, DrawsFollowTheTemperatureSoftmaxOverTheTopK) {
  const std::vector<float> z = {1.0f, 3.0f, 2.0f, -5.0f};
  const float t = 0.7f;
  const int64_t k = 3;
  // exact probabilities over the top 3 (ids 1, 2, 0)
  double e[4] = {std::exp(1.0 / t), std::exp(3.0 / t), std::exp(2.0 / t), 0.0};
  const double total = e[0] + e[1] + e[2];
  const int n = 100000;
  std::vector<int> hits(4, 0);
  for (int i = 0; i < n; i++) hits[pick_token(z.data(), 4, t, k, (i + 0.5f) / n)]++;
  for (int id = 0; id < 4; id++) EXPECT_NEAR(hits[id] / static_cast<double>(n), e[id] / total, 2e-4) << id;
  EXPECT_EQ(hits[3], 0);  // outside the top k
}

GptConfig tiny_config() {
  GptConfig c;
  c.vocab_size = 50;
  c.depth = 2;
  c.model_dim = 32;
  c.head_dim = 16;
  c.ve_gate_channels = 8;
  c.init.attn_proj = c.init.mlp_proj = 1.0f;
  c.init.lm_head_std = 1.0f;
  return c;
}

TEST(Sample, GenerateWithCacheEqualsGreedyFullForwards) {
  Engine engine;
  Ctx ctx{engine};
  Gpt gpt(ctx, resolve(tiny_config()), 4);
  const std::vector<int32_t> prompt = {3, 17, 8};
  const std::vector<int32_t> got = generate(ctx, gpt, prompt, {.max_tokens = 6});
  std::vector<int32_t> seq = prompt;
  for (int i = 0; i < 6; i++) {
    const Tensor z = gpt.logits(ctx, Tensor::from_ints({1, static_cast<int64_t>(seq.size())}, seq));
    const float* last = z.data<float>() + (seq.size() - 1) * 50;
    seq.push_back(pick_token(last, 50, 0.0f, 0, 0.0f));
  }
  EXPECT_EQ(got, std::vector<int32_t>(seq.begin() + 3, seq.end()));
}

TEST(Sample, ANanWeightIsNamedAndItsLogitsAreRefused) {
  Engine engine;
  Ctx ctx{engine};
  Gpt gpt(ctx, resolve(tiny_config()), 4);
  EXPECT_NO_THROW(check_finite_weights(gpt, "ok.safetensors"));
  Parameter& head = gpt.parameter("lm_head");
  head.value.data<float>()[5] = std::numeric_limits<float>::quiet_NaN();
  try {
    check_finite_weights(gpt, "bad.safetensors");
    ADD_FAILURE() << "a NaN weight passed";
  } catch (const Error& e) {
    const std::string msg = e.message();
    EXPECT_NE(msg.find("bad.safetensors: weight 'lm_head'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("at element 5"), std::string::npos) << msg;
  }
  // generate() itself (callers that skip the weight check): the first position's logits are already NaN.
  const std::vector<int32_t> prompt = {3, 17, 8};
  for (float temperature : {0.0f, 0.8f}) {
    try {
      generate(ctx, gpt, prompt, {.max_tokens = 4, .temperature = temperature});
      ADD_FAILURE() << "NaN logits produced tokens at temperature " << temperature;
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("at position 2 is nan"), std::string::npos) << e.message();
    }
  }
}

}  // namespace
}  // namespace nanotrn::model
