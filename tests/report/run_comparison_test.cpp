// `report A B` (report/run_comparison.h) on metrics files written here by hand (not by the trainer): the recipe
// fields that differ, each run's figures from its summary or, unfinished, from its last records, and the page's keyed
// cells and overlaid curves carrying those exact values. recipe::differing_fields against hand-listed paths.
#include <gtest/gtest.h>

#include "base/error.h"
#include "recipe/recipe_diff.h"
#include "report/run_comparison.h"

namespace nanotrn::report {
namespace {

std::string compared_step(int step, double loss) {
  return R"({"event":"step","step":)" + std::to_string(step) + R"(,"phase":0,"tokens":)" + std::to_string(64 * step) +
         R"(,"loss":)" + std::to_string(loss) + R"(,"lr_multiplier":1,"charged_seconds":)" + std::to_string(step) +
         R"(,"tokens_per_second":64,"host_tokens_per_second":60})" + "\n";
}

RunMetrics run_file(const std::string& path, const std::string& recipe, bool finished) {
  std::string text = R"({"event":"start","recipe":)" + recipe + R"(,"step":0})" + "\n" + compared_step(1, 4.0) +
                     compared_step(2, 3.5) + R"({"event":"eval","step":2,"charged_seconds":2.0,"val_bpb":1.5})" + "\n";
  if (finished) {
    text += R"({"event":"summary","steps":2,"tokens":128,"charged_seconds":2.5,"wall_seconds":3.25,)"
            R"("last_loss":3.5,"val_bpb":1.25})";
  }
  return parse_run_metrics(text, path);
}

TEST(RunComparison, FieldsThatDifferAndEachRunsFigures) {
  const std::vector<RunMetrics> runs = {
      run_file("out/a/metrics.jsonl", R"({"name":"a","optim":{"matrix_lr":0.04,"kind":"muon"},"seed":1})", true),
      run_file("out/b/metrics.jsonl", R"({"name":"b","optim":{"matrix_lr":0.02,"kind":"muon"},"seed":1})", false)};
  const RunComparison c = compare_runs(runs);
  EXPECT_EQ(c.fields, std::vector<std::string>{"optim.matrix_lr"});  // the name is left out; seed and kind agree
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[0].label, "a");
  EXPECT_TRUE(c.runs[0].finished);
  EXPECT_DOUBLE_EQ(c.runs[0].val_bpb, 1.25);
  EXPECT_DOUBLE_EQ(c.runs[0].wall_seconds, 3.25);
  EXPECT_EQ(c.runs[0].values, std::vector<std::string>{"0.04"});
  EXPECT_FALSE(c.runs[1].finished);  // from its last eval and step records
  EXPECT_DOUBLE_EQ(c.runs[1].val_bpb, 1.5);
  EXPECT_EQ(c.runs[1].steps, 2);
  EXPECT_EQ(c.runs[1].tokens, 128);
  EXPECT_DOUBLE_EQ(c.runs[1].last_loss, 3.5);
  const std::string text = comparison_text(c);
  EXPECT_NE(text.find("1.5000 (unfinished)"), std::string::npos) << text;
  EXPECT_NE(text.find("optim.matrix_lr"), std::string::npos) << text;
  const std::string page = comparison_html(c, runs);
  EXPECT_NE(page.find(R"(data-key="run0.val_bpb" data-value="1.25")"), std::string::npos);
  EXPECT_NE(page.find(R"(data-key="run1.val_bpb" data-value="1.5")"), std::string::npos);
  for (const char* plot : {"loss_vs_step", "loss_vs_tokens", "val_bpb_vs_time"}) {
    EXPECT_NE(page.find(std::string("data-plot=\"") + plot + "\""), std::string::npos) << plot;
  }
  EXPECT_NE(page.find(R"(data-series="b" data-points="1,4 2,3.5")"), std::string::npos);
  EXPECT_EQ(comparison_json(c)["runs"][1]["wall_seconds"], nullptr);
}

TEST(RunComparison, SameFolderNamesAreNumberedAndOneRunIsRefused) {
  const std::vector<RunMetrics> runs = {run_file("x/run/metrics.jsonl", R"({"seed":1})", true),
                                        run_file("y/run/metrics.jsonl", R"({"seed":1})", true)};
  const RunComparison c = compare_runs(runs);
  EXPECT_EQ(c.runs[0].label, "run (1)");
  EXPECT_EQ(c.runs[1].label, "run (2)");
  EXPECT_TRUE(c.fields.empty());
  EXPECT_NE(comparison_text(c).find("the runs' recipes are the same"), std::string::npos);
  EXPECT_THROW(compare_runs({runs[0]}), Error);
}

TEST(RecipeDiff, DifferingFieldsAreTheLeavesNotEqualEverywhere) {
  const nlohmann::json a = {{"optim", {{"lr", 1}, {"betas", {0.9, 0.95}}}}, {"seed", 1}};
  const nlohmann::json b = {{"optim", {{"lr", 1}, {"betas", {0.9, 0.99}}}}, {"seed", 1}, {"extra", true}};
  const nlohmann::json c = {{"optim", {{"lr", 2}, {"betas", {0.9, 0.95}}}}, {"seed", 1}};
  EXPECT_EQ(recipe::differing_fields({a, b, c}), (std::vector<std::string>{"extra", "optim.betas", "optim.lr"}));
  EXPECT_TRUE(recipe::differing_fields({a, a}).empty());
  EXPECT_EQ(recipe::flatten_fields(a).at("optim.betas"), (nlohmann::json{0.9, 0.95}));
}

}  // namespace
}  // namespace nanotrn::report
