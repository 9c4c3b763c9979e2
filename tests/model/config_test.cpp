// The GPT shape arithmetic against recipe-spec §9.1 (parameter counts) and §9.2 (FLOPs per token), and the depth
// dial against the examples of §2.1.
#include <gtest/gtest.h>

#include "base/error.h"
#include "model/config.h"

namespace nanotrn::model {
namespace {

GptConfig autoresearch(int64_t depth) {
  GptConfig c;
  c.depth = depth;
  c.vocab_size = 8192;
  return resolve(c);
}

TEST(GptConfig, DepthDialMatchesTheBaselineExamples) {
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> rows = {{8, 512, 4},    {10, 640, 5},   {12, 768, 6},
                                                                   {20, 1280, 10}, {24, 1536, 12}, {26, 1664, 13}};
  for (auto [depth, width, heads] : rows) {
    const GptConfig c = autoresearch(depth);
    EXPECT_EQ(c.model_dim, width) << "d" << depth;
    EXPECT_EQ(c.n_head, heads) << "d" << depth;
    EXPECT_EQ(c.n_kv_head, heads) << "d" << depth;
  }
}

TEST(GptConfig, ParameterCountsOfRecipeSpec91) {
  struct Row {
    int64_t depth, wte, ve, blocks, gates, scalars, total, scaling;
  };
  const std::vector<Row> rows = {
      {8, 4194304, 16777216, 25165824, 512, 16, 50332176, 29360640},
      {10, 5242880, 26214400, 49152000, 800, 20, 85852980, 54395680},
      {6, 3145728, 9437184, 10616832, 288, 12, 26345772, 13762848},
  };
  for (const Row& r : rows) {
    const ParamCounts n = count_params(autoresearch(r.depth));
    EXPECT_EQ(n.wte, r.wte) << "d" << r.depth;
    EXPECT_EQ(n.lm_head, r.wte) << "d" << r.depth;
    EXPECT_EQ(n.value_embeds, r.ve) << "d" << r.depth;
    EXPECT_EQ(n.block_matrices, r.blocks) << "d" << r.depth;
    EXPECT_EQ(n.ve_gates, r.gates) << "d" << r.depth;
    EXPECT_EQ(n.scalars, r.scalars) << "d" << r.depth;
    EXPECT_EQ(n.total(), r.total) << "d" << r.depth;
    EXPECT_EQ(n.scaling(), r.scaling) << "d" << r.depth;
  }
}

TEST(GptConfig, NanochatRowsWithTwelveChannelGates) {
  // nanochat HEAD d12 and d20 of §9.1, without its smear/backout extras (26 scalars nanotrn does not model).
  for (auto [depth, wte, ve, blocks, gates] : std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>>{
           {12, 25165824, 150994944, 84934656, 432}, {20, 41943040, 419430400, 393216000, 1200}}) {
    GptConfig c;
    c.depth = depth;
    c.vocab_size = 32768;
    c.ve_gate_channels = 12;
    const ParamCounts n = count_params(resolve(c));
    EXPECT_EQ(n.wte, wte);
    EXPECT_EQ(n.value_embeds, ve);
    EXPECT_EQ(n.block_matrices, blocks);
    EXPECT_EQ(n.ve_gates, gates);
    EXPECT_EQ(n.scalars, 2 * depth);
  }
}

// FrontierForge K60 (§9.1): 9 x 1024, 4 query heads of 256 sharing one KV head (its shared value-embedding table
// is not modelled, so none here).
GptConfig k60() {
  GptConfig c;
  c.depth = 9;
  c.model_dim = 1024;
  c.head_dim = 256;
  c.n_head = 4;
  c.n_kv_head = 1;
  c.value_embeds = ValueEmbeds::none;
  return resolve(c);
}

TEST(GptConfig, GroupedQueryBlocksOfK60) {
  // K60's per-layer composition (§9.1): c_q 1024^2, c_k and c_v 256 x 1024, c_proj 1024^2, MLP 2 x 4096 x 1024.
  const ParamCounts n = count_params(k60());
  EXPECT_EQ(n.block_matrices, 99090432);
  EXPECT_EQ(n.block_matrices / 9, 11010048);
}

TEST(GptConfig, FlopsPerTokenOfRecipeSpec92) {
  EXPECT_DOUBLE_EQ(flops_per_token(autoresearch(8), 1024), 226495488.0);
  EXPECT_DOUBLE_EQ(flops_per_token(k60(), 1024), 758120448.0);
  GptConfig w = autoresearch(8);
  w.window = 256;  // a sliding window caps the attention term
  EXPECT_DOUBLE_EQ(flops_per_token(w, 1024), 176163840.0 + 12.0 * 4 * 128 * 256 * 8);
}

TEST(GptConfig, ImpossibleShapesNameTheField) {
  GptConfig c;
  c.n_head = 6;
  c.n_kv_head = 4;
  try {
    resolve(c);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.n_kv_head"), std::string::npos) << e.what();
  }
  GptConfig odd;
  odd.head_dim = 63;
  EXPECT_THROW(resolve(odd), Error);
}

}  // namespace
}  // namespace nanotrn::model
