// The lowering against independent counts: the forward matmuls' FLOPs per token equal a third of recipe-spec §2.4's
// 6N + 12 H hd T per layer (which counts full T x T attention), the backward's gradient matmuls are twice the forward,
// and the Muon parameters equal count_params' block matrices + value gates.
#include <gtest/gtest.h>

#include "model/config.h"
#include "predict/lowering.h"
#include "train/recipe.h"

namespace nanotrn::predict {
namespace {

train::Recipe shipped(const std::string& name) {
  return train::load_recipe(std::string(NANOTRN_SOURCE_DIR) + "/recipes/" + name + ".json");
}

void expect_flops_match_the_count(const train::Recipe& r, const std::string& label) {
  const model::GptConfig c = model::resolve(r.model);
  const int64_t rows = 2, T = r.batch.seq_len;
  double fwd = 0, bwd = 0;
  for (const KernelOp& op : lower_micro_batch(c, T, {.rows = rows})) {
    if (op.kernel != "matmul") continue;
    const double f = op.flops * static_cast<double>(op.count);
    EXPECT_DOUBLE_EQ(op.flops, 2.0 * static_cast<double>(op.shape[0] * op.shape[1] * op.shape[2]));
    if (op.pass == Pass::forward) fwd += f;
    if (op.pass == Pass::backward && op.name.find("recompute") == std::string::npos) bwd += f;
  }
  const double tokens = static_cast<double>(rows * T);
  EXPECT_NEAR(fwd / tokens, model::flops_per_token(c, T) / 3.0, 1e-6 * fwd / tokens) << label;
  EXPECT_NEAR(bwd, 2.0 * fwd, 1e-9 * fwd) << label;
}

TEST(Lowering, ForwardAndBackwardMatmulFlopsMatchTheFlopCount) {
  for (const char* name : {"frontierforge-k60", "autoresearch-d8", "cpu-tiny"}) {
    expect_flops_match_the_count(shipped(name), name);
  }
  train::Recipe windowed = shipped("cpu-tiny");
  windowed.model.window = 64;  // a sliding window shorter than T = 256
  expect_flops_match_the_count(windowed, "cpu-tiny, window 64");
}

TEST(Lowering, MuonCoversExactlyTheBlockMatrices) {
  for (const char* name : {"frontierforge-k60", "autoresearch-d8"}) {
    const model::GptConfig c = model::resolve(shipped(name).model);
    const model::ParamCounts p = model::count_params(c);
    EXPECT_EQ(muon_parameters(c), p.block_matrices + p.ve_gates) << name;
  }
}

TEST(Lowering, MtpHeadsAddLmHeadWork) {
  const model::GptConfig c = model::resolve(shipped("frontierforge-k60").model);
  auto lm_flops = [&](int heads) {
    double f = 0;
    for (const KernelOp& op : lower_micro_batch(c, 1024, {.rows = 1, .mtp_heads = heads})) {
      if (op.group == "lm_head + CE" && op.kernel == "matmul") f += op.flops * static_cast<double>(op.count);
    }
    return f;
  };
  // Each head: [T, d] x [d, V] forward and two gradient matmuls: 3 x 2 T d V.
  EXPECT_DOUBLE_EQ(lm_flops(3) - lm_flops(1), 2 * 3 * 2.0 * 1024 * 1024 * 8192);
}

}  // namespace
}  // namespace nanotrn::predict
