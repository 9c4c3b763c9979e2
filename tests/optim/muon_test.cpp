// Muon against independent references: the scalar test vectors of recipe-spec §9.4, the singular values of the
// orthogonalised matrix (Jacobi eigen-decomposition in fp64) against the scalar map, and a full step against an fp64
// re-implementation of the update rule written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "base/error.h"
#include "dtype/convert.h"
#include "optim/muon.h"

namespace nanotrn {
namespace {

using Mat = std::vector<double>;  // row-major

Mat matmul(const Mat& a, const Mat& b, int64_t m, int64_t k, int64_t n) {
  Mat c(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++) {
      for (int64_t l = 0; l < k; l++) c[i * n + j] += a[i * k + l] * b[l * n + j];
    }
  }
  return c;
}

Mat transpose(const Mat& a, int64_t r, int64_t c) {
  Mat t(a.size());
  for (int64_t i = 0; i < r; i++) {
    for (int64_t j = 0; j < c; j++) t[j * r + i] = a[i * c + j];
  }
  return t;
}

// Eigenvalues of a symmetric n x n matrix by cyclic Jacobi rotations.
std::vector<double> symmetric_eigenvalues(Mat a, int64_t n) {
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0.0;
    for (int64_t p = 0; p < n; p++) {
      for (int64_t q = p + 1; q < n; q++) off += a[p * n + q] * a[p * n + q];
    }
    if (off < 1e-30) break;
    for (int64_t p = 0; p < n; p++) {
      for (int64_t q = p + 1; q < n; q++) {
        if (std::fabs(a[p * n + q]) < 1e-300) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * a[p * n + q]);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int64_t k = 0; k < n; k++) {  // rotate columns p, q
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; k++) {  // rotate rows p, q
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
      }
    }
  }
  std::vector<double> ev(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) ev[i] = a[i * n + i];
  return ev;
}

std::vector<double> singular_values(const Mat& x, int64_t r, int64_t c) {
  const int64_t s = std::min(r, c);
  const Mat g = r <= c ? matmul(x, transpose(x, r, c), r, c, r) : matmul(transpose(x, r, c), x, c, r, c);
  std::vector<double> ev = symmetric_eigenvalues(g, s);
  for (double& v : ev) v = std::sqrt(std::max(0.0, v));
  std::sort(ev.begin(), ev.end());
  return ev;
}

// x scaled to Frobenius norm 1/1.02, as Muon's normalisation leaves X.
void normalise(Mat& x) {
  double norm = 0.0;
  for (double v : x) norm += v * v;
  for (double& v : x) v /= 1.02 * std::sqrt(norm);
}

TEST(Muon, ScalarMapMatchesTheSpecTestVectors) {
  // recipe-spec §9.4: sigma0 -> (classic x5, Polar Express x5), given to 4 decimals.
  const double table[7][3] = {{0.001, 0.4705, 0.8589}, {0.01, 0.6989, 1.0271}, {0.1, 0.7121, 1.0592},
                              {0.3, 1.0796, 0.9831},   {0.5, 0.7654, 0.9106},  {0.8, 1.1192, 1.0338},
                              {1.0, 0.6964, 0.8591}};
  for (const auto& row : table) {
    EXPECT_NEAR(muon_singular_value_map(row[0], MuonCoefficients::classic, 5), row[1], 5e-5) << row[0];
    EXPECT_NEAR(muon_singular_value_map(row[0], MuonCoefficients::polar_express, 5), row[2], 5e-5) << row[0];
  }
  EXPECT_NEAR(muon_singular_value_map(1.0, MuonCoefficients::classic, 1), 0.7010, 1e-12);  // p(1) = a + b + c
}

