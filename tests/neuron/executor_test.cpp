// Functional tests of neuron/sim/executor.h against independent references: an fp64 product of the dtype-rounded
// inputs (with the fp32-accumulation error bound), std:: math in double for activations (stated ULP bounds), the
// dtype module's round_to for casts, and plain loops for the vector ops. Not here: timing, rule errors.
#include "neuron/sim/executor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "base/rng.h"
#include "dtype/convert.h"
#include "neuron/isa/builder.h"
#include "neuron/random_values.h"

namespace nanotrn::neuron {
namespace {

// Distance in units in the last place of fp32 between a and the double reference r.
double ulps(float a, double r) {
  const double ulp = std::ldexp(1.0, std::max(std::ilogb(static_cast<float>(r)), -126) - 23);
  return std::fabs(a - r) / ulp;
}

// One matmul of [K,M]^T x [K,N] through HBM -> SBUF -> PSUM -> SBUF -> HBM.
void check_matmul(DType in, int64_t k, int64_t m, int64_t n, bool twice) {
  KernelBuilder b(spec_for("v3"));
  View a = b.hbm("a", k, m, DType::f32), x = b.hbm("x", k, n, DType::f32), out = b.hbm("out", m, n, DType::f32);
  View ta = b.sbuf("ta", k, m, in), tx = b.sbuf("tx", k, n, in), r = b.sbuf("r", m, n, DType::f32);
  View acc = b.psum("acc", m, n, DType::f32);
  b.dma_copy(ta, a);
  b.dma_copy(tx, x);
  b.matmul(acc, ta, tx, false);
  if (twice) b.matmul(acc, ta, tx, true);
  b.copy(r, acc);
  b.dma_copy(out, r);
  Program p = b.take();
  Executor ex(p);
  const std::vector<float> va = randoms(static_cast<size_t>(k * m), -2, 2, 1);
  const std::vector<float> vx = randoms(static_cast<size_t>(k * n), -2, 2, 2);
  ex.set(a, va);
  ex.set(x, vx);
  ex.run();
  const std::vector<float> got = ex.get(out);
  const double gamma = (twice ? 2 * k + 1 : k + 1) * std::ldexp(1.0, -24);  // fp32 recursive-sum bound
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        const double pa = round_to(in, va[static_cast<size_t>(kk * m + i)]);
        const double px = round_to(in, vx[static_cast<size_t>(kk * n + j)]);
        ref += pa * px;
        mag += std::fabs(pa * px);
      }
      if (twice) ref *= 2, mag *= 2;
      ASSERT_LE(std::fabs(got[static_cast<size_t>(i * n + j)] - ref), gamma * mag + 1e-30)
          << dtype_name(in) << " [" << i << "," << j << "]";
    }
}

TEST(NeuronExecutor, MatmulMatchesFp64OfRoundedInputs) {
  check_matmul(DType::bf16, 128, 128, 512, false);
  check_matmul(DType::f8e4m3, 64, 32, 100, false);
  check_matmul(DType::f32, 96, 48, 64, false);
  check_matmul(DType::f16, 128, 16, 40, true);  // accumulate=true adds onto PSUM
}

TEST(NeuronExecutor, MatmulInputsAreRoundedToTheirDtype) {
  // 1 + 2^-10 is not a bf16 value: it rounds to 1 (ties-to-even neighbour), so the product is exactly K.
  KernelBuilder b(spec_for("v2"));
  View a = b.hbm("a", 4, 1, DType::f32), t = b.sbuf("t", 4, 1, DType::bf16), acc = b.psum("acc", 1, 1, DType::f32);
  View o = b.sbuf("o", 1, 1, DType::f32);
  b.dma_copy(t, a);
  b.matmul(acc, t, t);
  b.copy(o, acc);
  Program p = b.take();
  Executor ex(p);
  ex.set(a, std::vector<float>(4, 1.0f + 0x1p-10f));
  ex.run();
  EXPECT_EQ(ex.get(o)[0], 4.0f);
}

