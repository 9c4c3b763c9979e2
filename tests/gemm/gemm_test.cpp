// Tests of the host GEMM backend (src/gemm) against a naive fp64 reference written here: fp32, bf16-in/fp32-out and
// strided batched, all four transpose combinations, odd and non-square sizes, padded leading dimensions, alpha/beta
// (including beta = 0 over NaNs), k = 0, and argument errors.
// Deliberately NOT here: performance (bench/gemm_bench_*.cpp), and any dependency on the dtype module (the bf16 bit
// conversion is done locally).
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/error.h"
#include "gemm/gemm.h"
#include "support/cpuinfo.h"

namespace nanotrn {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kEpsF32 = 1.1920928955078125e-07;  // 2^-23

// fp32 -> bf16 bits, round to nearest even (finite inputs only), and back.
uint16_t to_bf16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}
float from_bf16(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

std::vector<float> random_vec(std::size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// Element (i, p) of op(X) where X is stored with leading dimension ld, transposed or not.
template <typename T>
T at(const T* x, int64_t ld, bool trans, int64_t i, int64_t p) {
  return trans ? x[p * ld + i] : x[i * ld + p];
}

// Checks one m x n block of C against the fp64 reference computed from the exact input values `a`, `b` (already
// bf16-rounded for the bf16 path) and the original C `c0`. Error bound (standard dot-product bound, fp32 accumulation,
// exact bf16 products): |c - ref| <= (k + 2) * eps_f32 * (|alpha| * sum_p |a_ip||b_pj| + |beta * c0_ij|) + 1e-30.
void expect_matches(const GemmDims& d, float alpha, const float* a, const float* b, float beta, const float* c0,
                    const float* c) {
  int bad = 0;
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t j = 0; j < d.n; ++j) {
      double acc = 0.0, mag = 0.0;
      for (int64_t p = 0; p < d.k; ++p) {
        const double x = at(a, d.lda, d.trans_a, i, p), y = at(b, d.ldb, d.trans_b, p, j);
        acc += x * y;
        mag += std::fabs(x * y);
      }
      double ref = double{alpha} * acc, scale = std::fabs(double{alpha}) * mag;
      if (beta != 0.0f) {
        ref += double{beta} * c0[i * d.ldc + j];
        scale += std::fabs(double{beta} * c0[i * d.ldc + j]);
      }
      const double got = c[i * d.ldc + j];
      const double tol = (static_cast<double>(d.k) + 2.0) * kEpsF32 * scale + 1e-30;
      if (!(std::fabs(got - ref) <= tol) && bad++ < 5) {
        ADD_FAILURE() << "C(" << i << "," << j << ") = " << got << ", reference " << ref << ", tolerance " << tol;
      }
    }
  }
  EXPECT_EQ(bad, 0) << bad << " of " << d.m * d.n << " elements out of tolerance";
}

// Storage sizes for op(A) m x k, op(B) k x n, C m x n with the given leading dimensions.
int64_t a_size(const GemmDims& d) { return d.trans_a ? d.k * d.lda : d.m * d.lda; }
int64_t b_size(const GemmDims& d) { return d.trans_b ? d.n * d.ldb : d.k * d.ldb; }

GemmDims dims(bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t pad) {
  GemmDims d;
  d.trans_a = ta;
  d.trans_b = tb;
  d.m = m;
  d.n = n;
  d.k = k;
  d.lda = (ta ? m : k) + pad;
  d.ldb = (tb ? k : n) + pad;
  d.ldc = n + pad;
  return d;
}

struct AlphaBeta {
  float alpha, beta;
  bool nan_c;  // fill C with NaN before the call (only with beta == 0)
};
const AlphaBeta kAlphaBetas[] = {{1.0f, 0.0f, true}, {0.5f, 2.0f, false}, {-1.5f, 1.0f, false}, {1.0f, -0.25f, false}};

enum class Path { kF32, kBf16 };

