// The budget rules: how far a run has got, which batch phase and MTP weights its next step uses, and when it stops.
// One copy for the trainer (train/trainer.cpp) and the predictor's step count (predict/predictor.h), so that
// `nanotrn predict` and `nanotrn train --clock <device>` stop at the same step.
//
//   RunPosition at{.step = 12, .charged_s = 34.5};
//   NextStep n = next_step(recipe, at);        // n.progress, n.phase, n.mtp_weights, n.mtp_heads, n.tokens
//   if (budget_stop(recipe, at) != BudgetStop::none) ...
//   BudgetWalk w = walk_budget(recipe, [&](const NextStep& n) { return seconds_of(n); });
//
// Rules (recipe-spec §3.3, §6.4):
//  * progress = (charged - startup) / (budget - startup) when the recipe has a time budget (the schedule spans the
//    time left after the startup charge, a modelled device's compile time; 0 on the host), else step / train.steps;
//  * the phase is the last batch phase whose `from` <= progress;
//  * MTP head j >= 1 has weight mtp_weights[j] x max(0, 1 - progress / mtp_until) when mtp_until > 0 (head 0 never
//    fades); heads with a zero weight are skipped, so they cost nothing;
//  * the run stops before a step once charged >= budget (time budget) or step >= train.steps;
//  * a startup charge (a modelled device's compile time) is charged before the first step: it shortens the run.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "recipe/clock.h"
#include "recipe/recipe.h"

namespace nanotrn::recipe {

struct RunPosition {
  int64_t step = 0;      // steps taken
  double charged_s = 0;  // budget used: the startup charge and the steps
  double startup_s = 0;  // the startup charge in charged_s
};

struct NextStep {
  double progress = 0;
  size_t phase = 0;
  std::vector<float> mtp_weights;  // one per cross-entropy head, faded
  int mtp_heads = 1;               // heads with a non-zero weight (at least 1)
  int64_t accum = 1;               // micro-batches of the phase
  int64_t tokens = 0;              // accum x rows x seq_len
};

double progress(const Recipe& r, const RunPosition& at);
size_t phase_at(const Recipe& r, double progress);
std::vector<float> mtp_weights_at(const Recipe& r, double progress);
int active_heads(const std::vector<float>& weights);
NextStep next_step(const Recipe& r, const RunPosition& at);

enum class BudgetStop { none, budget, steps };
BudgetStop budget_stop(const Recipe& r, const RunPosition& at);

struct BudgetWalk {
  int64_t steps = 0;
  std::vector<int64_t> steps_per_phase;
  double charged_s = 0;
  int64_t tokens = 0;
};
// Walks the run with `step_seconds` as each step's charge (must be > 0), `startup_s` charged before the first step
// (the trainer's Clock::startup_charge); throws past 1e8 steps.
BudgetWalk walk_budget(const Recipe& r, const std::function<double(const NextStep&)>& step_seconds,
                       double startup_s = 0.0);

// The shortest time budget (seconds) whose walk reaches `tokens` (walk_budget with `step_seconds` and `startup_s`;
// r's own budget and step limit are replaced): what `predict --tokens N` prices, so that `train --budget <it>s`
// reaches N tokens under the same rules. Found by doubling, then bisection to 1e-9 of the budget (the walk's tokens
// grow with the budget); throws past 1e12 s.
double budget_for_tokens(const Recipe& r, const std::function<double(const NextStep&)>& step_seconds, double startup_s,
                         int64_t tokens);

// What a Clock is told of step `step` (clock.h): one construction for the trainer and for walks charged by a Clock.
StepInfo step_info(const Recipe& r, const NextStep& n, int64_t step);
// The walk a run under `clock` makes: each step charged by the clock (its wall time 0: for clocks that do not charge
// host time, not WallClock), its startup charge first.
BudgetWalk walk_budget_on(const Recipe& r, Clock& clock);

}  // namespace nanotrn::recipe
