// val_bpb: the zero-logit identity log2(V) * tokens / bytes through the real head, special-token exclusion, and the
// public-2M example of recipe-spec §9.3 reproduced to 1e-12.
#include <gtest/gtest.h>

#include <cmath>

#include "base/error.h"
#include "eval/bpb.h"
#include "ops/ops.h"

namespace nanotrn {
namespace {

TEST(Bpb, ZeroLogitsGiveLog2VTimesTokensOverBytes) {
  Engine e;
  Ctx ctx{e};
  const int64_t V = 8192, N = 6;
  std::vector<int32_t> token_bytes(V);
  for (int64_t v = 0; v < V; v++) token_bytes[v] = v >= 8188 ? 0 : 1 + static_cast<int32_t>(v % 7);  // 4 specials
  const Tensor targets = Tensor::from_ints({N}, {5, 8188, 100, 7, 8191, 3000});
  const Tensor nll =
      ops::linear_cross_entropy_per_token(ctx, Tensor::full({N, 8}, 0.25f), Tensor::zeros({V, 8}), targets, {15.0f});
  BpbAccumulator acc;
  acc.add(nll, targets, token_bytes);
  int64_t tokens = 0, bytes = 0;
  for (int32_t t : {5, 100, 7, 3000}) {  // the non-special targets
    tokens++;
    bytes += token_bytes[t];
  }
  EXPECT_EQ(acc.tokens(), tokens);
  EXPECT_EQ(acc.bytes(), bytes);
  EXPECT_NEAR(acc.bpb(), std::log2(static_cast<double>(V)) * tokens / bytes, 1e-6);
}

TEST(Bpb, ReproducesThePublic2MExample) {
  // 2,097,152 tokens over 8,387,440 bytes at 2.658828... nats/token gives 0.9591028698885415 (recipe-spec §9.3).
  const double bpb = 0.9591028698885415, bytes = 8387440.0, tokens = 2097152.0;
  const double total_nats = bpb * std::log(2.0) * bytes;
  BpbAccumulator acc;
  // Spread the bytes as 4 per token, minus one on the first tokens (3.99944 bytes/token), and the nats evenly.
  int64_t left = static_cast<int64_t>(bytes);
  for (int64_t i = 0; i < static_cast<int64_t>(tokens); i++) {
    const int64_t b = i < 4 * static_cast<int64_t>(tokens) - static_cast<int64_t>(bytes) ? 3 : 4;
    acc.add_token(total_nats / tokens, b);
    left -= b;
  }
  ASSERT_EQ(left, 0);
  EXPECT_NEAR(acc.bpb(), bpb, 1e-12 * bpb);
}

TEST(Bpb, ErrorsAreNamed) {
  BpbAccumulator acc;
  EXPECT_THROW(acc.bpb(), Error);
  EXPECT_THROW(acc.add(Tensor::zeros({2}), Tensor::from_ints({2}, {0, 9}), {1, 1, 1}), Error);
}

}  // namespace
}  // namespace nanotrn
