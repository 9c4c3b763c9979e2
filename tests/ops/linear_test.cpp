// Matmul (batched, transposes, shared operands, transposed views) and linear: fp64 forward, finite-difference
// gradients; the bf16 mode against fp64 products of bf16-rounded inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "autograd/tape.h"
#include "dtype/convert.h"
#include "ops/ops.h"
#include "support/op_check.h"

namespace nanotrn {
namespace {

using ref::RefTensor;
using testing::OpCase;

TEST(LinearOps, MatmulAllTransposesAndBatching) {
  const int64_t M = 5, K = 7, N = 3;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (int batch_mode = 0; batch_mode < 3; batch_mode++) {  // 0: 2-D, 1: batched both, 2: batched a, shared b
        Shape sa = ta ? Shape{K, M} : Shape{M, K};
        Shape sb = tb ? Shape{N, K} : Shape{K, N};
        if (batch_mode >= 1) sa.insert(sa.begin(), {2, 3});
        if (batch_mode == 1) sb.insert(sb.begin(), {2, 3});
        OpCase c;
        c.name = "matmul ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) + " a" + shape_str(sa) + " b" +
                 shape_str(sb);
        c.inputs = {{sa}, {sb}};
        c.host = [=](Ctx& ctx, const std::vector<Tensor>& in) { return ops::matmul(ctx, in[0], in[1], ta, tb); };
        c.reference = [=](const std::vector<RefTensor>& in) { return ref::matmul(in[0], in[1], ta, tb); };
        testing::check_op(c);
      }
    }
  }
}

TEST(LinearOps, TransposedViewIsReadWithoutCopy) {
  OpCase c;
  c.name = "matmul of a transposed view (passed as a transpose flag)";
  c.inputs = {{{6, 4}}, {{6, 5}}};
  c.host = [](Ctx& ctx, const std::vector<Tensor>& in) {
    return ops::matmul(ctx, ops::transpose(ctx, in[0], 0, 1), in[1]);  // [4, 6] x [6, 5]
  };
  c.reference = [](const std::vector<RefTensor>& in) { return ref::matmul(in[0], in[1], true, false); };
  testing::check_op(c);
}

TEST(LinearOps, LinearOnBatchedInput) {
  OpCase c;
  c.name = "linear x[2,3,8] w[5,8]";
  c.inputs = {{{2, 3, 8}}, {{5, 8}}};
  c.host = [](Ctx& ctx, const std::vector<Tensor>& in) { return ops::linear(ctx, in[0], in[1]); };
  c.reference = [](const std::vector<RefTensor>& in) { return ref::matmul(in[0], in[1], false, true); };
  testing::check_op(c);
}

TEST(LinearOps, Bf16ModeMatchesFp64ProductOfRoundedInputs) {
  Engine e;
  Tape tape;
  Ctx ctx{e, &tape};
  ctx.matmul_dtype = DType::bf16;
  const int64_t M = 33, K = 70, N = 17;
  std::vector<float> av(M * K), bv(K * N);
  for (size_t i = 0; i < av.size(); i++) av[i] = std::sin(0.37f * static_cast<float>(i));
  for (size_t i = 0; i < bv.size(); i++) bv[i] = std::cos(0.11f * static_cast<float>(i));
  Tensor a = Tensor::from_vector({M, K}, av), b = Tensor::from_vector({K, N}, bv);
  Tensor c = ops::matmul(ctx, a, b);
  // Reference: round the inputs to bf16 independently (bit-exact RNE via the dtype module), multiply in fp64.
  RefTensor ra{{M, K}, {}}, rb{{K, N}, {}};
  for (float x : av) ra.v.push_back(bf16_to_f32(f32_to_bf16(x)));
  for (float x : bv) rb.v.push_back(bf16_to_f32(f32_to_bf16(x)));
  const RefTensor expect = ref::matmul(ra, rb, false, false);
  const std::vector<float> got = c.to_vector();
  for (int64_t i = 0; i < M; i++) {
    for (int64_t j = 0; j < N; j++) {
      double abs_sum = 0.0;  // error bound of fp32 accumulation: K * eps_f32 * sum |a||b|
      for (int64_t k = 0; k < K; k++) abs_sum += std::fabs(ra.v[i * K + k] * rb.v[k * N + j]);
      EXPECT_NEAR(got[i * N + j], expect.v[i * N + j], K * 1.2e-7 * abs_sum + 1e-6);
    }
  }
}

