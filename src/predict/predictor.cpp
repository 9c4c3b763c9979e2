// Per-phase prediction and the budget walk. See predictor.h.
#include "predict/predictor.h"

#include <chrono>

#include "base/error.h"

namespace nanotrn::predict {

int active_mtp_heads(const train::Recipe& r, double p) {
  // Mirrors Trainer::State::mtp_weights and Gpt::loss: weights faded by (1 - p / mtp_until), zero weights skipped.
  std::vector<float> w = r.train.mtp_weights;
  if (w.empty()) return 1;
  if (r.train.mtp_until > 0.0) {
    const float fade = static_cast<float>(std::max(0.0, 1.0 - p / r.train.mtp_until));
    for (size_t j = 1; j < w.size(); j++) w[j] *= fade;
  }
  int n = 0;
  for (float x : w) n += x != 0.0f ? 1 : 0;
  return std::max(n, 1);
}

BudgetWalk walk_budget(const train::Recipe& r, const std::function<double(size_t, int)>& step_seconds) {
  const double budget = train::budget_seconds(r);
  BudgetWalk w;
  w.steps_per_phase.assign(r.batch.phases.size(), 0);
  constexpr int64_t kMaxSteps = 100'000'000;
  while (true) {
    if (budget > 0.0 && w.charged_s >= budget) break;
    if (r.train.steps > 0 && w.steps >= r.train.steps) break;
    check(w.steps < kMaxSteps, "walk_budget: more than 1e8 steps; is the step time zero?");
    const double p =
        budget > 0.0 ? w.charged_s / budget : static_cast<double>(w.steps) / static_cast<double>(r.train.steps);
    size_t k = 0;
    for (size_t i = 0; i < r.batch.phases.size(); i++) {
      if (r.batch.phases[i].from <= p) k = i;
    }
    const double s = step_seconds(k, active_mtp_heads(r, p));
    check(s > 0.0, "walk_budget: step time must be positive");
    w.charged_s += s;
    w.steps++;
    w.steps_per_phase[k]++;
    w.tokens += r.batch.phases[k].accum * r.batch.rows * r.batch.seq_len;
  }
  return w;
}

Prediction predict(StepModel& m) {
  const auto t0 = std::chrono::steady_clock::now();
  const train::Recipe& r = m.recipe();
  Prediction p;
  p.recipe = r.name;
  p.device = m.device().name;
  p.device_kind = hw::to_string(m.device().kind);
  p.lnc = m.lnc();
  p.ranks = m.ranks();
  p.rows_per_rank = m.rows_per_rank();
  p.seq_len = r.batch.seq_len;
  p.dtype = std::string(dtype_name(m.dtype()));
  p.flops_per_token = model::flops_per_token(m.config(), r.batch.seq_len);
  p.peak_flops = m.device().peak_bf16_flops();
  p.params = model::count_params(m.config()).total();
  p.budget_s = train::budget_seconds(r);
  for (size_t i = 0; i < r.batch.phases.size(); i++) {
    PhasePrediction ph;
    ph.index = i;
    ph.from = r.batch.phases[i].from;
    ph.accum = r.batch.phases[i].accum;
    ph.mtp_heads = active_mtp_heads(r, ph.from);
    ph.time = m.step(ph.accum, ph.mtp_heads);
    ph.tokens_per_s = static_cast<double>(ph.time.tokens) / ph.time.step_s;
    ph.mfu = p.peak_flops > 0 ? ph.tokens_per_s * p.flops_per_token / p.peak_flops : 0.0;
    p.phases.push_back(std::move(ph));
  }
  p.walk = walk_budget(r, [&m, &r](size_t k, int heads) { return m.step(r.batch.phases[k].accum, heads).step_s; });
  p.notes = m.notes();
  p.kernels_timed = m.coster().kernels_timed();
  p.shapes_cached = m.coster().cache_size();
  p.rank_peak_flops = m.coster().rank_peak_flops(m.dtype());
  p.rank_bytes_per_s = m.coster().rank_bytes_per_s();
  p.predict_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

Prediction predict(const train::Recipe& recipe, const hw::Device& device, const PredictOptions& options) {
  StepModel m(recipe, device, options);
  return predict(m);
}

}  // namespace nanotrn::predict
