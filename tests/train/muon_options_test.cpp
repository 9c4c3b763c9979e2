// The Muon options the trainer derives from a recipe's optim section, checked by running one Muon step on a
// small-gradient matrix against an fp64 evaluation of recipe-spec §3.1's formula (the epsilon written here as the
// spec states it: 1e-7 for classic Newton-Schulz, 1e-6 for Polar Express). With ||u||_F ~ 1e-7 the epsilon decides
// the update, so a wrong epsilon moves it by far more than the tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "train/optimizers.h"

namespace nanotrn::train {
namespace {

using Mat = std::vector<double>;  // row-major

Mat matmul(const Mat& a, const Mat& b, int64_t m, int64_t k, int64_t n) {
  Mat c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; i++)
    for (int64_t l = 0; l < k; l++)
      for (int64_t j = 0; j < n; j++) c[i * n + j] += a[i * k + l] * b[l * n + j];
  return c;
}

// One Muon step on a wide r x c matrix from zero momentum, without NorMuon or weight decay, in fp64: the spec's
// normalisation with the given scale and epsilon, then the quintic iterations, then p -= lr * X.
Mat spec_step(Mat p, const Mat& g, int64_t r, int64_t c, const recipe::OptimConfig& o, double eps) {
  Mat u(g.size());
  double norm = 0.0;
  for (size_t j = 0; j < g.size(); j++) {
    const double buf = (1.0 - o.momentum) * g[j];  // lerp(0, g, 1 - mu)
    u[j] = g[j] + o.momentum * (buf - g[j]);       // Nesterov: lerp(g, buf, mu)
    norm += u[j] * u[j];
  }
  for (double& v : u) v /= o.norm_scale * std::sqrt(norm) + eps;
  for (int it = 0; it < o.ns_steps; it++) {
    const auto [a, b, cc] = muon_coefficients(o.muon_coefficients, it);
    Mat ut(u.size());
    for (int64_t i = 0; i < r; i++)
      for (int64_t j = 0; j < c; j++) ut[j * r + i] = u[i * c + j];
    const Mat A = matmul(u, ut, r, c, r), A2 = matmul(A, A, r, r, r);
    Mat B(A.size());
    for (size_t k = 0; k < B.size(); k++) B[k] = b * A[k] + cc * A2[k];
    const Mat BX = matmul(B, u, r, r, c);
    for (size_t k = 0; k < u.size(); k++) u[k] = a * u[k] + BX[k];
  }
  for (size_t j = 0; j < p.size(); j++) p[j] -= o.matrix_lr * u[j];
  return p;
}

void expect_step_matches_spec(MuonCoefficients kind, float norm_scale, double spec_eps) {
  recipe::OptimConfig config;
  config.muon_coefficients = kind;
  config.norm_scale = norm_scale;
  config.normuon = false;
  config.muon_weight_decay = 0.0f;
  config.muon_dtype = DType::f32;
  const MuonOptions o = muon_options(config, DType::f32);
  constexpr int64_t r = 4, c = 6;
  std::mt19937_64 rng(5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> pv(r * c), gv(r * c);
  for (float& v : pv) v = nd(rng);
  for (float& v : gv) v = 2e-9f * nd(rng);  // ||u||_F ~ 5e-9 * 0.95-ish: far below both epsilons' scale
  Tensor p = Tensor::from_vector({r, c}, pv);
  p.set_requires_grad();
  p.autograd()->grad = Tensor::from_vector({r, c}, gv);
  Gemm gemm;
  Muon muon(gemm, {&p}, o);
  muon.step();
  const Mat want = spec_step(Mat(pv.begin(), pv.end()), Mat(gv.begin(), gv.end()), r, c, config, spec_eps);
  const std::vector<float> got = p.to_vector();
  for (size_t j = 0; j < got.size(); j++) {
    const double delta_want = want[j] - pv[j], delta_got = static_cast<double>(got[j]) - pv[j];
    EXPECT_NEAR(delta_got, delta_want, 1e-6 + 1e-3 * std::fabs(delta_want)) << "element " << j;
  }
}

TEST(MuonOptions, ClassicNormalisesByNormPlus1e7) { expect_step_matches_spec(MuonCoefficients::classic, 1.0f, 1e-7); }

TEST(MuonOptions, PolarExpressNormalisesByScaledNormPlus1e6) {
  expect_step_matches_spec(MuonCoefficients::polar_express, 1.02f, 1e-6);
}

TEST(MuonOptions, AutoNewtonSchulzPrecisionFollowsTheRun) {
  recipe::OptimConfig config;
  config.muon_dtype = std::nullopt;
  EXPECT_EQ(muon_options(config, DType::bf16).ns_dtype, DType::bf16);
  EXPECT_EQ(muon_options(config, DType::f32).ns_dtype, DType::f32);
  config.muon_dtype = DType::f32;
  EXPECT_EQ(muon_options(config, DType::bf16).ns_dtype, DType::f32);
}

}  // namespace
}  // namespace nanotrn::train
