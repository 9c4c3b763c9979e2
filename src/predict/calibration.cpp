// Fitting a stack profile to measured runs. See calibration.h.
#include "predict/calibration.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "base/error.h"
#include "base/format.h"
#include "base/nonlinear_fit.h"
#include "predict/kernel_cost.h"
#include "predict/lowering.h"
#include "predict/step_model.h"
#include "recipe/budget.h"

namespace nanotrn::predict {
namespace {

using recipe::StackParam;
using recipe::StackProfile;

constexpr double kRankTolerance = 1e-4;

// A fitted quantity: a stack parameter, or the common scale that divides the four efficiencies.
struct FreeParam {
  std::string name;
  std::optional<StackParam> param;  // empty: scale
};

FreeParam free_param(const std::string& name) {
  return {name, name == "scale" ? std::nullopt : recipe::stack_param_named(name)};
}

constexpr StackParam kEfficiencies[] = {StackParam::matmul_efficiency, StackParam::attention_efficiency,
                                        StackParam::vector_efficiency, StackParam::collective_efficiency};

// Where the fit starts a parameter (its log is fitted): the base's value, or a typical one where the base has 0.
double start_of(const FreeParam& f, const StackProfile& base) {
  if (!f.param) return 1.0;
  const double v = base.value(*f.param);
  if (v > 0) return v;
  switch (*f.param) {
    case StackParam::dma_contention:
      return 0.1;
    case StackParam::step_overhead_s:
      return 1e-2;
    default:
      return 1e-3;
  }
}

// The range a fitted value may take (the profile's own ranges, recipe/stack_profile.h; a time's floor stands for 0).
std::pair<double, double> bounds_of(const FreeParam& f) {
  if (!f.param) return {1e-2, 1e2};
  switch (*f.param) {
    case StackParam::matmul_efficiency:
    case StackParam::attention_efficiency:
    case StackParam::vector_efficiency:
    case StackParam::collective_efficiency:
      return {1e-3, 10.0};
    case StackParam::dma_contention:
      return {1e-9, 10.0};
    default:
      return {1e-12, 1e3};
  }
}

StackProfile with_values(const StackProfile& base, const std::vector<FreeParam>& free, const std::vector<double>& u) {
  StackProfile p = base;
  for (size_t i = 0; i < free.size(); i++) {
    const double x = std::exp(u[i]);
    if (!free[i].param) {
      for (StackParam e : kEfficiencies) p.param(e).value /= x;
    } else {
      p.param(*free[i].param).value = x;
    }
  }
  return p;
}

// The runs' models, built once: each recipe run's StepModel keeps its priced kernels, so a trial profile only
// re-composes the step.
class Evaluator {
 public:
  explicit Evaluator(const std::vector<CalibrationRun>& runs) : runs_(runs) {
    for (const CalibrationRun& r : runs) {
      const hw::Device d = hw::builtin_catalog().find(r.device);
      if (r.recipe) {
        models_.push_back(std::make_unique<StepModel>(*r.recipe, d));
        const recipe::BatchPhase& ph = r.recipe->batch.phases[static_cast<size_t>(r.phase)];
        accum_.push_back(ph.accum);
        heads_.push_back(r.mtp_heads > 0 ? r.mtp_heads
                                         : recipe::active_heads(recipe::mtp_weights_at(*r.recipe, ph.from)));
        call_s_.push_back(0);
      } else {
        models_.push_back(nullptr);
        accum_.push_back(0);
        heads_.push_back(0);
        KernelCoster coster(d, 1);
        const KernelOp op = matmul_op("call", r.call_matmul[0], r.call_matmul[1], r.call_matmul[2], r.call_dtype);
        call_s_.push_back(coster.cost(op, r.call_dtype).seconds);
        launch_s_ = d.value("kernel_launch_s");
      }
    }
  }
  double seconds(size_t i, const StackProfile& p) const {
    if (models_[i]) return models_[i]->step_with(accum_[i], heads_[i], p).step_s;
    // One eager call: the host dispatches it, the device runs the kernel (step_model.h: eager_host_idle).
    return p.value(StackParam::op_dispatch_s) + call_s_[i] / p.value(StackParam::matmul_efficiency) + launch_s_;
  }
  double instructions(size_t i) {  // the run's compiled graphs, for the compile-time fit
    StackProfile unit = recipe::builtin_stack("ideal");
    unit.param(StackParam::compile_s_per_instruction).value = 1.0;
    return models_[i] ? models_[i]->compile_seconds(unit) : 0.0;
  }
  const CalibrationRun& run(size_t i) const { return runs_[i]; }