TEST(NeuronExecutor, ActivationsWithinStatedUlpOfStdMath) {
  struct Case {
    Act f;
    double (*ref)(double);
    double max_ulp;
  };
  const Case cases[] = {
      {Act::exp, [](double z) { return std::exp(z); }, 2},
      {Act::tanh, [](double z) { return std::tanh(z); }, 4},
      {Act::sigmoid, [](double z) { return 1 / (1 + std::exp(-z)); }, 4},
      {Act::silu, [](double z) { return z / (1 + std::exp(-z)); }, 4},
      {Act::relu, [](double z) { return z > 0 ? z : 0.0; }, 0},
      {Act::square, [](double z) { return z * z; }, 1},
      {Act::reciprocal, [](double z) { return 1 / z; }, 1},
  };
  const float scale = 1.5f, bias = -0.25f;
  const std::vector<float> xs = randoms(128 * 64, -3, 3, 7);
  for (const Case& c : cases) {
    KernelBuilder b(spec_for("v3"));
    View x = b.sbuf("x", 128, 64, DType::f32), y = b.sbuf("y", 128, 64, DType::f32);
    View yb = b.sbuf("yb", 128, 64, DType::bf16);
    b.activation(y, x, c.f, scale, bias);
    b.activation(yb, x, c.f, scale, bias);
    Program p = b.take();
    Executor ex(p);
    ex.set(x, xs);
    ex.run();
    const std::vector<float> got = ex.get(y), got_b = ex.get(yb);
    for (size_t i = 0; i < xs.size(); ++i) {
      const float z = xs[i] * scale + bias;  // the fp32 argument, as the hardware forms it
      const double r = c.ref(z);
      ASSERT_LE(ulps(got[i], r), c.max_ulp) << act_name(c.f) << " z=" << z;
      // bf16 output: one rounding of the fp32 result, so within one bf16 ulp (2^16 fp32 ulps) plus the fp32 error.
      ASSERT_LE(ulps(got_b[i], r), 65536 + c.max_ulp) << act_name(c.f) << " bf16 z=" << z;
      ASSERT_EQ(got_b[i], round_to(DType::bf16, got[i]));
    }
  }
}

TEST(NeuronExecutor, CopyWithCastEqualsTheDtypeModule) {
  const std::vector<float> xs = randoms(128 * 32, -500, 500, 3);
  for (DType t : {DType::bf16, DType::f16, DType::f8e4m3, DType::f8e5m2, DType::i32}) {
    for (Rounding mode : {Rounding::nearest_even, Rounding::stochastic}) {
      KernelBuilder b(spec_for("v4"));
      View x = b.sbuf("x", 128, 32, DType::f32), y = b.sbuf("y", 128, 32, t), h = b.hbm("h", 128, 32, t);
      b.set_rounding(mode);
      b.copy(y, x);      // instruction 0
      b.dma_copy(h, y);  // same dtype: exact
      Program p = b.take();
      Executor ex(p, /*seed=*/42);
      ex.set(x, xs);
      ex.run();
      const std::vector<float> got = ex.get(y), got_h = ex.get(h);
      for (size_t i = 0; i < xs.size(); ++i) {
        const uint32_t r = mode == Rounding::stochastic ? random_u32(42, 0, i) : 0;
        ASSERT_EQ(got[i], round_to(t, xs[i], mode, r)) << dtype_name(t) << " " << xs[i];
        ASSERT_EQ(got_h[i], got[i]);
      }
    }
  }
}

TEST(NeuronExecutor, VectorOpsTransposeIotaMemset) {
  KernelBuilder b(spec_for("v3"));
  View a = b.sbuf("a", 64, 16, DType::f32), c = b.sbuf("c", 64, 16, DType::f32), d = b.sbuf("d", 64, 16, DType::f32);
  View e = b.sbuf("e", 64, 16, DType::f32), red = b.sbuf("red", 64, 1, DType::f32);
  View io = b.sbuf("io", 64, 16, DType::i32), ms = b.sbuf("ms", 64, 16, DType::bf16);
  View tp = b.psum("tp", 16, 64, DType::f32);
  b.tensor_tensor(d, a, c, AluOp::subtract);
  b.tensor_scalar(e, a, AluOp::multiply, 3.0f, AluOp::max, 0.5f);
  b.reduce(red, a, AluOp::max);
  b.iota(io, 5, 100, 2);
  b.memset(ms, 1.0f / 3.0f);
  b.transpose(tp, a);
  Program p = b.take();
  Executor ex(p);
  const std::vector<float> va = randoms(64 * 16, -1, 1, 11), vc = randoms(64 * 16, -1, 1, 12);
  ex.set(a, va);
  ex.set(c, vc);
  ex.run();
  const auto gd = ex.get(d), ge = ex.get(e), gr = ex.get(red), gi = ex.get(io), gm = ex.get(ms), gt = ex.get(tp);
  for (int64_t pp = 0; pp < 64; ++pp) {
    float mx = -INFINITY;
    for (int64_t f = 0; f < 16; ++f) {
      const size_t i = static_cast<size_t>(pp * 16 + f);
      EXPECT_EQ(gd[i], va[i] - vc[i]);
      EXPECT_EQ(ge[i], std::fmax(va[i] * 3.0f, 0.5f));
      EXPECT_EQ(gi[i], static_cast<float>(5 + pp * 100 + f * 2));
      EXPECT_EQ(gm[i], round_to(DType::bf16, 1.0f / 3.0f));
      EXPECT_EQ(gt[static_cast<size_t>(f * 64 + pp)], va[i]);
      mx = std::fmax(mx, va[i]);
    }
    EXPECT_EQ(gr[static_cast<size_t>(pp)], mx);
  }
}