TEST(Muon, OrthogonalizationMapsEachSingularValue) {
  Gemm gemm;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> nd(0.0, 1.0);
  // 72 x 150: a Gram side of 72, three block-rows of the symmetric products (32, 32, 8). The default (kAuto) runs the
  // polynomial iteration on 72 x 150 and 160 x 40 (tall, 4:1), the plain one on the small and square shapes.
  for (auto [r, c] : {std::pair<int64_t, int64_t>{6, 10}, {12, 5}, {8, 8}, {72, 150}, {160, 40}}) {
    for (auto kind : {MuonCoefficients::classic, MuonCoefficients::polar_express}) {
      Mat x(static_cast<size_t>(r * c));
      for (double& v : x) v = nd(rng);
      normalise(x);
      std::vector<double> expect = singular_values(x, r, c);
      for (double& s : expect) s = muon_singular_value_map(s, kind, 5);
      std::sort(expect.begin(), expect.end());
      std::vector<float> xf(x.begin(), x.end());
      muon_orthogonalize(gemm, xf.data(), r, c, kind, 5);
      const std::vector<double> got = singular_values(Mat(xf.begin(), xf.end()), r, c);
      for (size_t i = 0; i < got.size(); i++) {
        EXPECT_NEAR(got[i], expect[i], 2e-3) << r << "x" << c << " singular value " << i;
      }
    }
  }
}

// bf16 Newton-Schulz (operands rounded to bf16, fp32 accumulation) still maps each singular value as the scalar map
// says, within what bf16's 8-bit mantissa allows over 5 iterations whose first step has slope 8 (measured worst
// case here: 0.06 absolute), and stays within a few per cent of the fp32 result.
TEST(Muon, Bf16OrthogonalizationMapsEachSingularValueApproximately) {
  Gemm gemm;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (auto [r, c] : {std::pair<int64_t, int64_t>{16, 40}, {48, 12}}) {
    Mat x(static_cast<size_t>(r * c));
    for (double& v : x) v = nd(rng);
    normalise(x);
    std::vector<double> expect = singular_values(x, r, c);
    for (double& s : expect) s = muon_singular_value_map(s, MuonCoefficients::polar_express, 5);
    std::sort(expect.begin(), expect.end());
    std::vector<float> xf(x.begin(), x.end()), x32 = xf;
    muon_orthogonalize(gemm, xf.data(), r, c, MuonCoefficients::polar_express, 5, DType::bf16);
    muon_orthogonalize(gemm, x32.data(), r, c, MuonCoefficients::polar_express, 5, DType::f32);
    const std::vector<double> got = singular_values(Mat(xf.begin(), xf.end()), r, c);
    for (size_t i = 0; i < got.size(); i++) {
      EXPECT_NEAR(got[i], expect[i], 0.1) << r << "x" << c << " singular value " << i;
    }
    double diff = 0.0, ref = 0.0;
    for (size_t i = 0; i < xf.size(); i++) {
      diff += (static_cast<double>(xf[i]) - x32[i]) * (static_cast<double>(xf[i]) - x32[i]);
      ref += static_cast<double>(x32[i]) * x32[i];
    }
    EXPECT_LT(std::sqrt(diff / ref), 0.08) << r << "x" << c;
    EXPECT_GT(diff, 0.0);  // the bf16 path really rounds
  }
}

// The plain iteration in fp64 (X <- a X + (b A + c A^2) X, A = X X^T; tall X through its transpose): the reference
// the fp32 iterations are measured against.
Mat plain_iteration_fp64(Mat x, int64_t r, int64_t c, MuonCoefficients kind, int steps) {
  const bool tall = r > c;
  if (tall) x = transpose(x, r, c), std::swap(r, c);
  for (int it = 0; it < steps; it++) {
    const auto [a, b, cc] = muon_coefficients(kind, it);
    const Mat A = matmul(x, transpose(x, r, c), r, c, r);
    Mat B = matmul(A, A, r, r, r);
    for (size_t i = 0; i < B.size(); i++) B[i] = b * A[i] + cc * B[i];
    const Mat bx = matmul(B, x, r, r, c);
    for (size_t i = 0; i < x.size(); i++) x[i] = a * x[i] + bx[i];
  }
  return tall ? transpose(x, r, c) : x;
}

