// Functional tests of the instructions the tile kernels added (neuron/sim/executor.h), against independent references:
// activation with a per-partition scale vector and the fused free-axis reduction (fp64 sums with the fp32
// recursive-summation bound, stated ULP for the function), VectorE reciprocal (IEEE division: correctly rounded),
// tensor_reduce with negate, DMA access patterns (broadcast, transposed read; exact), and the fp8 double-row matmul
// and the v4 MX matmul with block scales (fp64 of the rounded inputs with the fp32 accumulation bound). Not here:
// timing, rule errors.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "dtype/convert.h"
#include "neuron/isa/builder.h"
#include "neuron/random_values.h"
#include "neuron/sim/executor.h"

namespace nanotrn::neuron {
namespace {

TEST(NeuronExecutorOps, ActivationScaleVectorAndFusedReduction) {
  const int64_t p = 64, f = 300;
  KernelBuilder b(spec_for("v3"));
  View x = b.sbuf("x", p, f, DType::f32), s = b.sbuf("s", p, 1, DType::f32), bias = b.sbuf("bias", p, 1, DType::f32);
  View y = b.sbuf("y", p, f, DType::f32), sum = b.sbuf("sum", p, 1, DType::f32);
  View yb = b.sbuf("yb", p, f, DType::bf16);
  ActArgs a;
  a.scale_vector = s;
  a.bias_vector = bias;
  a.reduce_into = sum;
  b.activation(y, x, Act::exp, a);
  ActArgs c;
  c.scale_vector = s;
  b.activation(yb, x, Act::copy, c);
  const Program prog = b.take();
  Executor ex(prog);
  const std::vector<float> vx = randoms(static_cast<size_t>(p * f), -2, 2, 3), vs = randoms(p, 0.5f, 1.5f, 4),
                           vb = randoms(p, -1, 1, 5);
  ex.set(x, vx);
  ex.set(s, vs);
  ex.set(bias, vb);
  ex.run();
  const std::vector<float> gy = ex.get(y), gs = ex.get(sum), gyb = ex.get(yb);
  for (int64_t i = 0; i < p; ++i) {
    double ref_sum = 0;
    for (int64_t j = 0; j < f; ++j) {
      const size_t e = static_cast<size_t>(i * f + j);
      // The argument x * s + b is formed in fp32 (two roundings), exp within 2 fp32 ULP of exp of that argument.
      const float arg = vx[e] * vs[static_cast<size_t>(i)] + vb[static_cast<size_t>(i)];
      const double ref = std::exp(static_cast<double>(arg));
      EXPECT_LE(std::fabs(gy[e] - ref), 2 * std::ldexp(1.0, std::ilogb(static_cast<float>(ref)) - 23)) << e;
      ref_sum += gy[e];
      // copy with a scale vector: one fp32 product, then one rounding to bf16.
      EXPECT_EQ(gyb[e], round_to(DType::bf16, vx[e] * vs[static_cast<size_t>(i)])) << e;
    }
    // The reduction sums the fp32 results in fp32: within (F - 1) 2^-24 of their exact sum (all terms positive).
    EXPECT_LE(std::fabs(gs[static_cast<size_t>(i)] - ref_sum), (f - 1) * std::ldexp(1.0, -24) * ref_sum) << i;
  }
}

TEST(NeuronExecutorOps, ReciprocalAndNegatedReduce) {
  KernelBuilder b(spec_for("v2"));
  View x = b.sbuf("x", 128, 40, DType::f32), r = b.sbuf("r", 128, 40, DType::f32), m = b.sbuf("m", 128, 1, DType::f32);
  View rb = b.sbuf("rb", 128, 40, DType::bf16);
  b.reciprocal(r, x);
  b.reciprocal(rb, x);
  b.reduce(m, x, AluOp::max, /*negate=*/true);
  const Program prog = b.take();
  Executor ex(prog);
  const std::vector<float> vx = randoms(128 * 40, 0.1f, 8, 6);
  ex.set(x, vx);
  ex.run();
  const std::vector<float> gr = ex.get(r), grb = ex.get(rb), gm = ex.get(m);
  for (size_t e = 0; e < vx.size(); ++e) {
    EXPECT_EQ(gr[e], 1.0f / vx[e]);  // IEEE division: the correctly rounded reciprocal (<= 0.5 ULP)
    EXPECT_EQ(grb[e], round_to(DType::bf16, 1.0f / vx[e]));
  }
  for (size_t i = 0; i < 128; ++i) {
    float mx = vx[i * 40];
    for (size_t j = 1; j < 40; ++j) mx = std::max(mx, vx[i * 40 + j]);
    EXPECT_EQ(gm[i], -mx);
  }
}

TEST(NeuronExecutorOps, DmaAccessPatternsBroadcastAndTranspose) {
  KernelBuilder b(spec_for("v3"));
  View h = b.hbm("h", 64, 96, DType::bf16), row = b.hbm("row", 3, 50, DType::f32);
  View t = b.sbuf("t", 96, 64, DType::bf16), w = b.sbuf("w", 128, 50, DType::f32);
  View back = b.hbm("back", 64, 96, DType::bf16);
  b.dma_copy(t, b.pattern(h, 1, 96, 96, 64));                          // t[p, f] = h[f, p]
  b.dma_copy(w, b.pattern(b.slice(row, 1, 1, 0, 50), 0, 128, 1, 50));  // every partition = row 1
  b.dma_copy(b.pattern(back, 1, 96, 96, 64), t);                       // store transposed again: back == h
  const Program prog = b.take();
  Executor ex(prog);
  const std::vector<float> vh = randoms(64 * 96, -1, 1, 7), vr = randoms(150, -1, 1, 8);
  ex.set(h, vh);
  ex.set(row, vr);
  ex.run();
  const std::vector<float> gt = ex.get(t), gw = ex.get(w), gb = ex.get(back);
  for (size_t p = 0; p < 96; ++p)
    for (size_t f = 0; f < 64; ++f) EXPECT_EQ(gt[p * 64 + f], round_to(DType::bf16, vh[f * 96 + p]));
  for (size_t p = 0; p < 128; ++p)
    for (size_t f = 0; f < 50; ++f) EXPECT_EQ(gw[p * 50 + f], vr[50 + f]);
  for (size_t e = 0; e < vh.size(); ++e) EXPECT_EQ(gb[e], round_to(DType::bf16, vh[e]));
}

TEST(NeuronExecutorOps, Fp8DoubleRowMatmulMatchesFp64) {
  const int64_t k = 128, m = 96, n = 200;
  KernelBuilder b(spec_for("v4"));
  View s0 = b.sbuf("s0", k, m, DType::f8e4m3), s1 = b.sbuf("s1", k, m, DType::f8e5m2);
  View m0 = b.sbuf("m0", k, n, DType::f8e4m3), m1 = b.sbuf("m1", k, n, DType::f8e4m3);
  View acc = b.psum("acc", m, n, DType::f32);
  b.matmul_double_row(acc, s0, s1, m0, m1);
  const Program prog = b.take();
  Executor ex(prog);
  std::vector<std::vector<float>> v;
  for (unsigned i = 0; i < 4; ++i) v.push_back(randoms(static_cast<size_t>(k * (i % 2 == 0 ? m : n)), -3, 3, 10 + i));
  // v[0] = s0, v[1] = m0, v[2] = s1, v[3] = m1 (sizes k*m, k*n, k*m, k*n)
  ex.set(s0, v[0]);
  ex.set(m0, v[1]);
  ex.set(s1, v[2]);
  ex.set(m1, v[3]);
  ex.run();
  const std::vector<float> got = ex.get(acc);
  const double gamma = (2 * k + 1) * std::ldexp(1.0, -24);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        const double p0 = double(round_to(DType::f8e4m3, v[0][static_cast<size_t>(kk * m + i)])) *
                          round_to(DType::f8e4m3, v[1][static_cast<size_t>(kk * n + j)]);
        const double p1 = double(round_to(DType::f8e5m2, v[2][static_cast<size_t>(kk * m + i)])) *
                          round_to(DType::f8e4m3, v[3][static_cast<size_t>(kk * n + j)]);
        ref += p0 + p1;
        mag += std::fabs(p0) + std::fabs(p1);
      }
      EXPECT_LE(std::fabs(got[static_cast<size_t>(i * n + j)] - ref), gamma * mag) << i << "," << j;
    }
}