// Runs one GEMM through `path` and compares it with the reference.
void run_case(Gemm& gemm, Path path, const GemmDims& d, const AlphaBeta& ab, uint32_t seed) {
  SCOPED_TRACE(testing::Message() << (path == Path::kF32 ? "f32" : "bf16") << " " << (d.trans_a ? "T" : "N")
                                  << (d.trans_b ? "T" : "N") << " m=" << d.m << " n=" << d.n << " k=" << d.k
                                  << " lda=" << d.lda << " ldb=" << d.ldb << " ldc=" << d.ldc << " alpha=" << ab.alpha
                                  << " beta=" << ab.beta);
  std::vector<float> a = random_vec(a_size(d), seed), b = random_vec(b_size(d), seed + 1);
  std::vector<float> c0 = ab.nan_c ? std::vector<float>(d.m * d.ldc, kNaN) : random_vec(d.m * d.ldc, seed + 2);
  std::vector<float> c = c0;
  if (path == Path::kF32) {
    gemm.f32(d, ab.alpha, a.data(), b.data(), ab.beta, c.data());
  } else {
    std::vector<uint16_t> ah(a.size()), bh(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) ah[i] = to_bf16(a[i]), a[i] = from_bf16(ah[i]);
    for (std::size_t i = 0; i < b.size(); ++i) bh[i] = to_bf16(b[i]), b[i] = from_bf16(bh[i]);
    gemm.bf16(d, ab.alpha, ah.data(), bh.data(), ab.beta, c.data());
  }
  expect_matches(d, ab.alpha, a.data(), b.data(), ab.beta, c0.data(), c.data());
  // Padding between rows of C is never written.
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t j = d.n; j < d.ldc; ++j) {
      const float before = c0[i * d.ldc + j], after = c[i * d.ldc + j];
      ASSERT_TRUE(std::bit_cast<uint32_t>(before) == std::bit_cast<uint32_t>(after))
          << "padding C(" << i << "," << j << ") was written";
    }
  }
}

const char* kernel_name(GemmKernel k) { return k == GemmKernel::kJitGemm ? "gemm:jit" : "brgemm"; }

void sweep(Path path, GemmKernel kernel, Bf16Mode bf16 = Bf16Mode::kAuto) {
  SCOPED_TRACE(kernel_name(kernel));
  Gemm gemm(kernel, bf16);
  const int64_t sizes[] = {1, 3, 17, 130};
  uint32_t seed = 1;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (int64_t m : sizes) {
        for (int64_t n : sizes) {
          for (int64_t k : sizes) {
            const int64_t pad = (m + n + k) % 2 ? 5 : 0;  // half the cases with ld > row length
            const AlphaBeta& ab = kAlphaBetas[seed % std::size(kAlphaBetas)];
            run_case(gemm, path, dims(ta, tb, m, n, k, pad), ab, seed++);
            if (testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

// Both kernel families oneDNN offers are checked: the default (gemm:jit) and brgemm, which handles the dense cases.
TEST(Gemm, F32AllTransposesOddSizes) {
  for (GemmKernel k : {GemmKernel::kJitGemm, GemmKernel::kBrgemm}) sweep(Path::kF32, k);
}
TEST(Gemm, Bf16AllTransposesOddSizes) {
  for (GemmKernel k : {GemmKernel::kJitGemm, GemmKernel::kBrgemm}) sweep(Path::kBf16, k);
}

TEST(Gemm, AllAlphaBetaCombinationsBothPaths) {
  Gemm gemm;
  uint32_t seed = 100;
  for (Path path : {Path::kF32, Path::kBf16}) {
    for (const AlphaBeta& ab : kAlphaBetas) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) run_case(gemm, path, dims(ta, tb, 33, 47, 29, 3), ab, seed++);
      }
    }
  }
}

// Large enough for the blocked kernels with full blocks and tails in every dimension, and the 2-thread split.
TEST(Gemm, LargerShapesWithTails) {
  uint32_t seed = 200;
  for (GemmKernel kernel : {GemmKernel::kJitGemm, GemmKernel::kBrgemm}) {
    SCOPED_TRACE(kernel_name(kernel));
    Gemm gemm(kernel);
    for (Path path : {Path::kF32, Path::kBf16}) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          for (int64_t pad : {0, 7}) {
            run_case(gemm, path, dims(ta, tb, 259, 389, 517, pad), kAlphaBetas[seed % 4], seed);
            ++seed;
          }
        }
      }
    }
  }
}