// One Muon step of the documented rule, in fp64.
void reference_step(Mat& p, Mat& buf, std::vector<double>& s, const Mat& g, int64_t r, int64_t c,
                    const MuonOptions& o) {
  Mat u(p.size());
  double norm = 0.0;
  for (size_t j = 0; j < p.size(); j++) {
    buf[j] = buf[j] + (1.0 - o.momentum) * (g[j] - buf[j]);
    u[j] = g[j] + o.momentum * (buf[j] - g[j]);
    norm += u[j] * u[j];
  }
  for (double& v : u) v /= o.norm_scale * std::sqrt(norm) + o.norm_eps;
  u = plain_iteration_fp64(u, r, c, o.coefficients, o.ns_steps);
  const bool per_row = r >= c;
  double before = 0.0, after = 0.0;
  std::vector<double> mean(s.size(), 0.0);
  for (int64_t i = 0; i < r; i++) {
    for (int64_t j = 0; j < c; j++) {
      mean[per_row ? i : j] += u[i * c + j] * u[i * c + j] / static_cast<double>(per_row ? c : r);
      before += u[i * c + j] * u[i * c + j];
    }
  }
  for (size_t k = 0; k < s.size(); k++) s[k] += (1.0 - o.normuon_beta2) * (mean[k] - s[k]);
  for (int64_t i = 0; i < r; i++) {
    for (int64_t j = 0; j < c; j++) {
      u[i * c + j] /= std::sqrt(std::max(s[per_row ? i : j], 1e-10));
      after += u[i * c + j] * u[i * c + j];
    }
  }
  for (double& v : u) v *= std::sqrt(before / after);
  const double eta = o.lr * std::sqrt(std::max(1.0, static_cast<double>(r) / static_cast<double>(c)));
  for (size_t j = 0; j < p.size(); j++) {
    const double decay = u[j] * p[j] >= 0 ? eta * o.weight_decay * p[j] : 0.0;
    p[j] -= eta * u[j] + decay;
  }
}

TEST(Muon, StepsMatchAnFp64ReferenceOfTheRule) {
  Gemm gemm;
  std::mt19937_64 rng(11);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (auto [r, c] : {std::pair<int64_t, int64_t>{4, 6}, {6, 3}}) {  // wide, and tall (shape LR factor sqrt 2)
    MuonOptions o;
    o.lr = 0.05f;
    o.weight_decay = 0.2f;
    std::vector<float> pv(static_cast<size_t>(r * c));
    for (float& v : pv) v = nd(rng);
    Tensor p = Tensor::from_vector({r, c}, pv);
    p.set_requires_grad();
    Muon muon(gemm, {&p}, o);
    Mat ref_p(pv.begin(), pv.end()), buf(pv.size(), 0.0);
    std::vector<double> s(static_cast<size_t>(std::max(r, c)), 0.0);
    for (int step = 0; step < 3; step++) {
      std::vector<float> gv(pv.size());
      for (float& v : gv) v = nd(rng);
      p.autograd()->grad = Tensor::from_vector({r, c}, gv);
      muon.step();
      reference_step(ref_p, buf, s, Mat(gv.begin(), gv.end()), r, c, o);
      const std::vector<float> got = p.to_vector();
      for (size_t j = 0; j < got.size(); j++) {
        EXPECT_NEAR(got[j], ref_p[j], 2e-5 + 1e-4 * std::fabs(ref_p[j])) << r << "x" << c << " step " << step;
      }
    }
  }
}

