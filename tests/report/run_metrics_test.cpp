// metrics.jsonl read back: fields, errors that name the line, a resumed run's re-run steps; and on a real trainer
// run, the newly logged Muon momentum and weight decay follow the recipe's schedules (recipe-spec §3.3: a linear
// momentum warm-up, weight decay decayed linearly to zero with progress), computed here from the recipe.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include <limits>

#include "base/error.h"
#include "model/config.h"
#include "recipe/recipe.h"
#include "report/run_metrics.h"
#include "support/error_of.h"
#include "support/pattern_data.h"
#include "train/trainer.h"

namespace nanotrn::report {
namespace {

const char* kStart = R"({"event":"start","recipe":{"name":"r"},"step":0})";

std::string step_line(int step, double loss) {
  return R"({"event":"step","step":)" + std::to_string(step) + R"(,"phase":0,"tokens":)" + std::to_string(64 * step) +
         R"(,"loss":)" + std::to_string(loss) +
         R"(,"lr_multiplier":1,"muon_momentum":0.9,"weight_decay":0.1,"charged_seconds":)" + std::to_string(step) +
         R"(,"tokens_per_second":64,"host_tokens_per_second":60,"mfu":0.25})";
}

TEST(RunMetrics, ReadsStepsEvalsAndTheSummary) {
  const std::string text = std::string(kStart) + "\n" + step_line(1, 4.0) + "\n" + step_line(2, 3.5) + "\n\n" +
                           R"({"event":"eval","step":2,"charged_seconds":2.0,"val_bpb":1.5})" + "\n" +
                           R"({"event":"summary","steps":2,"tokens":128,"charged_seconds":2.0,"val_bpb":null})";
  const RunMetrics m = parse_run_metrics(text, "m.jsonl");
  EXPECT_EQ(m.recipe["name"], "r");
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps[1].step, 2);
  EXPECT_DOUBLE_EQ(m.steps[1].loss, 3.5);
  EXPECT_DOUBLE_EQ(m.steps[1].peak_fraction, 0.25);
  EXPECT_EQ(m.peak_kind, "mfu");
  ASSERT_EQ(m.evals.size(), 1u);
  EXPECT_DOUBLE_EQ(m.evals[0].val_bpb, 1.5);
  EXPECT_EQ(m.summary["steps"], 2);
  // val_bpb points: the eval only, since the summary's score is null
  EXPECT_EQ(metric_points(m, Metric::val_bpb, XAxis::step).size(), 1u);
  EXPECT_EQ(metric_points(m, Metric::loss, XAxis::charged_seconds)[1], std::make_pair(2.0, 3.5));
}

TEST(RunMetrics, AResumeFromAnEarlierCheckpointReplacesTheReRunSteps) {
  const std::string text = std::string(kStart) + "\n" + step_line(1, 4.0) + "\n" + step_line(2, 3.5) + "\n" +
                           step_line(3, 3.0) + "\n" + kStart + "\n" + step_line(3, 2.9) + "\n" + step_line(4, 2.5);
  const RunMetrics m = parse_run_metrics(text, "m.jsonl");
  ASSERT_EQ(m.steps.size(), 4u);
  EXPECT_DOUBLE_EQ(m.steps[2].loss, 2.9);
  EXPECT_EQ(m.steps[3].step, 4);
}

// x by tokens (an evaluation at a step takes that step's tokens, the summary its own), and TensorBoard's debiased
// exponential smoothing computed by hand: s = w s + (1 - w) y, shown as s / (1 - w^(i+1)).
TEST(RunMetrics, TokensAxisAndSmoothing) {
  const std::string text = std::string(kStart) + "\n" + step_line(1, 4.0) + "\n" + step_line(2, 2.0) + "\n" +
                           R"({"event":"eval","step":2,"charged_seconds":2.0,"val_bpb":1.5})" + "\n" +
                           R"({"event":"summary","steps":2,"tokens":128,"charged_seconds":2.0,"val_bpb":1.25})";
  const RunMetrics m = parse_run_metrics(text, "m.jsonl");
  EXPECT_EQ(metric_points(m, Metric::loss, parse_x_axis("tokens")),
            (std::vector<std::pair<double, double>>{{64.0, 4.0}, {128.0, 2.0}}));
  EXPECT_EQ(metric_points(m, Metric::val_bpb, XAxis::tokens),
            (std::vector<std::pair<double, double>>{{128.0, 1.5}, {128.0, 1.25}}));
  EXPECT_EQ(x_axis_label(XAxis::tokens), "tokens");
  // By FLOPs: the tokens times the recipe's FLOPs per token (the default recipe's model here: {"name": "r"}),
  // computed from recipe-spec §2.4 by the formula's own terms: 6 x the matmul parameters + 12 x heads x head_dim x T
  // per layer.
  const recipe::Recipe r = recipe::recipe_from_json(nlohmann::json{{"name", "r"}});
  const model::GptConfig c = model::resolve(r.model);
  const double per_token = 6.0 * static_cast<double>(model::count_params(c).scaling()) +
                           12.0 * static_cast<double>(c.n_head * c.head_dim * r.batch.seq_len * c.depth);
  const auto by_flops = metric_points(m, Metric::loss, parse_x_axis("flops"));
  ASSERT_EQ(by_flops.size(), 2u);
  EXPECT_DOUBLE_EQ(by_flops[1].first, 128.0 * per_token);
  RunMetrics no_recipe = m;
  no_recipe.flops_per_token = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(testing_support::error_message_of([&] {
              metric_points(no_recipe, Metric::loss, XAxis::flops);
            }).find("has no FLOP axis"),
            std::string::npos);
  const auto s = smooth({{1, 4.0}, {2, 2.0}, {3, 3.0}}, 0.5);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s[0].second, 4.0);                        // 2 / 0.5
  EXPECT_DOUBLE_EQ(s[1].second, (0.5 * 2.0 + 1.0) / 0.75);   // (1 + 1) / 0.75
  EXPECT_DOUBLE_EQ(s[2].second, (0.5 * 2.0 + 1.5) / 0.875);  // s2 = 0.5 * 2 + 1.5 = 2.5
  EXPECT_EQ(smooth({{1, 4.0}, {2, 2.0}}, 0.0), (std::vector<std::pair<double, double>>{{1, 4.0}, {2, 2.0}}));
  EXPECT_THROW(smooth({{1, 4.0}}, 1.0), Error);
}