TEST(Gemm, SameResultWithOneAndTwoThreads) {
  Gemm gemm;
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    run_case(gemm, Path::kF32, dims(false, true, 200, 300, 160, 0), kAlphaBetas[0], 300);
    run_case(gemm, Path::kBf16, dims(true, false, 200, 300, 160, 0), kAlphaBetas[2], 301);
  }
  omp_set_num_threads(saved);
}

TEST(Gemm, CachesOnePrimitivePerConfiguration) {
  Gemm gemm;
  const GemmDims d = dims(false, false, 8, 8, 8, 0);
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 0.0f);
  gemm.f32(d, 1.0f, a.data(), b.data(), 0.0f, c.data());
  gemm.f32(d, 1.0f, a.data(), b.data(), 0.0f, c.data());
  EXPECT_EQ(gemm.cached_primitives(), 1u);
  gemm.f32(d, 1.0f, a.data(), b.data(), 1.0f, c.data());  // beta changes the primitive (sum post-op)
  EXPECT_EQ(gemm.cached_primitives(), 2u);
  gemm.f32(d, 3.0f, a.data(), b.data(), 0.0f, c.data());  // alpha is a creation-time output scale
  EXPECT_EQ(gemm.cached_primitives(), 3u);
  EXPECT_FLOAT_EQ(c[0], 24.0f);
  gemm.f32(d, 3.0f, a.data(), b.data(), 0.0f, c.data());
  EXPECT_EQ(gemm.cached_primitives(), 3u);
  Gemm moved = std::move(gemm);
  moved.f32(d, 2.0f, a.data(), b.data(), 0.0f, c.data());
  EXPECT_FLOAT_EQ(c[63], 16.0f);
}

// Batched: checks every C_i against the reference of its own A_i, B_i.
void run_batched(Gemm& gemm, Path path, const GemmDims& d, int64_t batch, int64_t sa, int64_t sb, int64_t sc,
                 const AlphaBeta& ab, uint32_t seed) {
  SCOPED_TRACE(testing::Message() << (path == Path::kF32 ? "f32" : "bf16") << " batch=" << batch << " stride_a=" << sa
                                  << " stride_b=" << sb << " stride_c=" << sc << " " << (d.trans_a ? "T" : "N")
                                  << (d.trans_b ? "T" : "N") << " m=" << d.m << " n=" << d.n << " k=" << d.k);
  std::vector<float> a = random_vec(sa * (batch - 1) + a_size(d), seed);
  std::vector<float> b = random_vec(sb * (batch - 1) + b_size(d), seed + 1);
  const std::size_t c_len = sc * (batch - 1) + d.m * d.ldc;
  std::vector<float> c0 = ab.nan_c ? std::vector<float>(c_len, kNaN) : random_vec(c_len, seed + 2);
  std::vector<float> c = c0;
  if (path == Path::kF32) {
    gemm.f32_batched(d, batch, sa, sb, sc, ab.alpha, a.data(), b.data(), ab.beta, c.data());
  } else {
    std::vector<uint16_t> ah(a.size()), bh(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) ah[i] = to_bf16(a[i]), a[i] = from_bf16(ah[i]);
    for (std::size_t i = 0; i < b.size(); ++i) bh[i] = to_bf16(b[i]), b[i] = from_bf16(bh[i]);
    gemm.bf16_batched(d, batch, sa, sb, sc, ab.alpha, ah.data(), bh.data(), ab.beta, c.data());
  }
  for (int64_t i = 0; i < batch; ++i) {
    SCOPED_TRACE(testing::Message() << "batch entry " << i);
    expect_matches(d, ab.alpha, a.data() + i * sa, b.data() + i * sb, ab.beta, c0.data() + i * sc, c.data() + i * sc);
  }
}