// Where the GEMM emulates bf16 (AVX2; forced here), bf16 Newton-Schulz multiplies operands rounded once and kept in
// f32: bit for bit the iteration written out with every operand's bf16 copy widened by the GEMM itself, wide and tall.
TEST(Muon, EmulatedBf16IsTheWideningPathBitForBit) {
  Gemm g(GemmKernel::kJitGemm, Bf16Mode::kEmulated);
  auto bits = [](const std::vector<float>& v) {
    std::vector<uint16_t> o(v.size());
    convert(v.data(), DType::f32, o.data(), DType::bf16, v.size());
    return o;
  };
  std::mt19937_64 rng(3);
  std::normal_distribution<float> nd(0.0f, 0.05f);
  for (auto [r, c] : {std::pair<int64_t, int64_t>{16, 40}, {48, 12}}) {
    std::vector<float> x(static_cast<size_t>(r * c));
    for (float& v : x) v = nd(rng);
    std::vector<float> got = x;
    muon_orthogonalize(g, got.data(), r, c, MuonCoefficients::polar_express, 5, DType::bf16);
    const bool wide = r <= c;
    const int64_t s = wide ? r : c;
    std::vector<float> A(static_cast<size_t>(s * s)), B(A.size());
    for (int it = 0; it < 5; it++) {
      const auto [ca, cb, cc] = muon_coefficients(MuonCoefficients::polar_express, it);
      const std::vector<uint16_t> xb = bits(x);
      convert(xb.data(), DType::bf16, x.data(), DType::f32, x.size());
      g.bf16(wide ? GemmDims{false, true, s, s, c, c, c, s} : GemmDims{true, false, s, s, r, c, c, s}, 1.0f, xb.data(),
             xb.data(), 0.0f, A.data());
      const std::vector<uint16_t> ab = bits(A);
      g.bf16({false, false, s, s, s, s, s, s}, static_cast<float>(cc), ab.data(), ab.data(), 0.0f, B.data());
      for (size_t i = 0; i < B.size(); i++) B[i] += static_cast<float>(cb) * A[i];
      const std::vector<uint16_t> bb = bits(B);
      std::vector<float> y = x;
      if (wide) {
        g.bf16({false, false, r, c, r, s, c, c}, 1.0f, bb.data(), xb.data(), static_cast<float>(ca), y.data());
      } else {
        g.bf16({false, false, r, c, c, c, s, c}, 1.0f, xb.data(), bb.data(), static_cast<float>(ca), y.data());
      }
      x = y;
    }
    EXPECT_EQ(got, x) << r << "x" << c;
  }
}

TEST(Muon, RejectsNonMatrices) {
  Gemm gemm;
  Tensor v = Tensor::zeros({5});
  EXPECT_THROW(Muon(gemm, {&v}, {}), Error);
}

