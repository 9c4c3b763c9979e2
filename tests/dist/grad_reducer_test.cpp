// The gradient reducer at world size 1: the overlapped mode leaves the tape's gradients as they are (no copy, no
// wait), and the deterministic mode computes each micro-batch's gradient from zero and sums them in micro-batch
// order, which is what 2 ranks reproduce bit for bit (tests/dist/dp.sh deterministic).
#include <gtest/gtest.h>

#include "dist/grad_reducer.h"
#include "ops/ops.h"

namespace nanotrn::dist {
namespace {

// One parameter w of 3 elements and its reducer on the local world; loss = sum(w * x), so d loss / d w = x.
struct OneParameter {
  Engine e;
  Tape tape;
  Ctx ctx{e, &tape};
  Tensor w = Tensor::from_vector({3}, {1.0f, 1.0f, 1.0f});
  std::unique_ptr<Communicator> comm = make_local_communicator();
  GradReducer reducer;
  explicit OneParameter(GradReducerOptions options) : reducer((w.set_requires_grad(), *comm), {&w}, options) {}
  void micro_batch(const std::vector<float>& x, bool last) {
    const Tensor loss = ops::sum(ctx, ops::mul(ctx, w, Tensor::from_vector({3}, x)));
    tape.backward(loss, Tensor(), false, reducer.backward_hook(last));
    reducer.after_backward(last);
  }
};

TEST(GradReducer, DeterministicSumsMicroBatchesFromZeroInOrder) {
  OneParameter t({.bucket_bytes = 64, .deterministic = true});
  const std::vector<float> g0 = {1e8f, 1.0f, 0.1f}, g1 = {-1e8f, 3.0f, 0.2f}, g2 = {1.0f, -4.0f, 0.3f};
  t.micro_batch(g0, false);
  EXPECT_FALSE(t.w.grad().defined());  // kept aside; the next micro-batch starts from zero
  t.micro_batch(g1, false);
  t.micro_batch(g2, true);
  t.reducer.finish();
  const std::vector<float> got = t.w.grad().to_vector();
  for (size_t i = 0; i < 3; i++) {
    const float expected = (g0[i] + g1[i]) + g2[i];  // fp32, left to right
    EXPECT_EQ(got[i], expected) << i;
  }
  EXPECT_EQ(got[0], 1.0f);  // (1e8 - 1e8) + 1: the order matters; 1e8 + (-1e8 + 1) would give 0
}

TEST(GradReducer, OverlappedModeOfOneRankLeavesTheTapesSum) {
  OneParameter t({.bucket_bytes = 8, .deterministic = false});
  EXPECT_FALSE(static_cast<bool>(t.reducer.backward_hook(true)));  // world size 1: nothing to start
  t.micro_batch({1.0f, 2.0f, 3.0f}, false);
  t.micro_batch({4.0f, 5.0f, 6.0f}, true);
  t.reducer.finish();
  EXPECT_EQ(t.w.grad().to_vector(), (std::vector<float>{5.0f, 7.0f, 9.0f}));
  EXPECT_EQ(t.reducer.buckets(), 1);  // a parameter larger than a bucket (12 bytes > 8) gets a bucket of its own
}

TEST(GradReducer, BucketsFillInReverseParameterOrder) {
  // Three parameters of 12 bytes, buckets of 24: the last two share the first bucket, the first gets the second.
  std::vector<Tensor> ps;
  for (int i = 0; i < 3; i++) {
    ps.push_back(Tensor::from_vector({3}, {1.0f, 2.0f, 3.0f}));
    ps.back().set_requires_grad();
  }
  auto comm = make_local_communicator();
  GradReducer reducer(*comm, {&ps[0], &ps[1], &ps[2]}, {.bucket_bytes = 24});
  EXPECT_EQ(reducer.buckets(), 2);
  EXPECT_EQ(reducer.bytes_per_step(), 36);
}

}  // namespace
}  // namespace nanotrn::dist