TEST(Gemm, BatchedDenseAndPaddedStrides) {
  uint32_t seed = 400;
  for (GemmKernel kernel : {GemmKernel::kJitGemm, GemmKernel::kBrgemm})
    for (Path path : {Path::kF32, Path::kBf16}) {
      SCOPED_TRACE(kernel_name(kernel));
      Gemm gemm(kernel);
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          const GemmDims d = dims(ta, tb, 17, 30, 13, seed % 3 ? 2 : 0);
          const int64_t sa = a_size(d), sb = b_size(d), sc = d.m * d.ldc;
          run_batched(gemm, path, d, 5, sa, sb, sc, kAlphaBetas[seed % 4], seed);
          ++seed;
          run_batched(gemm, path, d, 3, sa + 11, sb + 7, sc + 3, kAlphaBetas[seed % 4], seed);  // gaps between entries
          ++seed;
        }
      }
    }
}

TEST(Gemm, BatchedBroadcastOperand) {
  Gemm gemm;
  const GemmDims d = dims(false, true, 9, 12, 20, 0);
  run_batched(gemm, Path::kF32, d, 4, a_size(d), 0, d.m * d.ldc, kAlphaBetas[0], 500);  // same B for every entry
  run_batched(gemm, Path::kF32, d, 4, 0, b_size(d), d.m * d.ldc, kAlphaBetas[1], 501);  // same A for every entry
  run_batched(gemm, Path::kBf16, d, 4, 0, b_size(d), d.m * d.ldc, kAlphaBetas[2], 502);
}

// Attention layout: Q and K stored [T, H, Dh]; head h is the T x Dh matrix at offset h*Dh with row stride H*Dh.
// S_h = Q_h K_h^T is batched with stride_a = stride_b = Dh (entries interleave within rows).
TEST(Gemm, BatchedInterleavedHeads) {
  Gemm gemm;
  const int64_t t = 37, heads = 4, dh = 16;
  GemmDims d;
  d.trans_b = true;
  d.m = t, d.n = t, d.k = dh, d.lda = heads * dh, d.ldb = heads * dh, d.ldc = t;
  for (Path path : {Path::kF32, Path::kBf16}) run_batched(gemm, path, d, heads, dh, dh, t * t, kAlphaBetas[0], 600);
  // And O_h = P_h V_h written back interleaved: O[T, H, Dh], C_h at offset h*Dh with ldc = H*Dh, stride_c = Dh.
  GemmDims pv;
  pv.m = t, pv.n = dh, pv.k = t, pv.lda = t, pv.ldb = heads * dh, pv.ldc = heads * dh;
  for (Path path : {Path::kF32, Path::kBf16}) run_batched(gemm, path, pv, heads, t * t, dh, dh, kAlphaBetas[1], 602);
}

TEST(Gemm, KZeroScalesC) {
  Gemm gemm;
  GemmDims d = dims(false, false, 3, 4, 0, 1);
  std::vector<float> c(d.m * d.ldc, 2.0f);
  gemm.f32(d, 1.0f, nullptr, nullptr, 0.5f, c.data());
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t j = 0; j < d.n; ++j) EXPECT_EQ(c[i * d.ldc + j], 1.0f);
    EXPECT_EQ(c[i * d.ldc + d.n], 2.0f);  // padding untouched
  }
  std::fill(c.begin(), c.end(), kNaN);
  gemm.bf16(d, 1.0f, nullptr, nullptr, 0.0f, c.data());
  for (int64_t i = 0; i < d.m; ++i) {
    for (int64_t j = 0; j < d.n; ++j) EXPECT_EQ(c[i * d.ldc + j], 0.0f);
  }
  std::fill(c.begin(), c.end(), 3.0f);
  gemm.f32_batched(dims(false, false, 1, 2, 0, 0), 2, 0, 0, 2, 1.0f, nullptr, nullptr, -1.0f, c.data());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(c[i], -3.0f);
  EXPECT_EQ(c[4], 3.0f);
}

