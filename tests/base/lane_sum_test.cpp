// lane_dot against an fp64 (long double) sum of the same products: within the summation-order bound n * eps *
// sum |a b| for fp32 partial sums, and to fp64 rounding for fp64 ones, on lengths below, at and around the lane count
// (the tail) and on the row widths RMSNorm and Muon give it.
#include "base/lane_sum.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace nanotrn {
namespace {

struct Exact {
  long double sum = 0, abs_sum = 0;
};

Exact exact_dot(const std::vector<float>& a, const std::vector<float>& b) {
  Exact e;
  for (size_t i = 0; i < a.size(); i++) {
    const long double p = static_cast<long double>(a[i]) * static_cast<long double>(b[i]);
    e.sum += p;
    e.abs_sum += std::fabs(p);
  }
  return e;
}

TEST(LaneSum, DotIsTheExactSumWithinTheSummationBoundAtEveryLengthAndTail) {
  std::mt19937 gen(5);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (const int64_t n : {0, 1, 7, 15, 16, 17, 31, 33, 384, 1000, 1536, 65537}) {
    std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (size_t i = 0; i < a.size(); i++) a[i] = nd(gen), b[i] = nd(gen) + 0.5f;  // a mean, so sums do not cancel
    const Exact e = exact_dot(a, b);
    const double f32_bound =
        static_cast<double>(n + 1) * std::numeric_limits<float>::epsilon() * static_cast<double>(e.abs_sum);
    const double f64_bound =
        static_cast<double>(n + 1) * std::numeric_limits<double>::epsilon() * static_cast<double>(e.abs_sum);
    EXPECT_LE(std::fabs(static_cast<double>(lane_dot(a.data(), b.data(), n)) - static_cast<double>(e.sum)), f32_bound)
        << "n " << n;
    EXPECT_LE(std::fabs(lane_dot<double>(a.data(), b.data(), n) - static_cast<double>(e.sum)), f64_bound) << "n " << n;
    const Exact plain = exact_dot(a, std::vector<float>(a.size(), 1.0f));  // sum a[j]
    EXPECT_LE(std::fabs(lane_accumulate<double>(
                            n, [&](int64_t j) { return static_cast<double>(a[static_cast<size_t>(j)]); }) -
                        static_cast<double>(plain.sum)),
              static_cast<double>(n + 1) * std::numeric_limits<double>::epsilon() * static_cast<double>(plain.abs_sum))
        << "n " << n;
    // A sum of squares: every product adds, so the fp32 sum is within a few ulps per lane, far inside the bound.
    const Exact sq = exact_dot(a, a);
    EXPECT_NEAR(lane_dot(a.data(), a.data(), n), static_cast<double>(sq.sum), 1e-5 * static_cast<double>(sq.sum))
        << "n " << n;
  }
}

TEST(LaneSum, AnIntegerValuedSumIsExactAndTheTailIsCounted) {
  // Small integers: every partial sum is exact in fp32, so any order gives n (n + 1) (2n + 1) / 6 for sum j^2 and
  // n (n + 1) / 2 for sum j.
  for (const int64_t n : {1, 15, 16, 17, 100}) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; j++) v[static_cast<size_t>(j)] = static_cast<float>(j + 1);
    EXPECT_EQ(lane_dot(v.data(), v.data(), n), static_cast<float>(n * (n + 1) * (2 * n + 1) / 6)) << "n " << n;
    EXPECT_EQ(lane_accumulate<float>(n, [&](int64_t j) { return v[static_cast<size_t>(j)]; }),
              static_cast<float>(n * (n + 1) / 2))
        << "n " << n;
    EXPECT_EQ(lane_accumulate<double>(n, [&](int64_t j) { return static_cast<double>(v[static_cast<size_t>(j)]); }),
              static_cast<double>(n * (n + 1) / 2))
        << "n " << n;
  }
}

// The maximum is exact in any order, so lane_max must be the plain loop's value bit for bit, at every length around the
// lane count, wherever the maximum sits (a lane's first slot, a lane's last, the tail), with NaNs passed over as the
// loop passes them over, and -inf for an empty or all-NaN row.
TEST(LaneSum, MaxIsThePlainLoopsValueWhereverTheMaximumIsAndNaNsArePassedOver) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto plain = [](const std::vector<float>& x) {
    float m = -std::numeric_limits<float>::infinity();
    for (float v : x) m = std::max(m, v);
    return m;
  };
  std::mt19937 gen(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (int64_t n : {0, 1, 15, 16, 17, 31, 32, 33, 100, 8192, 8207}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = normal(gen);
    EXPECT_EQ(lane_max(x.data(), n), plain(x)) << n;
    for (int64_t at : {int64_t{0}, n / 2, n - 1}) {
      if (n == 0) break;
      std::vector<float> y = x;
      y[static_cast<size_t>(at)] = 100.0f;
      EXPECT_EQ(lane_max(y.data(), n), 100.0f) << n << " at " << at;
      y[static_cast<size_t>(at)] = nan;  // a NaN where the maximum was: passed over
      EXPECT_EQ(lane_max(y.data(), n), plain(y)) << n << " NaN at " << at;
      EXPECT_FALSE(std::isnan(lane_max(y.data(), n)));
    }
  }
  EXPECT_EQ(lane_max(nullptr, 0), -inf);
  const std::vector<float> all_nan(20, nan), with_inf = {1.0f, inf, -inf, 2.0f};
  EXPECT_EQ(lane_max(all_nan.data(), 20), -inf);
  EXPECT_EQ(lane_max(with_inf.data(), 4), inf);
}

}  // namespace
}  // namespace nanotrn
