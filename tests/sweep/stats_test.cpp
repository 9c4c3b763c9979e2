// The sweep's statistics (sweep/stats.h) against an independent computation: scipy.stats.ttest_ind(equal_var=False)
// and numpy through Debian's python3-scipy (tests/python/welch_reference.py), on sample pairs from 2 to 9 values of
// very different spreads; and the incomplete beta function against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "sweep/stats.h"

namespace nanotrn::sweep {
namespace {

// Runs the reference on `pairs` (JSON in a temp file, the answer read from a pipe).
nlohmann::json reference(const nlohmann::json& pairs) {
  const std::string in = ::testing::TempDir() + "/welch_pairs.json";
  std::ofstream(in) << pairs.dump();
  const std::string cmd =
      "/usr/bin/python3 " + std::string(NANOTRN_SOURCE_DIR) + "/tests/python/welch_reference.py < " + in;
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  char buf[4096];
  for (size_t n; p && (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  const int rc = p ? pclose(p) : -1;
  EXPECT_EQ(rc, 0) << "the scipy reference failed (is python3-scipy installed? scripts/setup.sh)";
  return nlohmann::json::parse(text);
}

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
  const nlohmann::json want = reference(pairs);
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