TEST(Gemm, AlphaZeroDoesNotReadAOrB) {
  Gemm gemm;
  const GemmDims d = dims(false, false, 4, 5, 6, 0);
  std::vector<float> a(24, kNaN), b(30, kNaN), c(20, 4.0f);
  gemm.f32(d, 0.0f, a.data(), b.data(), 0.25f, c.data());
  for (float x : c) EXPECT_EQ(x, 1.0f);
}

TEST(Gemm, EmptyOutputIsANoOp) {
  Gemm gemm;
  gemm.f32(dims(false, false, 0, 5, 7, 0), 1.0f, nullptr, nullptr, 0.0f, nullptr);
  gemm.f32(dims(true, true, 5, 0, 7, 0), 1.0f, nullptr, nullptr, 0.0f, nullptr);
  gemm.f32_batched(dims(false, false, 5, 5, 5, 0), 0, 0, 0, 0, 1.0f, nullptr, nullptr, 0.0f, nullptr);
  EXPECT_EQ(gemm.cached_primitives(), 0u);
}

// Expects `fn` to throw nanotrn::Error whose message contains `needle`.
template <typename Fn>
void expect_error(Fn fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown; expected one mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find(needle), std::string::npos) << "message: " << e.message();
  }
}

TEST(Gemm, BadArgumentsThrowNamingTheValue) {
  Gemm gemm;
  std::vector<float> buf(4096, 0.0f);
  float* p = buf.data();
  auto f32 = [&](GemmDims d) { gemm.f32(d, 1.0f, p, p, 0.0f, p); };
  GemmDims d = dims(false, false, 4, 5, 6, 0);
  d.lda = 5;
  expect_error([&] { f32(d); }, "lda=5");
  d = dims(true, false, 4, 5, 6, 0);
  d.lda = 3;
  expect_error([&] { f32(d); }, "lda=3 is less than the stored row length 4");
  d = dims(false, true, 4, 5, 6, 0);
  d.ldb = 5;
  expect_error([&] { f32(d); }, "ldb=5");
  d = dims(false, false, 4, 5, 6, 0);
  d.ldc = 4;
  expect_error([&] { f32(d); }, "ldc=4");
  d.ldc = 5;
  d.m = -1;
  expect_error([&] { f32(d); }, "m=-1");
  d.m = 4;
  d.n = -2;
  expect_error([&] { f32(d); }, "n=-2");
  d = dims(false, false, 4, 5, 6, 0);
  d.k = -3;
  expect_error([&] { f32(d); }, "k=-3");
  d = dims(false, false, 4, 5, 6, 0);
  expect_error([&] { gemm.f32(d, 1.0f, nullptr, p, 0.0f, p); }, "a is null");
  expect_error([&] { gemm.f32(d, 1.0f, p, p, 0.0f, nullptr); }, "c is null");
  std::vector<uint16_t> h(4096, 0);
  expect_error([&] { gemm.bf16(d, 1.0f, h.data(), nullptr, 0.0f, p); }, "b is null");
  expect_error([&] { gemm.f32_batched(d, -1, 0, 0, 20, 1.0f, p, p, 0.0f, p); }, "batch=-1");
  expect_error([&] { gemm.f32_batched(d, 2, -24, 0, 20, 1.0f, p, p, 0.0f, p); }, "stride_a=-24");
  expect_error([&] { gemm.f32_batched(d, 2, 24, 30, 19, 1.0f, p, p, 0.0f, p); }, "stride_c=19");
  expect_error([&] { gemm.bf16_batched(d, 2, 24, 30, 0, 1.0f, h.data(), h.data(), 0.0f, p); }, "stride_c=0");
}

