// Calibration (predict/calibration.h) against runs the model itself made: a fit recovers the parameters that made
// them; one run fits one scale, two at different tokens per step also the per-step cost; an under-determined or
// contradictory fit is an Error that says which runs to add or which run disagrees; the runs file is read strictly.
#include <gtest/gtest.h>

#include <cmath>

#include "base/error.h"
#include "base/home.h"
#include "predict/calibration.h"
#include "recipe/stack_profile.h"
#include "support/error_of.h"

namespace nanotrn::predict {
namespace {

using recipe::StackParam;
using recipe::StackProfile;

// A known stack: every kernel at 0.7 of the library's speed, 40 ms per step.
StackProfile truth() {
  StackProfile p = recipe::builtin_stack("ideal");
  for (StackParam e : {StackParam::matmul_efficiency, StackParam::attention_efficiency, StackParam::vector_efficiency,
                       StackParam::collective_efficiency})
    p.param(e).value = 0.7;
  p.param(StackParam::step_overhead_s).value = 0.04;
  return p;
}

nlohmann::json k60_run(int phase, double step_s) {
  return {{"label", "k" + std::to_string(1 << phase)},
          {"recipe", "frontierforge-k60"},
          {"device", "trn2"},
          {"phase", phase},
          {"mtp_heads", 1},
          {"step_s", step_s}};
}

// The K60 phases as the known stack would run them.
nlohmann::json synthetic(const std::vector<int>& phases) {
  const Home home = find_home();
  nlohmann::json runs = nlohmann::json::array();
  for (const int ph : phases) {
    const CalibrationSpec one = calibration_spec_from_json(
        {{"base", "ideal"}, {"runs", nlohmann::json::array({k60_run(ph, 1.0)})}}, "synthetic", home);
    runs.push_back(k60_run(ph, predicted_run_seconds(one.runs[0], truth())));
  }
  return {{"base", "ideal"}, {"runs", runs}};
}

Calibration fit(const nlohmann::json& j) { return calibrate(calibration_spec_from_json(j, "runs.json", find_home())); }

TEST(Calibration, TwoRunsAtDifferentTokensRecoverTheScaleAndTheStepCost) {
  const Calibration c = fit(synthetic({0, 2}));
  EXPECT_EQ(c.free, (std::vector<std::string>{"scale", "step_overhead_s"}));
  EXPECT_NEAR(c.profile.value(StackParam::matmul_efficiency), 0.7, 1e-6);
  EXPECT_NEAR(c.profile.value(StackParam::vector_efficiency), 0.7, 1e-6);
  EXPECT_NEAR(c.profile.value(StackParam::step_overhead_s), 0.04, 1e-7);
  for (const CalibratedRun& r : c.runs) EXPECT_NEAR(r.residual, 0.0, 1e-7) << r.label;
  // Three runs of the same stack: each predicted by the other two within rounding.
  const Calibration three = fit(synthetic({0, 1, 2}));
  for (const CalibratedRun& r : three.runs) {
    ASSERT_TRUE(r.loo_error.has_value()) << r.label;
    EXPECT_NEAR(*r.loo_error, 0.0, 1e-6) << r.label;
  }
  EXPECT_NEAR(three.profile.band_low.value, 1.0, 1e-6);
  EXPECT_NEAR(three.profile.band_high.value, 1.0, 1e-6);
  // The fit's inputs are stored beside the values, and the profile reads back.
  EXPECT_EQ(three.profile.fit.at("spec").at("runs").size(), 3u);
  const StackProfile back = recipe::stack_profile_from_json(recipe::stack_profile_to_json(three.profile), "round trip");
  EXPECT_EQ(back.value(StackParam::step_overhead_s), three.profile.value(StackParam::step_overhead_s));
}

TEST(Calibration, OneRunFitsOneScale) {
  const Calibration c = fit(synthetic({1}));
  EXPECT_EQ(c.free, std::vector<std::string>{"scale"});
  EXPECT_NEAR(c.runs[0].residual, 0.0, 1e-7);
  EXPECT_FALSE(c.runs[0].loo_s.has_value());  // nothing left to predict it from
  // The band is the base's, said so.
  EXPECT_EQ(c.profile.band_high.value, recipe::builtin_stack("ideal").band_high.value);
  EXPECT_NE(c.profile.band_high.source.find("one run"), std::string::npos);
}

TEST(Calibration, UnderDeterminedFitsSayWhichRunsToAdd) {
  nlohmann::json j = synthetic({1});
  j["fit"] = {"scale", "step_overhead_s"};
  std::string e = testing_support::error_text_of([&] { fit(j); });
  EXPECT_NE(e.find("under-determined"), std::string::npos) << e;
  EXPECT_NE(e.find("another tokens per step"), std::string::npos) << e;
  // A parameter no run depends on: one rank has no collectives over the data-parallel group... K60's 4 ranks do, so
  // use the kit's single rank.
  j = {{"base", "ideal"},
       {"fit", {"scale", "collective_efficiency"}},
       {"runs",
        {{{"recipe", "kit-baseline"}, {"device", "trn2"}, {"step_s", 1.0}},
         {{"recipe", "kit-baseline"}, {"device", "trn2"}, {"set", {"batch.rows=32"}}, {"step_s", 0.5}}}}};
  e = testing_support::error_text_of([&] { fit(j); });
  EXPECT_NE(e.find("collective_efficiency (moves no run)"), std::string::npos) << e;
  EXPECT_NE(e.find("other data- or tensor-parallel layouts"), std::string::npos) << e;
}

TEST(Calibration, ContradictoryRunsNameTheOneThatDisagrees) {
  // The same step measured twice, 2x apart: no scale reproduces both.
  const nlohmann::json j = {
      {"base", "ideal"},
      {"runs",
       {k60_run(0, 0.3), {{"label", "again"}, {"recipe", "frontierforge-k60"}, {"device", "trn2"}, {"step_s", 0.6}}}}};
  const std::string e = testing_support::error_text_of([&] { fit(j); });
  EXPECT_NE(e.find("contradictory"), std::string::npos) << e;
  EXPECT_TRUE(e.find("'again'") != std::string::npos || e.find("'k1'") != std::string::npos) << e;
}

TEST(Calibration, HeldOutRunsAreCheckedNotFitted) {
  nlohmann::json j = synthetic({0, 1, 2});
  j["runs"][1]["held_out"] = true;
  j["runs"][1]["step_s"] = j["runs"][1]["step_s"].get<double>() * 1.25;  // measured 25 % slower than the truth
  const Calibration c = fit(j);
  EXPECT_TRUE(c.runs[1].held_out);
  EXPECT_NEAR(*c.runs[1].loo_error, 1 / 1.25 - 1, 1e-6);  // the fit on the other two predicts the truth
  EXPECT_NEAR(c.profile.band_high.value, 1.25, 1e-6);     // and its miss widens the band
  EXPECT_NEAR(c.profile.value(StackParam::step_overhead_s), 0.04, 1e-7);
}

TEST(Calibration, RunsFilesAreReadStrictly) {
  const Home home = find_home();
  auto error_of = [&](nlohmann::json j) {
    return testing_support::error_text_of([&] { calibration_spec_from_json(j, "runs.json", home); });
  };
  nlohmann::json good = synthetic({0});
  nlohmann::json j = good;
  j["bogus"] = 1;
  EXPECT_NE(error_of(j).find("unknown key 'bogus'"), std::string::npos);
  j = good;
  j["runs"][0].erase("step_s");
  EXPECT_NE(error_of(j).find("step_s must be a number"), std::string::npos);
  j = good;
  j["runs"][0]["device"] = "h100";
  EXPECT_NE(error_of(j).find("not a Trainium device"), std::string::npos);
  j = good;
  j["runs"][0]["phase"] = 7;
  EXPECT_NE(error_of(j).find("the recipe has 3 batch phase(s)"), std::string::npos);
  j = good;
  j["fit"] = {"speed"};
  EXPECT_NE(error_of(j).find("unknown parameter 'speed'"), std::string::npos);
  j = good;
  j["runs"][0]["recipe"] = "no-such-recipe";
  EXPECT_NE(error_of(j).find("no-such-recipe"), std::string::npos);
  j = good;
  j["runs"][0]["held_out"] = true;
  EXPECT_NE(error_of(j).find("every run is held out"), std::string::npos);
  // A kernel call: dispatch + the kernel + the launch gap.
  j = {{"base", "ideal-eager"},
       {"runs", {{{"call", {{"matmul", {512, 512, 512}}, {"dtype", "f32"}}}, {"device", "trn1"}, {"call_s", 1e-3}}}}};
  const CalibrationSpec s = calibration_spec_from_json(j, "runs.json", home);
  StackProfile d = recipe::builtin_stack("ideal-eager");
  d.param(StackParam::op_dispatch_s).value = 1e-3;
  const double with = predicted_run_seconds(s.runs[0], d);
  d.param(StackParam::op_dispatch_s).value = 0;
  EXPECT_NEAR(with - predicted_run_seconds(s.runs[0], d), 1e-3, 1e-12);
}

}  // namespace
}  // namespace nanotrn::predict