// Two runs of the iteration on the same matrices agree to fp32 rounding (1e-5 of the largest |x|), or with bf16
// operands to bf16 rounding carried through 5 iterations (3e-2); every element finite, the result not all zero.
void expect_equal_to_rounding(const std::vector<float>& got, const std::vector<float>& ref, const char* what, int64_t r,
                              int64_t c, DType dtype) {
  ASSERT_EQ(got.size(), ref.size());
  double worst = 0.0, scale = 0.0;
  for (size_t i = 0; i < got.size(); i++) {
    ASSERT_TRUE(std::isfinite(got[i]) && std::isfinite(ref[i])) << r << "x" << c << " element " << i;
    worst = std::max(worst, std::fabs(static_cast<double>(got[i]) - ref[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(ref[i])));
  }
  ASSERT_GT(scale, 0.0);
  std::printf("%ldx%ld %s: max |%s| %.3g of max |x| %.3g\n", static_cast<long>(r), static_cast<long>(c),
              std::string(dtype_name(dtype)).c_str(), what, worst, scale);
  EXPECT_LE(worst, (dtype == DType::f32 ? 1e-5 : 3e-2) * scale) << r << "x" << c << " " << dtype_name(dtype);
}

// Stacking matrices of one shape into one batched GEMM per product computes each matrix's own iteration: every result
// agrees with the single-matrix call to fp32 rounding (bf16: to bf16 rounding, carried through 5 iterations), wide and
// tall. Not bit for bit: the library splits a batch over threads differently (seen: matrices 0-1 of 5 equal, 2-4 not),
// which is why a deterministic run does not stack (MuonOptions::stack_same_shapes).
TEST(MuonBatched, EveryMatrixIsTheSingleMatrixCallsToRounding) {
  Gemm gemm;
  std::mt19937_64 rng(5);
  std::normal_distribution<float> nd(0.0f, 0.05f);
  for (auto [r, c] : {std::pair<int64_t, int64_t>{24, 72}, {96, 32}, {64, 64}}) {
    for (DType dtype : {DType::f32, DType::bf16}) {
      const int64_t batch = 5, n = r * c;
      std::vector<float> stacked(static_cast<size_t>(batch * n));
      for (float& v : stacked) v = nd(rng);
      std::vector<float> single = stacked;
      muon_orthogonalize_batched(gemm, stacked.data(), batch, r, c, MuonCoefficients::polar_express, 5, dtype);
      for (int64_t b = 0; b < batch; b++) {
        muon_orthogonalize(gemm, single.data() + b * n, r, c, MuonCoefficients::polar_express, 5, dtype);
      }
      expect_equal_to_rounding(stacked, single, "stacked - single", r, c, dtype);
    }
  }
}

// Normal entries scaled to Frobenius norm 1/1.02 per matrix, as Muon's normalisation leaves X.
std::vector<float> normalised_stack(std::mt19937_64& rng, int64_t batch, int64_t n) {
  std::normal_distribution<float> nd(0.0f, 0.05f);
  std::vector<float> x(static_cast<size_t>(batch * n));
  for (float& v : x) v = nd(rng);
  for (int64_t b = 0; b < batch; b++) {
    double sumsq = 0.0;
    for (int64_t i = 0; i < n; i++) sumsq += static_cast<double>(x[b * n + i]) * x[b * n + i];
    for (int64_t i = 0; i < n; i++) x[b * n + i] /= static_cast<float>(1.02 * std::sqrt(sumsq));
  }
  return x;
}

// The symmetric products (block-rows from the diagonal on, the rest mirrored) compute the plain algorithm's
// iteration: every result equals the full products' to fp32 rounding (bf16: to bf16 rounding carried through 5
// iterations), wide and tall, with block-rows that divide the side and one that does not.
TEST(MuonSymmetric, EqualsTheFullProductsToRounding) {
  Gemm gemm;
  std::mt19937_64 rng(9);
  for (auto [r, c] : {std::pair<int64_t, int64_t>{80, 200}, {300, 100}, {128, 128}}) {
    for (DType dtype : {DType::f32, DType::bf16}) {
      const int64_t batch = 3, n = r * c;
      std::vector<float> sym = normalised_stack(rng, batch, n);
      std::vector<float> full = sym;
      muon_orthogonalize_batched(gemm, sym.data(), batch, r, c, MuonCoefficients::polar_express, 5, dtype,
                                 NewtonSchulzGram::kSymmetric);
      muon_orthogonalize_batched(gemm, full.data(), batch, r, c, MuonCoefficients::polar_express, 5, dtype,
                                 NewtonSchulzGram::kFull);
      expect_equal_to_rounding(sym, full, "symmetric - full", r, c, dtype);
    }
  }
}

// The polynomial iteration (X = Q X_0 per segment of 3 steps, every product side x side) against the fp64 plain
// iteration, wide, tall and square, full-rank and rank-1 inputs (a fresh model's gradients are nearly low-rank), both
// coefficient tables: on every input its fp32 error is below 1 % of the plain iteration's with bf16 operands (what
// nanochat and modded-nanogpt run; measured 1/960 at worst), and on the rectangular full-rank ones, whose smallest
// singular values stay away from 0, within 1.5x the plain fp32 iteration's (measured 0.7-1.0x). Within a segment Q's
// eigenvalues grow to the product of its steps' a (up to 128) for a singular value near 0, and its rounding with them,
// on every direction of X_0: so where the spectrum reaches 0 (rank 1, or square) its error is up to 12x the plain fp32
// iteration's (Polar Express, rank 1; 3x classic), still a thousandth of bf16's.
TEST(MuonPolynomial, AgainstFp64ItIsFarCloserThanBf16AndNearThePlainFp32Iteration) {
  Gemm gemm;
  std::mt19937_64 rng(13);
  std::normal_distribution<double> nd(0.0, 1.0);
  for (auto [r, c] : {std::pair<int64_t, int64_t>{64, 256}, {200, 50}, {64, 64}}) {
    for (bool rank1 : {false, true}) {
      for (auto kind : {MuonCoefficients::classic, MuonCoefficients::polar_express}) {
        Mat x(static_cast<size_t>(r * c));
        std::vector<double> u(static_cast<size_t>(r)), v(static_cast<size_t>(c));
        for (double& e : u) e = nd(rng);
        for (double& e : v) e = nd(rng);
        for (int64_t i = 0; i < r; i++)
          for (int64_t j = 0; j < c; j++) x[i * c + j] = (rank1 ? u[i] * v[j] : 0.0) + (rank1 ? 1e-3 : 1.0) * nd(rng);
        normalise(x);
        const Mat want = plain_iteration_fp64(x, r, c, kind, 5);
        const auto error_of = [&](NewtonSchulzGram mode, DType dtype) {
          std::vector<float> xf(x.begin(), x.end());
          muon_orthogonalize_batched(gemm, xf.data(), 1, r, c, kind, 5, dtype, mode);
          double worst = 0.0;
          for (size_t i = 0; i < xf.size(); i++) worst = std::max(worst, std::fabs(xf[i] - want[i]));
          return worst;
        };
        double scale = 0.0;
        for (double e : want) scale = std::max(scale, std::fabs(e));
        const double poly = error_of(NewtonSchulzGram::kPolynomial, DType::f32);
        const double plain = error_of(NewtonSchulzGram::kFull, DType::f32);
        const double bf16 = error_of(NewtonSchulzGram::kFull, DType::bf16);
        std::printf("%ldx%ld %s: polynomial %.3g, plain %.3g, plain bf16 %.3g of max |x| %.3g\n", static_cast<long>(r),
                    static_cast<long>(c), rank1 ? "rank 1" : "full rank", poly, plain, bf16, scale);
        EXPECT_LE(poly, 0.01 * bf16) << r << "x" << c << (rank1 ? " rank 1" : "");
        if (!rank1 && r != c) {
          EXPECT_LE(poly, 1.5 * plain + 1e-7 * scale) << r << "x" << c;
        }
      }
    }
  }
}

// kAuto is the polynomial iteration where that counts fewer FLOPs in fp32 (a Gram side a quarter of the other) and the
// plain symmetric one otherwise (square; any bf16), bit for bit the mode it picks; bf16 cannot ask for the polynomial.
TEST(MuonPolynomial, AutoPicksByFlopsAndBf16KeepsThePlainIteration) {
  Gemm gemm;
  std::mt19937_64 rng(17);
  const auto run = [&](const std::vector<float>& x0, int64_t r, int64_t c, DType dtype, NewtonSchulzGram mode) {
    std::vector<float> x = x0;
    muon_orthogonalize_batched(gemm, x.data(), 2, r, c, MuonCoefficients::polar_express, 5, dtype, mode);
    return x;
  };
  const std::vector<float> wide = normalised_stack(rng, 2, 64 * 256), square = normalised_stack(rng, 2, 96 * 96);
  EXPECT_EQ(run(wide, 64, 256, DType::f32, NewtonSchulzGram::kAuto),
            run(wide, 64, 256, DType::f32, NewtonSchulzGram::kPolynomial));
  EXPECT_NE(run(wide, 64, 256, DType::f32, NewtonSchulzGram::kAuto),
            run(wide, 64, 256, DType::f32, NewtonSchulzGram::kSymmetric));
  EXPECT_EQ(run(square, 96, 96, DType::f32, NewtonSchulzGram::kAuto),
            run(square, 96, 96, DType::f32, NewtonSchulzGram::kSymmetric));
  EXPECT_EQ(run(wide, 64, 256, DType::bf16, NewtonSchulzGram::kAuto),
            run(wide, 64, 256, DType::bf16, NewtonSchulzGram::kSymmetric));
  std::vector<float> x = wide;
  EXPECT_THROW(muon_orthogonalize_batched(gemm, x.data(), 2, 64, 256, MuonCoefficients::polar_express, 5, DType::bf16,
                                          NewtonSchulzGram::kPolynomial),
               Error);
}

}  // namespace
}  // namespace nanotrn
