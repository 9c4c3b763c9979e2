// The budget rules (recipe/budget.h) against hand arithmetic: progress, the phase in force, the MTP fade, the stop,
// and the walk the predictor and the trainer both take.
#include <gtest/gtest.h>

#include <cmath>

#include "base/error.h"
#include "recipe/budget.h"

namespace nanotrn::recipe {
namespace {

Recipe phased_recipe(const std::string& budget, int64_t steps = 0) {
  return default_recipe_with({"batch.rows=2", "batch.seq_len=8",
                              "batch.phases=[{\"from\":0,\"accum\":1},{\"from\":0.25,\"accum\":2},{\"from\":0.5,"
                              "\"accum\":4}]",
                              "train.mtp_weights=[1.0,0.5,0.25]", "train.mtp_until=0.4", "train.budget=" + budget,
                              "train.steps=" + std::to_string(steps)});
}

TEST(Budget, ProgressPhaseAndFadeFollowTheRules) {
  const Recipe r = phased_recipe("100s");
  EXPECT_DOUBLE_EQ(progress(r, {.step = 3, .charged_s = 30}), 0.3);
  EXPECT_EQ(phase_at(r, 0.0), 0u);
  EXPECT_EQ(phase_at(r, 0.2499), 0u);
  EXPECT_EQ(phase_at(r, 0.25), 1u);
  EXPECT_EQ(phase_at(r, 0.9), 2u);
  // At progress 0.2 the extra heads carry (1 - 0.2 / 0.4) = half their weight; head 0 never fades.
  const std::vector<float> w = mtp_weights_at(r, 0.2);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_FLOAT_EQ(w[0], 1.0f);
  EXPECT_FLOAT_EQ(w[1], 0.25f);
  EXPECT_FLOAT_EQ(w[2], 0.125f);
  EXPECT_EQ(active_heads(w), 3);
  EXPECT_EQ(active_heads(mtp_weights_at(r, 0.4)), 1);  // faded out
  const NextStep n = next_step(r, {.step = 5, .charged_s = 60});
  EXPECT_EQ(n.phase, 2u);
  EXPECT_EQ(n.accum, 4);
  EXPECT_EQ(n.tokens, 4 * 2 * 8);
  EXPECT_EQ(n.mtp_heads, 1);
}

TEST(Budget, StepBudgetUsesStepsAndStopsThere) {
  const Recipe r = phased_recipe("0", 8);
  EXPECT_DOUBLE_EQ(progress(r, {.step = 2, .charged_s = 999}), 0.25);
  EXPECT_EQ(budget_stop(r, {.step = 7}), BudgetStop::none);
  EXPECT_EQ(budget_stop(r, {.step = 8}), BudgetStop::steps);
  const BudgetWalk w = walk_budget(r, [](const NextStep&) { return 1.0; });
  EXPECT_EQ(w.steps, 8);
  // Steps 0-1 at progress < 0.25, 2-3 before 0.5, 4-7 after.
  EXPECT_EQ(w.steps_per_phase, (std::vector<int64_t>{2, 2, 4}));
  EXPECT_EQ(w.tokens, (2 * 1 + 2 * 2 + 4 * 4) * 16);
}

TEST(Budget, TimeBudgetWalkStopsOnceChargedReachesTheBudget) {
  const Recipe r = phased_recipe("10s");
  // A step costs its micro-batches: 1 s per micro-batch.
  const BudgetWalk w = walk_budget(r, [](const NextStep& n) { return static_cast<double>(n.accum); });
  // Charged before each step: 0, 1, 2 (phase 0), 3 (progress 0.3: phase 1, 2 s), 5 and 9 (phase 2, 4 s each);
  // then 13 >= 10 stops.
  EXPECT_EQ(w.steps_per_phase, (std::vector<int64_t>{3, 1, 2}));
  EXPECT_EQ(w.steps, 6);
  EXPECT_DOUBLE_EQ(w.charged_s, 3 * 1.0 + 2.0 + 2 * 4.0);
  EXPECT_EQ(budget_stop(r, {.step = 6, .charged_s = w.charged_s}), BudgetStop::budget);
  EXPECT_THROW(walk_budget(r, [](const NextStep&) { return 0.0; }), Error);
}

TEST(Budget, BudgetForTokensIsTheShortestBudgetThatReachesThem) {
  // The phased recipe (its phases at fractions of the budget) at 1 s per micro-batch and a 2.5 s startup charge;
  // the reference scans budgets on a 1 ms grid for the first that reaches the target.
  const Recipe r = phased_recipe("10s");
  const auto seconds = [](const NextStep& n) { return static_cast<double>(n.accum); };
  const auto tokens_at = [&](double b) {
    Recipe t = r;
    t.train.budget = Duration{"scan", b};
    return walk_budget(t, seconds, 2.5).tokens;
  };
  for (const int64_t target : {int64_t{1}, int64_t{16}, int64_t{17}, int64_t{200}, int64_t{1000}}) {
    const double b = budget_for_tokens(r, seconds, 2.5, target);
    double scan = 2.501;
    while (tokens_at(scan) < target) scan += 0.001;
    EXPECT_GE(tokens_at(b), target) << target;
    EXPECT_LT(tokens_at(b * (1 - 1e-7)), target) << target;
    EXPECT_NEAR(b, scan, 0.001 + 1e-9) << target;
  }
  // The recipe's own step limit is replaced, not obeyed.
  EXPECT_GE(tokens_at(budget_for_tokens(phased_recipe("0", 2), seconds, 2.5, 1000)), 1000);
  EXPECT_THROW(budget_for_tokens(r, seconds, 0.0, 0), Error);
}

}  // namespace
}  // namespace nanotrn::recipe
