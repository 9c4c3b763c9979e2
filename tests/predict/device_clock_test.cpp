// The device clock in the trainer: a small recipe trained under --clock trn2 stops at exactly the step count the
// predictor's budget walk gives (ceil(budget / predicted step time) for one phase), and the clock charges the
// predicted step time, not the wall time.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "hw/catalog.h"
#include "predict/device_clock.h"
#include "predict/predictor.h"
#include "support/error_of.h"
#include "train/token_source.h"
#include "train/trainer.h"

namespace nanotrn::predict {
namespace {

recipe::Recipe small(const std::string& budget) {
  return recipe::default_recipe_with({"model.vocab_size=64", "model.depth=2", "model.model_dim=32", "model.head_dim=16",
                                      "model.n_kv_head=1", "model.ve_gate_channels=8", "batch.seq_len=16",
                                      "batch.rows=4", "train.budget=" + budget, "eval.tokens=256", "eval.rows=4",
                                      "train.log_every=1000", "train.threads=1", "launch.stack=ideal"});
}

train::TrainerData synthetic(const recipe::Recipe& r) {
  train::TrainerData d;
  d.train = train::make_pattern_source(static_cast<int32_t>(r.model.vocab_size), 11);
  d.val = nullptr;
  return d;
}

TEST(DeviceClock, TrainerStopsAtThePredictedStepCount) {
  const recipe::Recipe r = small("0.2s");  // ~70 predicted steps: fast on the host
  std::unique_ptr<recipe::Clock> clock = make_device_clock("trn2", r);
  EXPECT_EQ(clock->name(), "trn2");
  const Prediction p = predict(r, hw::builtin_catalog().find("trn2"));
  const double t = p.phases.at(0).time.step_s;
  train::Trainer trainer(r, synthetic(r), *clock, {});
  const train::TrainResult res = trainer.run();
  EXPECT_EQ(res.stop_reason, "budget");
  EXPECT_EQ(res.steps, p.walk.steps);
  EXPECT_EQ(res.steps, static_cast<int64_t>(std::ceil(0.2 / t)));
  EXPECT_NEAR(res.charged_seconds, static_cast<double>(res.steps) * t, 1e-9 * res.charged_seconds);
}

// Batch phases and an MTP fade: the trainer (its loop) and the predictor (its walk) take the same steps because both
// follow recipe/budget.h.
TEST(DeviceClock, TrainerAndPredictorWalkPhasesAndMtpFadeAlike) {
  recipe::Recipe r = small("0.3s");
  r.batch.phases = {{.from = 0.0, .accum = 1, .lr_scale = 1.0}, {.from = 0.4, .accum = 2, .lr_scale = 1.0}};
  r.train.mtp_weights = {1.0f, 0.5f};
  r.train.mtp_until = 0.3;
  std::unique_ptr<recipe::Clock> clock = make_device_clock("trn2", r);
  const Prediction p = predict(r, hw::builtin_catalog().find("trn2"));
  ASSERT_EQ(p.walk.steps_per_phase.size(), 2u);
  EXPECT_GT(p.walk.steps_per_phase[0], 0);
  EXPECT_GT(p.walk.steps_per_phase[1], 0);
  train::Trainer trainer(r, synthetic(r), *clock, {});
  const train::TrainResult res = trainer.run();
  EXPECT_EQ(res.steps, p.walk.steps);
  EXPECT_NEAR(res.charged_seconds, p.walk.charged_s, 1e-9 * p.walk.charged_s);
}

TEST(DeviceClock, ChargesThePhaseAndMtpHeadsOfTheStep) {
  recipe::Recipe r = small("10s");
  r.batch.phases = {{.from = 0.0, .accum = 1, .lr_scale = 1.0}, {.from = 0.5, .accum = 2, .lr_scale = 1.0}};
  r.train.mtp_weights = {1.0f, 0.5f};
  r.train.mtp_until = 0.25;
  DeviceClock clock(r, hw::builtin_catalog().find("trn2"));
  const recipe::StepInfo first{
      .step = 0, .phase = 0, .accum = 1, .rows = 4, .seq_len = 16, .tokens = 64, .mtp_heads = 2};
  // The trainer's step: both CE heads active at progress 0; later, one (whatever the clock has charged so far, as
  // after --resume).
  EXPECT_DOUBLE_EQ(clock.charge(first, 123.0), clock.step_seconds(1, 2));
  const recipe::StepInfo later{
      .step = 7, .phase = 1, .accum = 2, .rows = 4, .seq_len = 16, .tokens = 128, .mtp_heads = 1};
  EXPECT_DOUBLE_EQ(clock.charge(later, 1.0), clock.step_seconds(2, 1));
  EXPECT_GT(clock.step_seconds(1, 2), clock.step_seconds(1, 1));
  EXPECT_GT(clock.step_seconds(2, 1), clock.step_seconds(1, 1));
  EXPECT_THROW(make_device_clock("host", r), Error);
  EXPECT_THROW(make_device_clock("trn9", r), Error);
}

// A stack that compiles: the clock charges the compile time (less the allowance) before the first step, and trainer
// and predictor still stop at the same step with the same charged total.
TEST(DeviceClock, StartupChargeIsPaidBeforeTheFirstStepByTrainerAndPredictorAlike) {
  recipe::Recipe r = small("0.2s");
  r.launch.stack.param(recipe::StackParam::compile_s_per_instruction).value = 1e-4;  // about 0.1 s
  r.launch.compile_allowance_s = 0.01;
  std::unique_ptr<recipe::Clock> clock = make_device_clock("trn2", r);
  const Prediction p = predict(r, hw::builtin_catalog().find("trn2"));
  ASSERT_GT(p.compile_s, 0.01);
  EXPECT_NEAR(p.startup_s, p.compile_s - 0.01, 1e-12);
  EXPECT_DOUBLE_EQ(clock->startup_charge(), p.startup_s);
  train::Trainer trainer(r, synthetic(r), *clock, {});
  const train::TrainResult res = trainer.run();
  EXPECT_EQ(res.steps, p.walk.steps);
  EXPECT_NEAR(res.charged_seconds, p.walk.charged_s, 1e-9 * p.walk.charged_s);
  // The steps fit in what the startup left.
  const double t = p.phases.at(0).time.step_s;
  EXPECT_EQ(res.steps, static_cast<int64_t>(std::ceil((0.2 - p.startup_s) / t)));
}

// trn2:low and trn2:high charge the ends of the stack's band, and walk the budget to the band's step counts.
TEST(DeviceClock, BandEndsChargeTheBand) {
  recipe::Recipe r = small("5s");  // about 35 steps of 0.14 s
  r.launch.stack = recipe::builtin_stack("nki-tuned");
  r.launch.stack.param(recipe::StackParam::compile_s_per_instruction).value = 0;
  const Prediction p = predict(r, hw::builtin_catalog().find("trn2"));
  const recipe::StepInfo first{
      .step = 0, .phase = 0, .accum = 1, .rows = 4, .seq_len = 16, .tokens = 64, .mtp_heads = 1};
  for (const auto& [spec, want, steps] : {std::tuple{"trn2:low", p.phases[0].time.step_s_band[0], p.walk_low.steps},
                                          std::tuple{"trn2:high", p.phases[0].time.step_s_band[1], p.walk_high.steps},
                                          std::tuple{"trn2", p.phases[0].time.step_s, p.walk.steps}}) {
    std::unique_ptr<recipe::Clock> clock = make_clock_for(spec, r);
    EXPECT_EQ(clock->name(), spec);
    EXPECT_DOUBLE_EQ(clock->charge(first, 1.0), want) << spec;
    std::unique_ptr<recipe::Clock> fresh = make_clock_for(spec, r);
    train::Trainer trainer(r, synthetic(r), *fresh, {});
    EXPECT_EQ(trainer.run().steps, steps) << spec;
  }
  EXPECT_LT(p.walk_high.steps, p.walk.steps);
  EXPECT_GT(p.walk_low.steps, p.walk.steps);
  EXPECT_NE(testing_support::error_text_of([&] { make_clock_for("trn2:mid", r); }).find("low or high"),
            std::string::npos);
}

TEST(DeviceClock, ClockSpecsDispatch) {
  const recipe::Recipe r = small("1s");
  EXPECT_EQ(make_clock_for("trn3", r)->name(), "trn3");
  EXPECT_EQ(make_clock_for("wall", r)->name(), "wall");
  EXPECT_EQ(make_clock_for("fixed:0.5", r)->name(), "fixed");
  try {
    make_clock_for("trn7", r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("trn2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nanotrn::predict