// Where the GEMM emulates bf16 (AVX2; forced here), a bf16 product reads its operands rounded once and kept in f32:
// forward and both gradients equal, bit for bit, the GEMM's own widening path on the operands' bf16 copies.
TEST(LinearOps, EmulatedBf16ReadsOperandsRoundedOnceBitForBit) {
  Engine e(EngineOptions{.bf16 = Bf16Mode::kEmulated});
  ASSERT_EQ(e.gemm().bf16_support().path, Bf16Path::kEmulated);
  Tape tape;
  Ctx ctx{e, &tape};
  ctx.matmul_dtype = DType::bf16;
  const int64_t M = 33, K = 70, N = 17;
  std::vector<float> av(M * K), bv(K * N), gv(M * N);
  for (size_t i = 0; i < av.size(); i++) av[i] = std::sin(0.37f * static_cast<float>(i));
  for (size_t i = 0; i < bv.size(); i++) bv[i] = std::cos(0.11f * static_cast<float>(i));
  for (size_t i = 0; i < gv.size(); i++) gv[i] = std::sin(0.05f * static_cast<float>(i) + 1.0f);
  Tensor a = Tensor::from_vector({M, K}, av), b = Tensor::from_vector({K, N}, bv);
  a.set_requires_grad();
  b.set_requires_grad();
  Tensor c = ops::matmul(ctx, a, b);
  tape.backward(ops::sum(ctx, ops::mul(ctx, c, Tensor::from_vector({M, N}, gv))));
  // The widening path: bf16 bits (dtype/convert.h), widened by the GEMM itself.
  auto bits = [](const std::vector<float>& v) {
    std::vector<uint16_t> o(v.size());
    convert(v.data(), DType::f32, o.data(), DType::bf16, v.size());
    return o;
  };
  Gemm widen(GemmKernel::kJitGemm, Bf16Mode::kEmulated);
  const std::vector<uint16_t> ab = bits(av), bb = bits(bv), gb = bits(gv);
  std::vector<float> want_c(M * N), want_da(M * K), want_db(K * N);
  widen.bf16({false, false, M, N, K, K, N, N}, 1.0f, ab.data(), bb.data(), 0.0f, want_c.data());
  widen.bf16({false, true, M, K, N, N, N, K}, 1.0f, gb.data(), bb.data(), 0.0f, want_da.data());  // dA = dC B^T
  widen.bf16({true, false, K, N, M, K, N, N}, 1.0f, ab.data(), gb.data(), 0.0f, want_db.data());  // dB = A^T dC
  EXPECT_EQ(c.to_vector(), want_c);
  EXPECT_EQ(a.grad().to_vector(), want_da);
  EXPECT_EQ(b.grad().to_vector(), want_db);
}

TEST(LinearOps, ShapeMismatchIsAnError) {
  Engine e;
  Ctx ctx{e};
  EXPECT_THROW(ops::matmul(ctx, Tensor::zeros({2, 3}), Tensor::zeros({4, 5})), Error);
  EXPECT_THROW(ops::linear(ctx, Tensor::zeros({2, 3}), Tensor::zeros({4, 5})), Error);
  EXPECT_THROW(ops::matmul(ctx, Tensor::zeros({2, 2, 3}), Tensor::zeros({3, 3, 4})), Error);
}

}  // namespace
}  // namespace nanotrn