// A process killed while writing leaves a last line without its line break and cut mid-JSON: that line is left out
// and named; the rest of the run is read. A complete last line without a break is kept; a broken line that is not
// the last is still an error.
TEST(RunMetrics, ATornLastLineIsLeftOutAndNamed) {
  const std::string head = std::string(kStart) + "\n" + step_line(1, 4.0) + "\n";
  const std::string cut = step_line(2, 3.5).substr(0, 20);
  const RunMetrics m = parse_run_metrics(head + cut, "m.jsonl");
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(m.torn_tail, "m.jsonl: the last line (byte " + std::to_string(head.size()) +
                             " on, 20 bytes) is cut short, as a process killed while writing it leaves it; left out");
  const RunMetrics whole = parse_run_metrics(head + step_line(2, 3.5), "m.jsonl");
  EXPECT_EQ(whole.steps.size(), 2u);
  EXPECT_EQ(whole.torn_tail, "");
  EXPECT_NE(testing_support::error_message_of([&] {
              parse_run_metrics(head + cut + "\n" + step_line(3, 3.0) + "\n", "m.jsonl");
            }).find("m.jsonl:3: not valid JSON"),
            std::string::npos);
}

TEST(RunMetrics, ErrorsNameTheFileAndLine) {
  EXPECT_NE(testing_support::error_message_of([] {
              parse_run_metrics(step_line(1, 1.0), "m.jsonl");
            }).find("m.jsonl:1: \"step\" event before any start event"),
            std::string::npos);
  std::string broken = step_line(2, 1.0);
  broken.replace(broken.find("\"loss\""), 6, "\"lost\"");
  EXPECT_NE(testing_support::error_message_of([&] {
              parse_run_metrics(std::string(kStart) + "\n" + broken, "m.jsonl");
            }).find("m.jsonl:2: \"loss\" is missing"),
            std::string::npos);
  EXPECT_NE(testing_support::error_message_of([] {
              parse_run_metrics("{\"event\":\"start\"}\n", "m.jsonl");
            }).find("m.jsonl:1: start event without a recipe object"),
            std::string::npos);
  EXPECT_NE(
      testing_support::error_message_of([] { parse_run_metrics("\n", "m.jsonl"); }).find("m.jsonl: no start event"),
      std::string::npos);
  EXPECT_NE(testing_support::error_message_of([] { parse_metric("los"); }).find("unknown metric 'los' (one of: loss,"),
            std::string::npos);
}

TEST(RunMetrics, TheTrainersLoggedSchedulesFollowTheRecipe) {
  const recipe::Recipe r = recipe::default_recipe_with(
      {"model.vocab_size=64", "model.depth=2", "model.model_dim=32", "model.head_dim=16", "model.n_kv_head=1",
       "model.ve_gate_channels=8", "batch.seq_len=16", "batch.rows=4", "train.budget=0", "train.steps=12",
       "train.log_every=1", "eval.tokens=256", "eval.rows=4", "optim.momentum_start=0.8", "optim.momentum=0.95",
       "optim.momentum_warmup_steps=8", "optim.muon_weight_decay=0.2", "optim.muon_wd_decay_to_zero=true"});
  const std::string dir = ::testing::TempDir() + "/nanotrn_run_metrics";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  recipe::FixedClock clock(0.01);
  train::TrainerOptions o;
  o.out_dir = dir;
  train::Trainer t(r, testing_support::pattern_data(r), clock, o);
  const train::TrainResult res = t.run();
  const RunMetrics m = read_run_metrics(dir + "/metrics.jsonl");
  ASSERT_EQ(m.steps.size(), 12u);
  for (const StepRecord& s : m.steps) {
    const int64_t k = s.step - 1;  // the record of step s is written after the optimiser step k = s - 1
    const double mu = 0.8 + (0.95 - 0.8) * std::min(1.0, static_cast<double>(k) / 8.0);
    EXPECT_NEAR(s.muon_momentum, mu, 1e-6) << s.step;
    const double progress = static_cast<double>(k) / 12.0;  // step-limited run: step / steps
    EXPECT_NEAR(s.weight_decay, 0.2 * (1.0 - progress), 1e-6) << s.step;
  }
  EXPECT_DOUBLE_EQ(m.steps.back().loss, res.last_loss);
  EXPECT_EQ(m.summary["steps"], res.steps);
}

}  // namespace
}  // namespace nanotrn::report