// The emulated bf16 path (bf16 widened to f32, the f32 GEMM) on every layout, whatever the CPU: on an AVX-512 machine
// the default path is native, so this is where the emulation is checked there.
TEST(Gemm, EmulatedBf16AllLayouts) {
  for (GemmKernel k : {GemmKernel::kJitGemm, GemmKernel::kBrgemm}) sweep(Path::kBf16, k, Bf16Mode::kEmulated);
  Gemm gemm(GemmKernel::kJitGemm, Bf16Mode::kEmulated);
  ASSERT_EQ(gemm.bf16_support().path, Bf16Path::kEmulated);
  uint32_t seed = 700;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const GemmDims d = dims(ta, tb, 17, 30, 13, 2);
      run_batched(gemm, Path::kBf16, d, 3, a_size(d) + 11, b_size(d) + 7, d.m * d.ldc + 3, kAlphaBetas[seed % 4], seed);
      ++seed;
    }
  const GemmDims d = dims(false, true, 9, 12, 20, 0);
  run_batched(gemm, Path::kBf16, d, 4, 0, b_size(d), d.m * d.ldc, kAlphaBetas[2], seed++);  // broadcast A
  run_batched(gemm, Path::kBf16, d, 4, a_size(d), 0, d.m * d.ldc, kAlphaBetas[1], seed++);  // broadcast B
  GemmDims heads;  // attention heads interleaved in rows: [T, H, Dh]
  heads.trans_b = true;
  heads.m = 37, heads.n = 37, heads.k = 16, heads.lda = 64, heads.ldb = 64, heads.ldc = 37;
  run_batched(gemm, Path::kBf16, heads, 4, 16, 16, 37 * 37, kAlphaBetas[0], seed++);
}

// Whether oneDNN's bf16 matmul exists, checked against /proc/cpuinfo: oneDNN 2.6 has one from avx512_core (AVX-512
// F, BW, VL, DQ) up, unless ONEDNN_MAX_CPU_ISA / DNNL_MAX_CPU_ISA caps it below. Where it is absent, auto falls
// back to the emulation and a required native path is an error that says why.
TEST(Gemm, Bf16PathFollowsTheCpu) {
  const testing_support::CpuinfoFlags flags = testing_support::read_cpuinfo_flags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags line on this system (not Linux)";
  const auto has = [&flags](const char* f) { return flags.has(f); };
  const bool avx512_core = has("avx512f") && has("avx512bw") && has("avx512vl") && has("avx512dq");
  std::string cap;
  for (const char* var : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"})
    if (const char* v = std::getenv(var)) cap = v;
  std::transform(cap.begin(), cap.end(), cap.begin(), [](unsigned char ch) { return std::tolower(ch); });
  const bool capped = !cap.empty() && cap.find("avx512") == std::string::npos && cap != "all";
  Gemm gemm;
  const Bf16Support& s = gemm.bf16_support();
  RecordProperty("bf16", s.reason);
  if (avx512_core && !capped) {
    EXPECT_EQ(s.path, Bf16Path::kNative) << s.reason;
    EXPECT_NO_THROW(Gemm(GemmKernel::kJitGemm, Bf16Mode::kNative));
  } else {
    EXPECT_EQ(s.path, Bf16Path::kEmulated) << s.reason;
    EXPECT_NE(s.reason.find("widened exactly to f32"), std::string::npos) << s.reason;
    expect_error([] { Gemm g(GemmKernel::kJitGemm, Bf16Mode::kNative); }, "native bf16 was required");
  }
  EXPECT_NE(gemm.describe().find(s.path == Bf16Path::kNative ? "bf16->f32: native" : "bf16->f32: emulated"),
            std::string::npos)
      << gemm.describe();
}

TEST(Gemm, DescribeNamesTheLibraryAndKernels) {
  Gemm gemm;
  const std::string s = gemm.describe();
  EXPECT_NE(s.find("oneDNN"), std::string::npos) << s;
  EXPECT_NE(s.find("f32: "), std::string::npos) << s;
  RecordProperty("describe", s);
  std::printf("%s\n", s.c_str());
}

}  // namespace
}  // namespace nanotrn
