// The budget rules. See budget.h.
#include "recipe/budget.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace nanotrn::recipe {

double progress(const Recipe& r, const RunPosition& at) {
  const double budget = budget_seconds(r);
  if (budget > 0.0) {
    const double left = budget - at.startup_s;
    return left > 0.0 ? (at.charged_s - at.startup_s) / left : 1.0;
  }
  return static_cast<double>(at.step) / static_cast<double>(r.train.steps);
}

size_t phase_at(const Recipe& r, double p) {
  size_t k = 0;
  for (size_t i = 0; i < r.batch.phases.size(); i++) {
    if (r.batch.phases[i].from <= p) k = i;
  }
  return k;
}

std::vector<float> mtp_weights_at(const Recipe& r, double p) {
  std::vector<float> w = r.train.mtp_weights;
  if (r.train.mtp_until > 0.0) {
    const float fade = static_cast<float>(std::max(0.0, 1.0 - p / r.train.mtp_until));
    for (size_t j = 1; j < w.size(); j++) w[j] *= fade;
  }
  return w;
}

int active_heads(const std::vector<float>& weights) {
  int n = 0;
  for (float x : weights) n += x != 0.0f ? 1 : 0;
  return std::max(n, 1);
}

NextStep next_step(const Recipe& r, const RunPosition& at) {
  NextStep n;
  n.progress = progress(r, at);
  n.phase = phase_at(r, n.progress);
  n.mtp_weights = mtp_weights_at(r, n.progress);
  n.mtp_heads = active_heads(n.mtp_weights);
  n.accum = r.batch.phases[n.phase].accum;
  n.tokens = n.accum * r.batch.rows * r.batch.seq_len;
  return n;
}

BudgetStop budget_stop(const Recipe& r, const RunPosition& at) {
  const double budget = budget_seconds(r);
  if (budget > 0.0 && at.charged_s >= budget) return BudgetStop::budget;
  if (r.train.steps > 0 && at.step >= r.train.steps) return BudgetStop::steps;
  return BudgetStop::none;
}

BudgetWalk walk_budget(const Recipe& r, const std::function<double(const NextStep&)>& step_seconds, double startup_s) {
  check(startup_s >= 0.0 && std::isfinite(startup_s), "walk_budget: the startup charge must be finite and >= 0");
  BudgetWalk w;
  w.steps_per_phase.assign(r.batch.phases.size(), 0);
  constexpr int64_t kMaxSteps = 100'000'000;
  RunPosition at{.step = 0, .charged_s = startup_s, .startup_s = startup_s};
  while (budget_stop(r, at) == BudgetStop::none) {
    check(at.step < kMaxSteps, "walk_budget: more than 1e8 steps; is the step time zero?");
    const NextStep n = next_step(r, at);
    const double s = step_seconds(n);
    check(s > 0.0, "walk_budget: step time must be positive");
    at.charged_s += s;
    at.step++;
    w.steps_per_phase[n.phase]++;
    w.tokens += n.tokens;
  }
  w.steps = at.step;
  w.charged_s = at.charged_s;
  return w;
}

double budget_for_tokens(const Recipe& r, const std::function<double(const NextStep&)>& step_seconds, double startup_s,
                         int64_t tokens) {
  check(tokens > 0, "budget_for_tokens: the token target must be positive");
  Recipe t = r;
  t.train.steps = 0;
  auto reaches = [&](double budget_s) {
    t.train.budget = Duration::of_seconds(budget_s);
    return walk_budget(t, step_seconds, startup_s).tokens >= tokens;
  };
  double lo = startup_s, hi = startup_s + 1.0;
  while (!reaches(hi)) {
    lo = hi;
    hi = startup_s + 2.0 * (hi - startup_s);
    check(hi < 1e12, "budget_for_tokens: " + std::to_string(tokens) + " tokens take more than 1e12 s");
  }
  while (hi - lo > 1e-9 * hi) {
    const double mid = 0.5 * (lo + hi);
    (reaches(mid) ? hi : lo) = mid;
  }
  return hi;
}

StepInfo step_info(const Recipe& r, const NextStep& n, int64_t step) {
  return {.step = step,
          .phase = static_cast<int64_t>(n.phase),
          .accum = n.accum,
          .rows = r.batch.rows,
          .seq_len = r.batch.seq_len,
          .tokens = n.tokens,
          .mtp_heads = n.mtp_heads};
}

BudgetWalk walk_budget_on(const Recipe& r, Clock& clock) {
  int64_t step = 0;
  return walk_budget(
      r, [&](const NextStep& n) { return clock.charge(step_info(r, n, step++), 0.0); }, clock.startup_charge());
}

}  // namespace nanotrn::recipe