 private:
  const std::vector<CalibrationRun>& runs_;
  std::vector<std::unique_ptr<StepModel>> models_;
  std::vector<int64_t> accum_;
  std::vector<int> heads_;
  std::vector<double> call_s_;
  double launch_s_ = 0;
};

struct Fitted {
  std::vector<double> u, residual;  // residual: log(predicted / measured) per run in the subset
  Rank rank;
};

Fitted fit_runs(const Evaluator& ev, const std::vector<size_t>& subset, const std::vector<FreeParam>& free,
                const StackProfile& base) {
  FitProblem prob;
  for (const FreeParam& f : free) {
    const auto [lo, hi] = bounds_of(f);
    prob.start.push_back(std::log(std::clamp(start_of(f, base), lo, hi)));
    prob.lower.push_back(std::log(lo));
    prob.upper.push_back(std::log(hi));
  }
  prob.residuals = [&](const std::vector<double>& u) {
    const StackProfile p = with_values(base, free, u);
    std::vector<double> r;
    for (const size_t i : subset) r.push_back(std::log(ev.seconds(i, p) / ev.run(i).measured_s));
    return r;
  };
  const FitResult f = levenberg_marquardt(prob);
  return {f.u, f.r, jacobian_rank(f.jacobian, kRankTolerance)};
}

std::string hint_for(const FreeParam& f) {
  if (!f.param) return "add a run";
  switch (*f.param) {
    case StackParam::step_overhead_s:
      return "add a run at another tokens per step (batch.rows or the phase's accum), so the per-step cost "
             "separates from the per-token scale";
    case StackParam::graph_launch_s:
      return "add runs at other micro-batch counts (accum) with the same tokens per micro-batch";
    case StackParam::op_dispatch_s:
      return "add an eager run (a base with eager execution)";
    case StackParam::collective_efficiency:
    case StackParam::dma_contention:
      return "add runs with other data- or tensor-parallel layouts (more ranks, launch.tp)";
    default:
      return "add runs whose time divides differently among matmuls, attention and element-wise work (another "
             "width, sequence length or depth)";
  }
}

[[noreturn]] void under_determined(const Fitted& f, const std::vector<FreeParam>& free, size_t runs) {
  std::string which, hints;
  for (size_t i = 0; i < free.size(); i++) {
    const bool dead = f.rank.column_norm[i] <= 0;
    if (!dead && std::abs(f.rank.weakest[i]) < 0.3) continue;
    which += (which.empty() ? "" : ", ") + free[i].name + (dead ? " (moves no run)" : "");
    hints += "\n  " + free[i].name + ": " + hint_for(free[i]);
  }
  throw Error("calibration is under-determined: " + std::to_string(runs) + " run(s) cannot fix " +
              std::to_string(free.size()) + " parameter(s); these cannot be told apart: " + which + hints);
}

[[noreturn]] void contradictory(const Fitted& f, const Evaluator& ev, const std::vector<size_t>& subset,
                                const std::vector<FreeParam>& free) {
  size_t worst = 0;
  for (size_t k = 1; k < f.residual.size(); k++)
    if (std::abs(f.residual[k]) > std::abs(f.residual[worst])) worst = k;
  std::string names;
  for (const FreeParam& p : free) names += (names.empty() ? "" : ", ") + p.name;
  const CalibrationRun& r = ev.run(subset[worst]);
  throw Error("calibration is contradictory: no values of " + names + " reproduce the runs; run '" + r.label +
              "' (measured " + format_number("%.4g s", r.measured_s) + ") stays " +
              format_number("%+.1f %%", 100 * (std::exp(f.residual[worst]) - 1)) +
              " off. The runs disagree under this profile: check that run's recipe, phase and launch, or fit more "
              "parameters (\"fit\": [...]) with runs that separate them");
}

bool fully_determined(const Fitted& f, size_t runs, size_t params) { return runs == params && f.rank.full; }

// The fit of `free` on `subset`, checked: an Error when under-determined or contradictory.
Fitted checked_fit(const Evaluator& ev, const std::vector<size_t>& subset, const std::vector<FreeParam>& free,
                   const StackProfile& base) {
  const Fitted f = fit_runs(ev, subset, free, base);
  if (!f.rank.full) under_determined(f, free, subset.size());
  double worst = 0;
  for (const double r : f.residual) worst = std::max(worst, std::abs(r));
  if (worst > kContradiction || (fully_determined(f, subset.size(), free.size()) && worst > 1e-3))
    contradictory(f, ev, subset, free);
  return f;
}

// The chosen parameters, or the longest identifiable prefix of the default list.
std::vector<FreeParam> choose_free(const CalibrationSpec& spec, const Evaluator& ev, const std::vector<size_t>& all) {
  std::vector<FreeParam> free;
  if (!spec.fit.empty()) {
    for (const std::string& n : spec.fit) free.push_back(free_param(n));
    return free;
  }
  const bool eager = spec.base.execution == recipe::Execution::eager;
  const std::vector<std::string> order = eager ? std::vector<std::string>{"op_dispatch_s", "step_overhead_s"}
                                               : std::vector<std::string>{"scale", "step_overhead_s"};
  for (size_t k = order.size(); k >= 1; k--) {
    std::vector<FreeParam> trial;
    for (size_t i = 0; i < k; i++) trial.push_back(free_param(order[i]));
    if (all.size() >= trial.size() && fit_runs(ev, all, trial, spec.base).rank.full) return trial;
  }
  return {free_param(order[0])};
}

// Run i predicted by the fit on the others: the same parameters when those runs fix them, else the longest prefix
// they do fix.
void leave_one_out(const Evaluator& ev, const CalibrationSpec& spec, const std::vector<size_t>& fitted,
                   const std::vector<FreeParam>& free, std::vector<CalibratedRun>& out) {
  if (fitted.size() < 2) return;
  for (const size_t i : fitted) {
    std::vector<size_t> others;
    for (const size_t k : fitted)
      if (k != i) others.push_back(k);
    for (size_t m = free.size(); m >= 1; m--) {
      const std::vector<FreeParam> sub(free.begin(), free.begin() + static_cast<std::ptrdiff_t>(m));
      const Fitted f = fit_runs(ev, others, sub, spec.base);
      if (!f.rank.full) continue;
      const double s = ev.seconds(i, with_values(spec.base, sub, f.u));
      out[i].loo_s = s;
      out[i].loo_error = s / spec.runs[i].measured_s - 1;
      for (const FreeParam& p : sub) out[i].loo_free.push_back(p.name);
      break;
    }
  }
}

std::string run_labels(const CalibrationSpec& spec) {
  std::string s;
  for (const CalibrationRun& r : spec.runs)
    if (!r.held_out) s += (s.empty() ? "" : ", ") + r.label;
  return s;
}

// measured / leave-one-out predicted, over the runs that have one: the band's ends.
void set_band(const CalibrationSpec& spec, const std::vector<CalibratedRun>& runs, StackProfile& p) {
  double lo = 1.0, hi = 1.0;
  size_t used = 0;
  for (const CalibratedRun& r : runs) {
    if (!r.loo_s) continue;
    const double q = r.measured_s / *r.loo_s;
    lo = std::min(lo, q);
    hi = std::max(hi, q);
    used++;
  }
  if (used == 0) {
    p.band_low.source = "the base profile's (" + spec.base.name + "): one run leaves nothing out to check";
    p.band_high.source = p.band_low.source;
    return;
  }
  const std::string why = "out-of-sample predictions of the fit (" + spec.origin +
                          ": each fitted run left out in turn, held-out runs by the whole fit): measured / predicted " +
                          "from " + format_number("%.3f", lo) + " to " + format_number("%.3f", hi) + " over " +
                          std::to_string(used) + " runs";
  p.band_low = {lo, why};
  p.band_high = {hi, why};
}

// compile_s_per_instruction from the runs that measured their compile time: the log-mean ratio, and each such run
// left out.
void fit_compile(Evaluator& ev, const CalibrationSpec& spec, StackProfile& p, std::vector<CalibratedRun>& out) {
  std::vector<size_t> with;
  std::vector<double> ratio;
  for (size_t i = 0; i < spec.runs.size(); i++) {
    if (!spec.runs[i].compile_s || !spec.runs[i].recipe) continue;
    const double n = ev.instructions(i);
    check(n > 0, spec.origin + ": run '" + spec.runs[i].label + "' measures compile_s, but its graphs have no " +
                     "timed tile-program instructions to scale");
    with.push_back(i);
    ratio.push_back(std::log(*spec.runs[i].compile_s / n));
  }
  if (with.empty()) return;
  const double mean = std::accumulate(ratio.begin(), ratio.end(), 0.0) / static_cast<double>(ratio.size());
  std::string labels;
  for (size_t k = 0; k < with.size(); k++) {
    const CalibrationRun& r = spec.runs[with[k]];
    labels += (labels.empty() ? "" : ", ") + r.label;
    CalibratedRun c;
    c.label = r.label;
    c.measured_s = *r.compile_s;
    c.fitted_s = std::exp(mean - ratio[k]) * c.measured_s;
    c.residual = c.fitted_s / c.measured_s - 1;
    if (with.size() > 1) {
      const double others =
          (mean * static_cast<double>(ratio.size()) - ratio[k]) / static_cast<double>(ratio.size() - 1);
      c.loo_s = std::exp(others - ratio[k]) * c.measured_s;
      c.loo_error = *c.loo_s / c.measured_s - 1;
    }
    out.push_back(c);
  }
  p.param(StackParam::compile_s_per_instruction) = {
      std::exp(mean), "fitted on the measured time to the first step of " + labels + " (" + spec.origin +
                          "; the runs and leave-one-out errors are in this profile's fit)"};
}

nlohmann::json runs_json(const std::vector<CalibratedRun>& runs) {
  nlohmann::json a = nlohmann::json::array();
  for (const CalibratedRun& r : runs) {
    nlohmann::json j = {{"label", r.label},
                        {"measured_s", r.measured_s},
                        {"fitted_s", r.fitted_s},
                        {"residual", r.residual},
                        {"ideal_s", r.ideal_s}};
    if (r.loo_s) j.update({{"loo_s", *r.loo_s}, {"loo_error", *r.loo_error}, {"loo_free", r.loo_free}});
    if (r.held_out) j["held_out"] = true;
    a.push_back(j);
  }
  return a;
}

nlohmann::json spec_json(const CalibrationSpec& spec) {
  nlohmann::json runs = nlohmann::json::array();
  for (const CalibrationRun& r : spec.runs) runs.push_back(r.spec);
  nlohmann::json j = {{"base", spec.base_name}, {"runs", runs}};
  if (!spec.name.empty()) j["name"] = spec.name;
  if (!spec.description.empty()) j["description"] = spec.description;
  if (!spec.fit.empty()) j["fit"] = spec.fit;
  return j;
}

}  // namespace

double predicted_run_seconds(const CalibrationRun& run, const recipe::StackProfile& profile) {
  const std::vector<CalibrationRun> one = {run};
  return Evaluator(one).seconds(0, profile);
}

Calibration calibrate(const CalibrationSpec& spec) {
  check(!spec.runs.empty(), "calibrate: no runs");
  Evaluator ev(spec.runs);
  std::vector<size_t> all;  // the fitted runs
  for (size_t i = 0; i < spec.runs.size(); i++)
    if (!spec.runs[i].held_out) all.push_back(i);
  Calibration c;
  const std::vector<FreeParam> free = choose_free(spec, ev, all);
  const Fitted f = checked_fit(ev, all, free, spec.base);
  c.profile = with_values(spec.base, free, f.u);
  for (const FreeParam& p : free) c.free.push_back(p.name);
  const StackProfile ideal = recipe::builtin_stack("ideal");
  for (size_t i = 0; i < spec.runs.size(); i++) {
    CalibratedRun r;
    r.label = spec.runs[i].label;
    r.measured_s = spec.runs[i].measured_s;
    r.fitted_s = ev.seconds(i, c.profile);
    r.residual = r.fitted_s / r.measured_s - 1;
    StackProfile plain = ideal;
    plain.execution = spec.base.execution;
    r.ideal_s = ev.seconds(i, plain);
    r.held_out = spec.runs[i].held_out;
    if (r.held_out) {
      r.loo_s = r.fitted_s;
      r.loo_error = r.residual;
      for (const FreeParam& p : free) r.loo_free.push_back(p.name);
    }
    c.runs.push_back(r);
  }
  leave_one_out(ev, spec, all, free, c.runs);
  const std::string fitted = "fitted on " + std::to_string(all.size()) + " run(s) (" + run_labels(spec) + "; " +
                             spec.origin + "; the runs, residuals and leave-one-out errors are in this " +
                             "profile's fit)";
  for (StackParam q : recipe::all_stack_params())  // what the fit leaves is the base's, and says so
    c.profile.param(q).source = "not fitted: the base's (" + spec.base.name + "): " + spec.base.param(q).source;
  for (const FreeParam& p : free) {
    if (p.param) c.profile.param(*p.param).source = fitted;
    if (!p.param)
      for (StackParam e : kEfficiencies)
        c.profile.param(e).source = "the base's (" + spec.base.name + ") divided by a common scale " + fitted;
  }
  set_band(spec, c.runs, c.profile);
  fit_compile(ev, spec, c.profile, c.compile_runs);
  c.profile.name = spec.name.empty() ? spec.base.name + "-calibrated" : spec.name;
  if (!spec.description.empty()) c.profile.description = spec.description;
  c.profile.origin = "calibration";
  c.profile.fit = {{"spec", spec_json(spec)},
                   {"free", c.free},
                   {"runs", runs_json(c.runs)},
                   {"compile_runs", runs_json(c.compile_runs)}};
  return c;
}

std::string calibration_text(const Calibration& c) {
  std::string s = "calibrated stack '" + c.profile.name + "' (" + std::string(recipe::to_string(c.profile.execution)) +
                  " execution) fitting";
  for (const std::string& f : c.free) s += " " + f;
  s += "\n";
  for (StackParam p : recipe::all_stack_params())
    s += "  " + std::string(recipe::to_string(p)) + " = " + format_number("%.6g", c.profile.value(p)) + "\n";
  s += "  band = x" + format_number("%.3f", c.profile.band_low.value) + " .. x" +
       format_number("%.3f", c.profile.band_high.value) + " (" + c.profile.band_high.source + ")\n\n";
  auto table = [&s](const std::vector<CalibratedRun>& runs, const char* what) {
    if (runs.empty()) return;
    s += std::string(what) + "\n  run                              measured s     ideal s    fitted s  residual" +
         "   leave-one-out s   error  (fitting)\n";
    for (const CalibratedRun& r : runs) {
      char buf[320];
      const std::string label = r.label + (r.held_out ? " (held out)" : "");
      std::snprintf(buf, sizeof buf, "  %-32s %10.4g %11.4g %11.4g %+8.1f%%", label.c_str(), r.measured_s, r.ideal_s,
                    r.fitted_s, 100 * r.residual);
      s += buf;
      if (r.loo_s) {
        std::string f;
        for (const std::string& x : r.loo_free) f += (f.empty() ? "" : " ") + x;
        std::snprintf(buf, sizeof buf, " %17.4g %+7.1f%%  (%s)", *r.loo_s, 100 * *r.loo_error, f.c_str());
        s += buf;
      }
      s += "\n";
    }
  };
  table(c.runs, "step (or call) times:");
  table(c.compile_runs, "compile times:");
  return s;
}

}  // namespace nanotrn::predict
