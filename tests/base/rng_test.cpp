// Tests of base/rng.h: Philox4x32-10 known answers, the documented (seed, stream, index) mapping, statistical sanity
// of uniforms and normals, independence of streams and seeds, and that the fill helpers equal the per-index
// functions whatever the thread count.
// Not here: a full statistical battery (TestU01 BigCrush is what the Philox paper reports; we only check moments).
#include "base/rng.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace nanotrn {
namespace {

struct Kat {
  std::array<uint32_t, 4> counter;
  std::array<uint32_t, 2> key;
  std::array<uint32_t, 4> expected;
};

// Known-answer vectors for Philox4x32-10 from the Random123 distribution's kat_vectors file, found with the search
// tool in DEShawResearch/Random123-Boost, libs/random/test/test_philox.cpp (test_kat_philox4x32, "cut-and-pasted
// from the kat_vectors file in the original Random123 distribution"): counter 0 / key 0, all ones, and the pi-digits
// vector. The remaining rows (key words 1/0, 0/1, 0/ffffffff) are philox4x32 R=10 rows of the generated
// kat_vectors in girving/random123-manual, examples/kat_vectors. Each row: counter words 0..3, key words 0..1.
const Kat kKats[] = {
    {{0x00000000, 0x00000000, 0x00000000, 0x00000000},
     {0x00000000, 0x00000000},
     {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    {{0x00000001, 0x00000000, 0x00000000, 0x00000000},
     {0x00000001, 0x00000000},
     {0xac08141b, 0xdfc5ccbe, 0x79c07a47, 0xa7f66093}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
     {0x00000001, 0x00000000},
     {0x38527b8f, 0xfad9a48c, 0x20e675c0, 0xf2fea26a}},
    {{0x00000000, 0x00000000, 0x00000000, 0x00000001},
     {0x00000000, 0x00000001},
     {0x96b27e8c, 0x28826d0f, 0x66d958ef, 0x081509dc}},
    {{0x00000000, 0xffffffff, 0x00000000, 0x00000000},
     {0x00000000, 0xffffffff},
     {0x5f9c47aa, 0x19861d86, 0xff2be81d, 0x4c7db17e}},
};

TEST(Philox, KnownAnswerVectors) {
  for (const Kat& k : kKats) {
    EXPECT_EQ(philox4x32_10(k.counter, k.key), k.expected)
        << std::hex << "counter " << k.counter[0] << " key " << k.key[0];
  }
}

// The documented mapping: key = seed, counter = {index/4 (two words), stream (two words)}, lane = index % 4.
TEST(Rng, MappingFromSeedStreamIndexIsAsDocumented) {
  const uint64_t seeds[] = {0, 1, 0x0123456789abcdefull, ~uint64_t{0}};
  const uint64_t streams[] = {0, 7, 0xfedcba9876543210ull};
  const uint64_t indices[] = {0, 1, 2, 3, 4, 5, 1023, 0x1'0000'0003ull, ~uint64_t{0}};
  for (uint64_t seed : seeds) {
    for (uint64_t stream : streams) {
      for (uint64_t index : indices) {
        const uint64_t block = index / 4;
        const auto words =
            philox4x32_10({uint32_t(block), uint32_t(block >> 32), uint32_t(stream), uint32_t(stream >> 32)},
                          {uint32_t(seed), uint32_t(seed >> 32)});
        EXPECT_EQ(random_u32(seed, stream, index), words[index % 4]) << seed << " " << stream << " " << index;
      }
    }
  }
  // The zero KAT is word 0..3 of stream 0 under seed 0.
  EXPECT_EQ(random_u32(0, 0, 0), 0x6627e8d5u);
  EXPECT_EQ(random_u32(0, 0, 3), 0x9b00dbd8u);
}

TEST(Rng, UniformIsA24BitGridInUnitIntervalMatchingTheWord) {
  for (uint64_t i = 0; i < 100000; ++i) {
    const float u = random_uniform(42, 3, i);
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    EXPECT_EQ(u, static_cast<float>(random_u32(42, 3, i) >> 8) / 16777216.0f);
  }
}

TEST(Rng, UniformMomentsWithinStandardErrors) {
  const size_t n = 1'000'000;
  std::vector<float> u(n);
  fill_uniform(u.data(), n, 0.0f, 1.0f, 2024, 1);
  double sum = 0, sum2 = 0;
  for (float v : u) sum += v;
  const double mean = sum / n;
  for (float v : u) sum2 += (v - mean) * (v - mean);
  const double var = sum2 / (n - 1);
  // Uniform(0,1): mean 1/2, variance 1/12; Var[(U - 1/2)^2] = 1/80 - 1/144 = 1/180.
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 5 * std::sqrt(1.0 / 180 / n));
  // Ten equal bins, each within 5 binomial standard errors.
  std::array<size_t, 10> bins{};
  for (float v : u) ++bins[static_cast<size_t>(v * 10)];
  for (size_t b : bins) EXPECT_NEAR(double(b), n / 10.0, 5 * std::sqrt(n * 0.1 * 0.9));
}

TEST(Rng, NormalMomentsWithinStandardErrors) {
  const size_t n = 1'000'000;
  std::vector<float> z(n);
  fill_normal(z.data(), n, 0.0f, 1.0f, 7, 0);
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  size_t within1 = 0;
  for (float v : z) {
    ASSERT_TRUE(std::isfinite(v));
    ASSERT_LE(std::fabs(v), 6.67f);
    s1 += v;
    s2 += double(v) * v;
    s3 += double(v) * v * v;
    s4 += double(v) * v * v * v;
    within1 += std::fabs(v) < 1.0f;
  }
  EXPECT_NEAR(s1 / n, 0.0, 5 / std::sqrt(double(n)));
  EXPECT_NEAR(s2 / n, 1.0, 5 * std::sqrt(2.0 / n));   // Var[Z^2] = 2
  EXPECT_NEAR(s3 / n, 0.0, 5 * std::sqrt(15.0 / n));  // Var[Z^3] = 15
  EXPECT_NEAR(s4 / n, 3.0, 5 * std::sqrt(96.0 / n));  // Var[Z^4] = 105 - 9
  const double p = 0.682689492137;                    // P(|Z| < 1)
  EXPECT_NEAR(double(within1) / n, p, 5 * std::sqrt(p * (1 - p) / n));
}

// Pearson correlation of two sequences of n values.
double correlation(const std::vector<float>& a, const std::vector<float>& b) {
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) ma += a[i], mb += b[i];
  ma /= a.size();
  mb /= b.size();
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

TEST(Rng, StreamsSeedsAndLagsAreUncorrelated) {
  const size_t n = 1'000'000;
  const double tol = 5 / std::sqrt(double(n));  // |r| of independent sequences has SE ~ 1/sqrt(n)
  std::vector<float> s0(n), s1(n), t0(n), z0(n), z1(n);
  fill_uniform(s0.data(), n, 0.0f, 1.0f, 99, 0);
  fill_uniform(s1.data(), n, 0.0f, 1.0f, 99, 1);
  fill_uniform(t0.data(), n, 0.0f, 1.0f, 100, 0);
  fill_normal(z0.data(), n, 0.0f, 1.0f, 99, 0);
  fill_normal(z1.data(), n, 0.0f, 1.0f, 99, 1);
  EXPECT_LT(std::fabs(correlation(s0, s1)), tol);  // neighbouring streams
  EXPECT_LT(std::fabs(correlation(s0, t0)), tol);  // neighbouring seeds
  EXPECT_LT(std::fabs(correlation(z0, z1)), tol);
  // Lag 1 and lag 4 (the Philox block width) inside one stream; and the two halves of each Box-Muller pair.
  for (size_t lag : {size_t{1}, size_t{4}}) {
    std::vector<float> a(s0.begin(), s0.end() - lag), b(s0.begin() + lag, s0.end());
    EXPECT_LT(std::fabs(correlation(a, b)), tol) << "lag " << lag;
  }
  std::vector<float> even(n / 2), odd(n / 2);
  for (size_t i = 0; i < n / 2; ++i) even[i] = z0[2 * i], odd[i] = z0[2 * i + 1];
  EXPECT_LT(std::fabs(correlation(even, odd)), 5 / std::sqrt(double(n / 2)));
  // Streams are not shifted copies of each other: no equal word at equal or nearby positions beyond chance.
  size_t equal = 0;
  for (uint64_t i = 0; i < 100000; ++i) equal += random_u32(5, 0, i) == random_u32(5, 1, i);
  EXPECT_LE(equal, 1u);
}

TEST(Rng, NormalUsesTheDocumentedBoxMullerPair) {
  for (uint64_t i = 0; i < 1000; ++i) {
    const uint32_t w0 = random_u32(3, 4, i & ~uint64_t{1}), w1 = random_u32(3, 4, i | 1);
    const double rho = std::sqrt(-2.0 * std::log((w0 + 1.0) / 4294967296.0));
    const double theta = 2.0 * 3.14159265358979323846 * (w1 / 4294967296.0);
    const double expect = (i & 1) ? rho * std::sin(theta) : rho * std::cos(theta);
    EXPECT_NEAR(random_normal(3, 4, i), expect, 1e-6 * std::max(1.0, std::fabs(expect))) << i;
  }
}

// fill_* equals the per-index functions, for sizes around the block width and the parallel threshold, and does not
// depend on the number of OpenMP threads.
TEST(Rng, FillEqualsPerIndexFunctionsForAnyThreadCount) {
  const size_t sizes[] = {0, 1, 3, 4, 5, 17, kRandomParallelMin - 1, kRandomParallelMin + 3, 100003};
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    for (size_t n : sizes) {
      std::vector<float> u(n + 1, -7.0f), z(n + 1, -7.0f);  // one guard element
      fill_uniform(u.data(), n, -2.0f, 3.0f, 11, 22);
      fill_normal(z.data(), n, 1.5f, 0.25f, 11, 22);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(u[i], std::fma(5.0f, random_uniform(11, 22, i), -2.0f)) << n << " " << i;
        ASSERT_EQ(z[i], std::fma(0.25f, random_normal(11, 22, i), 1.5f)) << n << " " << i;
        ASSERT_GE(u[i], -2.0f);
        ASSERT_LE(u[i], 3.0f);
      }
      EXPECT_EQ(u[n], -7.0f);
      EXPECT_EQ(z[n], -7.0f);
    }
  }
  omp_set_num_threads(saved);
}

TEST(Rng, ForEachRandomU32VisitsEveryIndexOnceWithItsWord) {
  for (uint64_t index0 : {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{1} << 40}) {
    for (size_t n : {size_t{1}, size_t{2}, size_t{6}, size_t{7}, kRandomParallelMin + 5}) {
      std::vector<uint32_t> got(n, 0), visits(n, 0);
      for_each_random_u32(9, 8, index0, n, [&](size_t i, uint32_t w) {
        got[i] = w;
        ++visits[i];
      });
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(visits[i], 1u);
        ASSERT_EQ(got[i], random_u32(9, 8, index0 + i));
      }
    }
  }
}

}  // namespace
}  // namespace nanotrn
