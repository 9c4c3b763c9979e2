// The forecast's pieces against independent references: the scaling-law fit against scipy's trust-region solver
// on the same data, bounds and starts (tests/python/scaling_law_reference.py), a known law recovered from exact data,
// the interval's rules; the CORE map against numpy (tests/python/core_map_reference.py); the ladder's design rules
// against the model's own parameter count; the epochs of data against shards of known length.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "base/home.h"
#include "data/epochs.h"
#include "data/shard.h"
#include "forecast/core_map.h"
#include "forecast/ladder.h"
#include "forecast/scaling_law.h"
#include "model/config.h"
#include "recipe/recipe_paths.h"
#include "support/error_of.h"
#include "support/python_reference.h"
#include "support/source_path.h"

namespace nanotrn::forecast {
namespace {

using testing_support::python_reference;

// A 4 x 3 factorial ladder of a known law, with a deterministic +-`noise` pattern on the losses.
std::vector<LadderRun> ladder_of(const ScalingLaw& truth, double noise) {
  std::vector<LadderRun> runs;
  int k = 0;
  for (double n : {5e4, 1e5, 2e5, 4e5})
    for (double d : {2e5, 4e5, 8e5}) {
      const double wiggle = noise * std::sin(1.7 * k + 0.3);
      runs.push_back({"r" + std::to_string(k++), n, d, truth.at(n, d) + wiggle});
    }
  return runs;
}

const ScalingLaw kTruth{1.2, 30.0, 0.35, 400.0, 0.3};

TEST(ScalingLaw, RecoversAKnownLawFromExactData) {
  const std::vector<LadderRun> runs = ladder_of(kTruth, 0.0);
  const LawFit f = fit_scaling_law(runs);
  EXPECT_LT(f.rms, 1e-6);
  // The forecast 4x beyond the ladder in both N and D is the true law's.
  EXPECT_NEAR(f.law.at(1.6e6, 3.2e6), kTruth.at(1.6e6, 3.2e6), 1e-4);
  EXPECT_NEAR(f.law.alpha, kTruth.alpha, 0.02);
  EXPECT_NEAR(f.law.beta, kTruth.beta, 0.02);
  for (double e : f.loo) EXPECT_LT(std::abs(e), 1e-4);
  EXPECT_TRUE(f.determined);
}

// The fit reaches scipy's minimum of the cost (to 1e-4 of it) from the same starts, and so forecasts the same values.
void expect_scipy_agrees(const std::vector<LadderRun>& runs, const nlohmann::json& at) {
  const LawFit f = fit_scaling_law(runs);
  nlohmann::json q = {{"runs", nlohmann::json::array()}, {"at", at}};
  for (const LadderRun& r : runs) q["runs"].push_back({r.params, r.tokens, r.val_bpb});
  const nlohmann::json want = python_reference("scaling_law_reference.py", "", q);
  double cost = 0;
  for (double r : f.residuals) cost += r * r / 2;
  EXPECT_NEAR(cost, want["cost"].get<double>(), 1e-4 * want["cost"].get<double>() + 1e-12);
  for (size_t i = 0; i < q["at"].size(); i++)
    EXPECT_NEAR(f.law.at(q["at"][i][0], q["at"][i][1]), want["at"][i].get<double>(), 2e-3) << i;
}

TEST(ScalingLaw, AgreesWithScipyOnNoisyRuns) {
  expect_scipy_agrees(ladder_of(kTruth, 0.01), {{1.6e6, 3.2e6}, {1e5, 4e5}, {4e5, 8e6}});
}

// A real ladder (docs/VALIDATION.md "Forecast": the full-size ladder on Brown, cpu-tiny's family), where the size
// barely moves the loss and E is loosely pinned: one start in E found a minimum 0.02 bpb off scipy's here.
TEST(ScalingLaw, AgreesWithScipyOnTheValidationLadder) {
  const std::vector<LadderRun> runs = {
      {"n1-t1", 98336, 204800, 2.2944},  {"n1-t2", 98336, 409600, 2.1678},  {"n1-t3", 98336, 819200, 2.0472},
      {"n2-t1", 196672, 204800, 2.2412}, {"n2-t2", 196672, 409600, 2.1339}, {"n2-t3", 196672, 819200, 2.0260},
      {"n3-t1", 393280, 204800, 2.2566}, {"n3-t2", 393280, 409600, 2.1400}, {"n3-t3", 393280, 819200, 2.0133},
      {"n4-t1", 589952, 204800, 2.2520}, {"n4-t2", 589952, 409600, 2.1338}, {"n4-t3", 589952, 819200, 2.0257}};
  expect_scipy_agrees(runs, {{3145984, 3276800}, {589952, 1638400}});
}

TEST(ScalingLaw, LeaveOneOutIsTheLawFittedWithoutTheRun) {
  const std::vector<LadderRun> runs = ladder_of(kTruth, 0.01);
  const LawFit f = fit_scaling_law(runs);
  for (size_t i : {size_t{0}, size_t{5}, size_t{11}}) {
    std::vector<LadderRun> rest = runs;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    const double want = fit_scaling_law(rest).law.at(runs[i].params, runs[i].tokens) - runs[i].val_bpb;
    EXPECT_NEAR(f.loo[i], want, 2e-3) << i;
  }
}

TEST(ScalingLaw, TheIntervalHoldsTheForecastAndGrowsWithTheScatter) {
  const ForecastOptions o{.bootstrap = 60, .coverage = 0.9, .seed = 3};
  const std::vector<LadderRun> quiet = ladder_of(kTruth, 0.002), noisy = ladder_of(kTruth, 0.02);
  const LawFit fq = fit_scaling_law(quiet), fn = fit_scaling_law(noisy);
  const Forecast q = forecast_at(fq, quiet, 1.6e6, 3.2e6, o), n = forecast_at(fn, noisy, 1.6e6, 3.2e6, o);
  EXPECT_LE(q.low, q.central);
  EXPECT_GE(q.high, q.central);
  EXPECT_LT(q.high - q.low, n.high - n.low);
  // The noise term is the leave-one-out RMS, z = 1.645 at 90 %: the interval is at least that wide each side.
  EXPECT_GE(n.central - n.low, 1.6448 * fn.loo_rms - 1e-12);
  EXPECT_NEAR(q.params_beyond, 4.0, 1e-12);
  EXPECT_NEAR(q.tokens_beyond, 4.0, 1e-12);
  EXPECT_NEAR(q.compute_beyond, 16.0, 1e-9);
  // The bootstrap is seeded: the same seed gives the same interval.
  const Forecast again = forecast_at(fq, quiet, 1.6e6, 3.2e6, o);
  EXPECT_EQ(again.low, q.low);
  EXPECT_EQ(again.high, q.high);
}

TEST(ScalingLaw, RefusesTooFewRuns) {
  std::vector<LadderRun> runs = ladder_of(kTruth, 0);
  runs.resize(5);
  EXPECT_NE(testing_support::error_message_of([&] { fit_scaling_law(runs); }).find("cannot fit the law's 5"),
            std::string::npos);
}

TEST(ScalingLaw, NormalQuantileIsTheTablesValue) {
  // Abramowitz & Stegun table 26.1 / Python's statistics.NormalDist().inv_cdf: 1.6448536269514722 (90 %),
  // 1.959963984540054 (95 %).
  EXPECT_NEAR(normal_two_sided_z(0.90), 1.6448536269514722, 1e-9);
  EXPECT_NEAR(normal_two_sided_z(0.95), 1.959963984540054, 1e-9);
}

TEST(CoreMap, IsNumpysLineOnThePublishedPairs) {
  const std::string file = testing_support::source_path("configs/forecast/core_vs_bpb.json");
  const nlohmann::json want = python_reference("core_map_reference.py", file, nlohmann::json::object());
  const CoreMap& m = builtin_core_map();
  EXPECT_NEAR(m.intercept, want["intercept"].get<double>(), 1e-10);
  EXPECT_NEAR(m.slope, want["slope"].get<double>(), 1e-10);
  EXPECT_NEAR(m.loo_rms, want["loo_rms"].get<double>(), 1e-10);
  ASSERT_EQ(m.loo.size(), want["loo"].size());
  for (size_t i = 0; i < m.loo.size(); i++) EXPECT_NEAR(m.loo[i], want["loo"][i].get<double>(), 1e-10) << i;
  EXPECT_GE(m.pairs.size(), 18u);
  // Only inside the pairs' range: a val_bpb measured on Brown (about 2) gets no CORE.
  EXPECT_TRUE(m.at(0.9).has_value());
  EXPECT_FALSE(m.at(2.0).has_value());
  EXPECT_FALSE(m.at(0.5).has_value());
}

TEST(Ladder, IsAFactorialDesignBelowAQuarterOfTheTarget) {
  const Home home = find_home();
  const recipe::Recipe r = recipe::open_recipe("cpu-tiny", {"train.budget=0", "train.steps=800"}, home);
  const double n_target = static_cast<double>(model::count_params(model::resolve(r.model)).non_embedding());
  const LadderSpec spec{
      .kind = LadderKind::small, .max_params = n_target / 4, .max_tokens = 819200, .target_steps = 800};
  const Ladder l = design_ladder(r, spec);
  ASSERT_EQ(l.rungs.size(), 12u);
  std::set<double> sizes;
  std::set<int64_t> tokens;
  for (const LadderRung& g : l.rungs) {
    sizes.insert(g.params);
    tokens.insert(g.tokens);
    EXPECT_LE(g.params, n_target / 4);
    EXPECT_LE(static_cast<double>(g.tokens), 819200.0 * 1.001);
    EXPECT_GE(g.steps, 20);
    // The rung's N is the model's own count for the overrides the sweep gives it.
    std::vector<std::string> sets = {"train.budget=0"};
    for (const sweep::Variant& v : ladder_variants(l))
      if (v.id == g.id) sets.insert(sets.end(), v.set.begin(), v.set.end());
    const recipe::Recipe rung = recipe::open_recipe("cpu-tiny", sets, home);
    EXPECT_EQ(static_cast<double>(model::count_params(model::resolve(rung.model)).non_embedding()), g.params) << g.id;
    EXPECT_EQ(rung.train.steps * rung.batch.rows * rung.batch.seq_len, g.tokens) << g.id;
    // The target's schedule shape: its warm-ups are the same fraction of every run (within the rounding to a step).
    const double part = static_cast<double>(rung.train.steps) / 800;
    EXPECT_NEAR(static_cast<double>(rung.schedule.warmup_steps), std::max(1.0, r.schedule.warmup_steps * part), 0.5);
    EXPECT_NEAR(static_cast<double>(rung.optim.momentum_warmup_steps), r.optim.momentum_warmup_steps * part, 0.5)
        << g.id;
  }
  EXPECT_EQ(sizes.size(), 4u);
  EXPECT_EQ(tokens.size(), 3u);  // every size at the same three budgets
  EXPECT_LE(l.flops, default_ladder_flops(LadderKind::small) * 1.001);
  // Too small a target for a ladder 4x below it.
  const LadderSpec tiny{.max_params = 1000};
  EXPECT_NE(testing_support::error_message_of([&] { design_ladder(r, tiny); }).find("too small for a ladder"),
            std::string::npos);
}

TEST(DataEpochs, CountsTheShardsTokens) {
  const std::string dir = ::testing::TempDir() + "/epochs_shards";
  std::filesystem::create_directories(dir);
  data::write_shard(dir + "/train_000000.bin", std::vector<int32_t>(1000, 3), 256);
  data::write_shard(dir + "/train_000001.bin", std::vector<int32_t>(500, 7), 256);
  const data::DataEpochs e = data::epochs_needed(dir + "/train_*.bin", 9000);
  ASSERT_TRUE(e.known);
  EXPECT_EQ(e.train_tokens, 1500);
  EXPECT_DOUBLE_EQ(e.epochs, 6.0);
  EXPECT_NE(data::epochs_line(e).find("the data repeats 6 times"), std::string::npos) << data::epochs_line(e);
  EXPECT_FALSE(data::epochs_needed("synthetic:pattern", 9000).known);
  EXPECT_FALSE(data::epochs_needed(dir + "/none_*.bin", 9000).known);
}

}  // namespace
}  // namespace nanotrn::forecast