TEST(NeuronExecutor, AffineSelectBuildsACausalMask) {
  KernelBuilder b(spec_for("v3"));
  View x = b.sbuf("x", 64, 64, DType::f32), y = b.sbuf("y", 64, 64, DType::bf16);
  b.affine_select(y, x, /*offset=*/0, /*channel_multiplier=*/1, /*step=*/-1, -INFINITY);  // keep f <= p
  Program p = b.take();
  Executor ex(p);
  const std::vector<float> vx = randoms(64 * 64, -4, 4, 21);
  ex.set(x, vx);
  ex.run();
  const std::vector<float> got = ex.get(y);
  for (int64_t q = 0; q < 64; ++q)
    for (int64_t k = 0; k < 64; ++k) {
      const size_t i = static_cast<size_t>(q * 64 + k);
      EXPECT_EQ(got[i], k <= q ? round_to(DType::bf16, vx[i]) : -INFINITY) << q << "," << k;
    }
}

// Row softmax with per-partition operands: max -> exp(x - max) with a bias vector -> sum -> reciprocal -> scale.
// Reference: double-precision softmax of the same fp32 inputs; each step is one fp32 rounding, so a few fp32 ULP.
TEST(NeuronExecutor, RowSoftmaxWithPerPartitionOperands) {
  const int64_t rows = 128, cols = 300;
  KernelBuilder b(spec_for("v3"));
  View x = b.sbuf("x", rows, cols, DType::f32), e = b.sbuf("e", rows, cols, DType::f32);
  View y = b.sbuf("y", rows, cols, DType::f32);
  View mx = b.sbuf("max", rows, 1, DType::f32), neg = b.sbuf("neg", rows, 1, DType::f32);
  View sum = b.sbuf("sum", rows, 1, DType::f32), inv = b.sbuf("inv", rows, 1, DType::f32);
  b.reduce(mx, x, AluOp::max);
  b.tensor_scalar(neg, mx, AluOp::multiply, -1.0f);
  b.activation(e, x, Act::exp, 1.0f, neg);  // exp(x - max)
  b.reduce(sum, e, AluOp::add);
  b.activation(inv, sum, Act::reciprocal);
  b.tensor_scalar(y, e, AluOp::multiply, inv);
  Program p = b.take();
  Executor ex(p);
  const std::vector<float> vx = randoms(static_cast<size_t>(rows * cols), -8, 8, 31);
  ex.set(x, vx);
  ex.run();
  const std::vector<float> got = ex.get(y);
  for (int64_t r = 0; r < rows; ++r) {
    double m = -INFINITY, z = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, double(vx[static_cast<size_t>(r * cols + c)]));
    for (int64_t c = 0; c < cols; ++c) z += std::exp(vx[static_cast<size_t>(r * cols + c)] - m);
    for (int64_t c = 0; c < cols; ++c) {
      const size_t i = static_cast<size_t>(r * cols + c);
      const double ref = std::exp(vx[i] - m) / z;
      // exp: 2 ulp; fp32 sum of 300 terms: 300 ulp of the sum; reciprocal and product: 1 ulp each.
      ASSERT_LE(std::fabs(got[i] - ref), ref * (cols + 8) * std::ldexp(1.0, -23)) << r << "," << c;
    }
  }
}

}  // namespace
}  // namespace nanotrn::neuron
