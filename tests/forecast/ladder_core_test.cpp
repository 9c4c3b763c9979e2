// The ladder's own CORE line (forecast/ladder_core.h) and Student's t quantile (sweep/stats.h) against scipy
// (tests/python/ladder_core_reference.py: scipy.stats.linregress, t.ppf, the prediction interval written out with
// numpy), and the statistical properties the forecast relies on, by simulation: the 90 % prediction interval holds a
// new run's CORE about 90 % of the time, a ladder whose CORE does not depend on val_bpb is called above noise in
// about 5 % of draws (half of them, those whose line falls, at most), and a rising line is never used.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "forecast/ladder_core.h"
#include "support/error_of.h"
#include "support/python_reference.h"
#include "sweep/stats.h"

namespace nanotrn::forecast {
namespace {

// A ladder of `n` runs with val_bpb spread over [1.9, 2.5] and CORE = a + b x val_bpb + Gaussian noise of `sd`.
std::vector<LadderRun> noisy_ladder(int n, double a, double b, double sd, std::mt19937& g) {
  std::normal_distribution<double> noise(0, sd);
  std::vector<LadderRun> runs;
  for (int i = 0; i < n; i++) {
    LadderRun r{.id = "r" + std::to_string(i), .params = 1e5, .tokens = 1e5, .val_bpb = 1.9 + 0.6 * i / (n - 1)};
    r.core = a + b * r.val_bpb + noise(g);
    runs.push_back(r);
  }
  return runs;
}

TEST(LadderCore, IsScipysLineAndPredictionInterval) {
  std::mt19937 g(11);
  nlohmann::json req = {{"ladders", nlohmann::json::array()}, {"quantiles", nlohmann::json::array()}};
  std::vector<std::vector<LadderRun>> ladders;
  std::vector<LadderCoreAt> ats;
  for (int k = 0; k < 8; k++) {
    ladders.push_back(noisy_ladder(4 + k, 0.8, -0.3 + 0.05 * k, 0.01 + 0.005 * k, g));
    ats.push_back({.bpb = 1.7 - 0.02 * k, .bpb_low = 1.65 - 0.02 * k, .bpb_high = 1.78, .coverage = 0.8 + 0.02 * k});
    nlohmann::json x = nlohmann::json::array(), y = nlohmann::json::array();
    for (const LadderRun& r : ladders.back()) x.push_back(r.val_bpb), y.push_back(r.core);
    req["ladders"].push_back({{"x", x},
                              {"y", y},
                              {"at", ats.back().bpb},
                              {"low", ats.back().bpb_low},
                              {"high", ats.back().bpb_high},
                              {"coverage", ats.back().coverage}});
  }
  const std::vector<std::pair<double, double>> quantiles = {{0.95, 10}, {0.975, 1}, {0.05, 3}, {0.9, 2.5}, {0.999, 7}};
  for (const auto& [q, df] : quantiles) req["quantiles"].push_back({q, df});
  const nlohmann::json want = testing_support::python_reference("ladder_core_reference.py", "", req);
  for (size_t k = 0; k < ladders.size(); k++) {
    const LadderCore c = fit_ladder_core(ladders[k], ats[k]);
    const nlohmann::json& w = want["ladders"][k];
    EXPECT_NEAR(c.intercept, w["intercept"].get<double>(), 1e-10) << k;
    EXPECT_NEAR(c.slope, w["slope"].get<double>(), 1e-10) << k;
    EXPECT_NEAR(c.p, w["p"].get<double>(), 1e-9) << k;
    EXPECT_NEAR(c.rms, w["rms"].get<double>(), 1e-12) << k;
    EXPECT_NEAR(c.loo_rms, w["loo_rms"].get<double>(), 1e-10) << k;
    EXPECT_NEAR(c.core, w["core"].get<double>(), 1e-10) << k;
    EXPECT_NEAR(c.low, w["low"].get<double>(), 1e-8) << k;
    EXPECT_NEAR(c.high, w["high"].get<double>(), 1e-8) << k;
    EXPECT_EQ(c.runs, static_cast<int>(ladders[k].size()));
    EXPECT_NEAR(c.beyond, 1.9 - ats[k].bpb, 1e-12);
  }
  for (size_t i = 0; i < quantiles.size(); i++)
    EXPECT_NEAR(sweep::t_quantile(quantiles[i].first, quantiles[i].second), want["quantiles"][i].get<double>(),
                1e-9 * std::max(1.0, std::abs(want["quantiles"][i].get<double>())))
        << i;
}

TEST(LadderCore, ThePredictionIntervalHoldsANewRunAtItsCoverage) {
  std::mt19937 g(5);
  std::normal_distribution<double> noise(0, 0.03);
  int inside = 0;
  const int draws = 2000;
  for (int k = 0; k < draws; k++) {
    const std::vector<LadderRun> runs = noisy_ladder(12, 0.9, -0.35, 0.03, g);
    const LadderCore c = fit_ladder_core(runs, {.bpb = 1.75, .bpb_low = 1.75, .bpb_high = 1.75, .coverage = 0.9});
    const double fresh = 0.9 - 0.35 * 1.75 + noise(g);
    inside += c.low <= fresh && fresh <= c.high;
  }
  // Binomial(2000, 0.9): sd 0.0067; 4 sd either side.
  EXPECT_NEAR(static_cast<double>(inside) / draws, 0.9, 0.027);
}

TEST(LadderCore, NoiseIsNotASlopeAndARisingLineIsNeverUsed) {
  std::mt19937 g(9);
  int above = 0, falling_strong = 0;
  const int draws = 2000;
  for (int k = 0; k < draws; k++) {
    above +=
        fit_ladder_core(noisy_ladder(12, 0.1, 0.0, 0.03, g), {.bpb = 1.8, .bpb_low = 1.8, .bpb_high = 1.8}).above_noise;
    falling_strong +=
        fit_ladder_core(noisy_ladder(12, 0.9, -0.35, 0.03, g), {.bpb = 1.8, .bpb_low = 1.8, .bpb_high = 1.8})
            .above_noise;
    // A line that rises with val_bpb (CORE better as the loss gets worse) is never used, however clear.
    EXPECT_FALSE(fit_ladder_core(noisy_ladder(12, -0.5, 0.35, 0.01, g), {.bpb = 1.8, .bpb_low = 1.8, .bpb_high = 1.8})
                     .above_noise);
  }
  // No dependence: p < 0.05 in 5 % of draws, half of them falling: 2.5 % (binomial sd 0.35 %).
  EXPECT_NEAR(static_cast<double>(above) / draws, 0.025, 0.012);
  EXPECT_EQ(falling_strong, draws);  // slope -0.35 over 0.6 bpb against noise 0.03: t about -12
}

TEST(LadderCore, RefusesTooFewRuns) {
  std::mt19937 g(1);
  std::vector<LadderRun> runs = noisy_ladder(4, 0.9, -0.3, 0.01, g);
  runs[0].core = runs[1].core = std::nan("");
  EXPECT_NE(testing_support::error_message_of([&] {
              fit_ladder_core(runs, {.bpb = 1.8});
            }).find("2 ladder run(s) with a CORE"),
            std::string::npos);
}

}  // namespace
}  // namespace nanotrn::forecast
