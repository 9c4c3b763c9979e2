// A sweep's plan (sweep/plan.h, variants.h, pricing.h): grids in product order, random draws reproducible and inside
// their ranges, the plan file's round trip and strictness, rung budgets under successive halving, dominated trials,
// and one writer per folder (base/dir_lock.h).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "base/dir_lock.h"
#include "base/error.h"
#include "support/error_of.h"
#include "sweep/plan.h"
#include "sweep/pricing.h"
#include "sweep/variants.h"

namespace nanotrn::sweep {
namespace {

TEST(SweepPlan, GridIsTheCartesianProductLastKeyFastest) {
  const std::vector<Variant> v = grid_variants({"model.depth=2,4", "optim.matrix_lr=0.02,0.04,0.08"});
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v[0].id, "v01");
  EXPECT_EQ(v[0].set, (std::vector<std::string>{"model.depth=2", "optim.matrix_lr=0.02"}));
  EXPECT_EQ(v[1].set, (std::vector<std::string>{"model.depth=2", "optim.matrix_lr=0.04"}));
  EXPECT_EQ(v[5].set, (std::vector<std::string>{"model.depth=4", "optim.matrix_lr=0.08"}));
  EXPECT_NE(testing_support::error_text_of([] { grid_variants({"a=1", "a=2"}); }).find("twice"), std::string::npos);
  EXPECT_NE(testing_support::error_text_of([] { grid_variants({"a=1,,2"}); }).find("empty value"), std::string::npos);
  EXPECT_NE(testing_support::error_text_of([] { grid_variants({"novalue"}); }).find("key=v1,v2"), std::string::npos);
}

TEST(SweepPlan, RandomDrawsAreReproducibleAndInsideTheirRanges) {
  const SearchSpace s = search_space_from_json({{"optim.matrix_lr", {{"log_uniform", {0.01, 0.1}}}},
                                                {"model.depth", {{"int", {2, 5}}}},
                                                {"model.activation", {{"choice", {"relu2", "leaky_relu2"}}}},
                                                {"optim.momentum", {{"uniform", {0.9, 0.99}}}}},
                                               "space.json");
  const std::vector<Variant> a = random_variants(s, 64, 5), b = random_variants(s, 64, 5),
                             c = random_variants(s, 64, 6);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::set<std::string> depths, acts;
  for (const Variant& v : a) {
    ASSERT_EQ(v.set.size(), 4u);
    const double lr = std::stod(v.set[2].substr(v.set[2].find('=') + 1));  // keys in sorted order (nlohmann)
    EXPECT_GE(lr, 0.01);
    EXPECT_LE(lr, 0.1);
    depths.insert(v.set[1]);
    acts.insert(v.set[0]);
  }
  EXPECT_EQ(depths.size(), 4u);  // 2, 3, 4, 5 all drawn in 64 tries
  EXPECT_EQ(acts.size(), 2u);
  auto error_of = [](nlohmann::json j) {
    return testing_support::error_text_of([&] { search_space_from_json(j, "space.json"); });
  };
  EXPECT_NE(error_of({{"x", {{"gauss", {0, 1}}}}}).find("unknown distribution 'gauss'"), std::string::npos);
  EXPECT_NE(error_of({{"x", {{"log_uniform", {0, 1}}}}}).find("low > 0"), std::string::npos);
  EXPECT_NE(error_of({{"x", {{"uniform", {2, 1}}}}}).find("low must be <= high"), std::string::npos);
  EXPECT_NE(error_of({{"x", {{"int", {1.5, 3}}}}}).find("integers"), std::string::npos);
}

SweepPlan small_plan() {
  SweepPlan p;
  p.recipe = "/r.json";
  p.variants = {{"base", {}}, {"v01", {"model.depth=2"}}, {"v02", {"model.depth=4"}}};
  p.seeds = 2;
  p.base_seed = 7;
  p.search = {{"grid", {"model.depth=2,4"}}};
  return p;
}

TEST(SweepPlan, TrialsRungsAndTheFileRoundTrip) {
  SweepPlan p = small_plan();
  std::vector<Trial> t = rung_trials(p, 0, all_variant_ids(p));
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[3].id, "v01-s1");
  EXPECT_EQ(t[3].seed, 8u);
  EXPECT_EQ(t[3].set, (std::vector<std::string>{"model.depth=2", "seed=8"}));
  p.halving = {true, 3, 3};
  EXPECT_DOUBLE_EQ(rung_fraction(p, 0), 1.0 / 9);
  EXPECT_DOUBLE_EQ(rung_fraction(p, 2), 1.0);
  EXPECT_EQ(rung_trials(p, 1, {"v02"})[0].id, "v02-s0-r1");
  const std::string dir = ::testing::TempDir() + "/sweep_plan_rt";
  std::filesystem::create_directories(dir);
  write_plan(dir, p);
  EXPECT_EQ(plan_to_json(read_plan(dir)), plan_to_json(p));
  nlohmann::json bad = plan_to_json(p);
  bad["baseline"] = "nope";
  EXPECT_NE(testing_support::error_text_of([&] { plan_from_json(bad, "sweep.json"); }).find("no variant 'nope'"),
            std::string::npos);
  bad = plan_to_json(p);
  bad.erase("seeds");
  EXPECT_NE(testing_support::error_text_of([&] { plan_from_json(bad, "sweep.json"); }).find("'seeds' is missing"),
            std::string::npos);
}

TEST(SweepPlan, ADominatedTrialIsTheSameTrainingWithFewerSteps) {
  const std::vector<Trial> t = {{.id = "a", .set = {"launch.lnc=1", "seed=1"}},
                                {.id = "b", .set = {"launch.lnc=2", "seed=1"}},
                                {.id = "c", .set = {"launch.lnc=1", "seed=2"}},
                                {.id = "d", .set = {"model.depth=3", "seed=1"}}};
  std::vector<Pricing> p(4);
  p[0].steps = 100;
  p[1].steps = 150;
  p[2].steps = 90;
  p[3].steps = 10;
  for (Pricing& x : p) x.json = {{"device", "trn2"}};
  const std::map<std::string, std::string> d = dominated(t, p);
  ASSERT_EQ(d.size(), 1u);  // a loses to b; c has another seed, d another training
  EXPECT_NE(d.at("a").find("dominated by b"), std::string::npos);
  p[1].fits = false;  // b cannot run: a is no longer dominated
  EXPECT_TRUE(dominated(t, p).empty());
}

TEST(SweepPlan, OneWriterPerFolder) {
  const std::string dir = ::testing::TempDir() + "/sweep_lock";
  std::filesystem::create_directories(dir);
  {
    DirLock first(dir, "nanotrn sweep");
    const std::string e = testing_support::error_text_of([&] { DirLock second(dir, "nanotrn sweep"); });
    EXPECT_NE(e.find("is in use by nanotrn sweep (pid"), std::string::npos) << e;
  }
  DirLock again(dir, "nanotrn sweep");  // released when the first went out of scope
}

}  // namespace
}  // namespace nanotrn::sweep
