// The sweep's statistics (sweep/stats.h) against an independent computation: scipy.stats.ttest_ind(equal_var=False)
// and numpy through Debian's python3-scipy (tests/python/welch_reference.py), on sample pairs from 2 to 9 values of
// very different spreads; and the incomplete beta function against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "support/python_reference.h"
#include "sweep/stats.h"

namespace nanotrn::sweep {
namespace {

TEST(SweepStats, WelchMatchesScipy) {
  std::mt19937 g(7);
  nlohmann::json pairs = nlohmann::json::array();
  std::vector<std::pair<std::vector<double>, std::vector<double>>> samples;
  for (int k = 0; k < 24; k++) {
    std::normal_distribution<double> a(0.95, 0.001 * (1 + k % 5)), b(0.95 + 0.0005 * (k % 7), 0.002 * (1 + k % 3));
    std::vector<double> x(2 + k % 8), y(2 + (k * 5) % 8);
    for (double& v : x) v = a(g);
    for (double& v : y) v = b(g);
    samples.emplace_back(x, y);
    pairs.push_back({x, y});
  }
  const nlohmann::json want = testing_support::python_reference("welch_reference.py", "", pairs);
  ASSERT_EQ(want.size(), samples.size());
  for (size_t i = 0; i < samples.size(); i++) {
    const auto& [x, y] = samples[i];
    const Welch w = welch_t_test(x, y);
    const Summary sx = summarize(x), sy = summarize(y);
    EXPECT_NEAR(w.t, want[i]["t"].get<double>(), 1e-9 * std::abs(w.t) + 1e-12) << i;
    EXPECT_NEAR(w.df, want[i]["df"].get<double>(), 1e-9 * w.df) << i;
    EXPECT_NEAR(w.p, want[i]["p"].get<double>(), 1e-9) << i;
    EXPECT_NEAR(sx.mean, want[i]["mean_a"].get<double>(), 1e-12) << i;
    EXPECT_NEAR(sx.sd, want[i]["sd_a"].get<double>(), 1e-12) << i;
    EXPECT_NEAR(sy.sd, want[i]["sd_b"].get<double>(), 1e-12) << i;
  }
}

TEST(SweepStats, UndefinedCasesAreNaN) {
  EXPECT_TRUE(std::isnan(welch_t_test({1.0}, {1.0, 2.0}).p));       // one value on a side
  EXPECT_TRUE(std::isnan(welch_t_test({1.0, 1.0}, {2.0, 2.0}).p));  // no variance anywhere
  EXPECT_TRUE(std::isnan(summarize({0.5}).sd));
  EXPECT_EQ(summarize({}).n, 0);
  EXPECT_DOUBLE_EQ(welch_t_test({1.0, 2.0, 3.0}, {1.0, 2.0, 3.0}).p, 1.0);  // identical samples: t = 0
}

TEST(SweepStats, IncompleteBetaClosedForms) {
  for (double x : {0.0, 0.1, 0.5, 0.9, 1.0}) {
    EXPECT_NEAR(regularized_incomplete_beta(x, 1, 1), x, 1e-14);                       // uniform
    EXPECT_NEAR(regularized_incomplete_beta(x, 2, 1), x * x, 1e-14);                   // x^a for b = 1
    EXPECT_NEAR(regularized_incomplete_beta(x, 1, 3), 1 - std::pow(1 - x, 3), 1e-14);  // 1 - (1-x)^b for a = 1
    EXPECT_NEAR(regularized_incomplete_beta(x, 0.5, 0.5), 2 / M_PI * std::asin(std::sqrt(x)), 1e-13);  // arcsine
  }
}

}  // namespace
}  // namespace nanotrn::sweep
