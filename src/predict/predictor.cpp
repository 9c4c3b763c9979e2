// Per-phase prediction and the budget walk. See predictor.h.
#include "predict/predictor.h"

#include <algorithm>
#include <chrono>

#include "base/error.h"
#include "base/format.h"
#include "data/epochs.h"

namespace nanotrn::predict {

namespace {

// The budget walks (recipe/budget.h) at the step time and the band's ends, over the recipe's budget or, with a token
// target, over the time the walk takes to reach it; the epochs of data.train and the cost of the run.
void walk(StepModel& m, Prediction& p) {
  const auto at = [&m](int end) {
    return [&m, end](const recipe::NextStep& n) {
      const StepTime& t = m.step(n.accum, n.mtp_heads);
      return end < 0 ? t.step_s : t.step_s_band[static_cast<size_t>(end)];
    };
  };
  recipe::Recipe r = m.recipe();
  p.target_tokens = m.options().tokens;
  if (p.target_tokens > 0) {
    const double b = recipe::budget_for_tokens(r, at(-1), p.startup_s, p.target_tokens);
    r.train.budget = recipe::Duration::of_seconds(b);
    r.train.steps = 0;
  }
  p.budget_s = recipe::budget_seconds(r);
  p.walk = recipe::walk_budget(r, at(-1), p.startup_s);
  p.walk_low = recipe::walk_budget(r, at(0), p.startup_s);
  p.walk_high = recipe::walk_budget(r, at(1), p.startup_s);
  p.epochs = data::epochs_needed(r.data.train, p.walk.tokens);
  p.cost = run_cost(p.walk.charged_s - p.startup_s + p.compile_s, p.layout.chips, p.layout.nodes, m.device().price);
}

}  // namespace

Prediction predict(StepModel& m) {
  const auto t0 = std::chrono::steady_clock::now();
  const recipe::Recipe& r = m.recipe();
  Prediction p;
  p.recipe = r.name;
  p.device = m.device().name;
  p.device_kind = hw::to_string(m.device().kind);
  p.layout = m.layout();
  p.memory = m.memory();
  p.lnc = m.lnc();
  p.ranks = m.ranks();
  p.rows_per_rank = m.rows_per_rank();
  p.seq_len = r.batch.seq_len;
  p.dtype = std::string(dtype_name(m.dtype()));
  p.flops_per_token = model::flops_per_token(m.config(), r.batch.seq_len);
  // The launched chips' peak: every node's chips used (launch.chips), idle cores included.
  p.peak_flops =
      m.device().value("peak_bf16_flops_per_chip") * static_cast<double>(m.layout().chips * m.layout().nodes);
  p.params = model::count_params(m.config()).total();
  for (size_t i = 0; i < r.batch.phases.size(); i++) {
    PhasePrediction ph;
    ph.index = i;
    ph.from = r.batch.phases[i].from;
    ph.accum = r.batch.phases[i].accum;
    ph.mtp_heads = recipe::active_heads(recipe::mtp_weights_at(r, ph.from));
    ph.time = m.step(ph.accum, ph.mtp_heads);
    ph.tokens_per_s = static_cast<double>(ph.time.tokens) / ph.time.step_s;
    ph.tokens_per_s_band = {static_cast<double>(ph.time.tokens) / ph.time.step_s_band[1],
                            static_cast<double>(ph.time.tokens) / ph.time.step_s_band[0]};
    ph.mfu = p.peak_flops > 0 ? ph.tokens_per_s * p.flops_per_token / p.peak_flops : 0.0;
    p.phases.push_back(std::move(ph));
  }
  p.stack = m.stack();
  p.compile_s = m.compile_seconds();
  p.startup_s = std::max(0.0, p.compile_s - r.launch.compile_allowance_s);
  walk(m, p);
  p.notes = m.notes();
  p.notes.insert(p.notes.end(), r.model_notes.begin(), r.model_notes.end());
  size_t untimed = 0;
  for (const PhasePrediction& ph : p.phases) {
    p.graph_instructions = std::max(p.graph_instructions, ph.time.graph_instructions);
    untimed = std::max(untimed, ph.time.untimed_ops);
  }
  if (m.device().kind == hw::DeviceKind::trainium && m.stack().execution == recipe::Execution::compiled) {
    const bool over = p.graph_instructions > kCompilerInstructionLimit;
    p.notes.push_back(std::string(over ? "WARNING: " : "") + "compiled micro-batch graph: at least " +
                      format_number("%.3g", p.graph_instructions) + " instructions from its tile kernels (" +
                      std::to_string(untimed) + " roofline ops not counted); neuronx-cc refuses graphs over 5M " +
                      "(NCC_EXTP004, recipe-spec §12)" +
                      (over ? ": this graph would not compile; split it (fewer rows per micro-batch)" : ""));
  }
  p.kernels_timed = m.coster().kernels_timed();
  p.shapes_cached = m.coster().cache_size();
  p.rank_peak_flops = m.coster().rank_peak_flops(m.dtype());
  p.rank_bytes_per_s = m.coster().rank_bytes_per_s();
  p.predict_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

Prediction predict(const recipe::Recipe& recipe, const hw::Device& device, const PredictOptions& options) {
  StepModel m(recipe, device, options);
  return predict(m);
}

}  // namespace nanotrn::predict