TEST(NeuronExecutorOps, MxMatmulWithBlockScalesMatchesFp64) {
  const int64_t k = 64, m = 40, n = 72;
  KernelBuilder b(spec_for("v4"));
  std::array<View, 4> st, mv;
  for (int j = 0; j < 4; ++j) {
    st[static_cast<size_t>(j)] = b.sbuf("st" + std::to_string(j), k, m, j % 2 ? DType::f8e5m2 : DType::f8e4m3);
    mv[static_cast<size_t>(j)] = b.sbuf("mv" + std::to_string(j), k, n, DType::f8e4m3);
  }
  View ss = b.sbuf("ss", k / 8, m, DType::i32), sm = b.sbuf("sm", k / 8, n, DType::i32);
  View acc = b.psum("acc", m, n, DType::f32);
  b.matmul_mx(acc, st, mv, ss, sm);
  const Program prog = b.take();
  Executor ex(prog);
  std::vector<std::vector<float>> vs, vm;
  for (unsigned j = 0; j < 4; ++j) {
    vs.push_back(randoms(static_cast<size_t>(k * m), -2, 2, 20 + j));
    vm.push_back(randoms(static_cast<size_t>(k * n), -2, 2, 30 + j));
    ex.set(st[j], vs[j]);
    ex.set(mv[j], vm[j]);
  }
  std::vector<float> es(static_cast<size_t>(k / 8 * m)), em(static_cast<size_t>(k / 8 * n));
  std::mt19937 g(5);
  for (float& e : es) e = static_cast<float>(std::uniform_int_distribution<int>(-6, 6)(g));
  for (float& e : em) e = static_cast<float>(std::uniform_int_distribution<int>(-6, 6)(g));
  ex.set(ss, es);
  ex.set(sm, em);
  ex.run();
  const std::vector<float> got = ex.get(acc);
  const double gamma = (4 * k + 1) * std::ldexp(1.0, -24);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t c = 0; c < n; ++c) {
      double ref = 0, mag = 0;
      for (unsigned j = 0; j < 4; ++j)
        for (int64_t kk = 0; kk < k; ++kk) {
          const double a = round_to(j % 2 ? DType::f8e5m2 : DType::f8e4m3, vs[j][static_cast<size_t>(kk * m + i)]);
          const double x = round_to(DType::f8e4m3, vm[j][static_cast<size_t>(kk * n + c)]);
          const double scale = std::ldexp(
              1.0, static_cast<int>(es[static_cast<size_t>(kk / 8 * m + i)] + em[static_cast<size_t>(kk / 8 * n + c)]));
          ref += a * x * scale;
          mag += std::fabs(a * x * scale);
        }
      EXPECT_LE(std::fabs(got[static_cast<size_t>(i * n + c)] - ref), gamma * mag) << i << "," << c;
    }
}

}  // namespace
}  // namespace nanotrn::neuron
