// Calibration: a software-stack profile (recipe/stack_profile.h) fitted to measured runs, with the fit's inputs and
// leave-one-out errors stored beside the values. `nanotrn predict --calibrate runs.json --out my-stack.json`, and how
// the shipped profiles (configs/stacks/*.json) were made: each keeps its runs in "fit", and a test fits them again.
//
//   CalibrationSpec spec = read_calibration_spec("runs.json", home);
//   Calibration c = calibrate(spec);         // Error when the runs leave a parameter open or contradict each other
//   c.profile  (the base with the fitted parameters, its band from the leave-one-out errors, "fit" filled in)
//   c.runs[i].fitted_s, .residual, .loo_s, .loo_error
//
// runs.json:
//   {"base": "<profile name or file>", "name": "my-stack", "description": "...",
//    "fit": ["scale", "step_overhead_s"],                       // optional: which parameters to fit (else chosen)
//    "runs": [{"label": "k1", "recipe": "frontierforge-k60", "set": ["launch.lnc=2"], "device": "trn2",
//              "phase": 0, "mtp_heads": 3, "step_s": 0.29, "compile_s": 497, "source": "recipe-spec §6.3"},
//             {"label": "512^3 call", "call": {"matmul": [512, 512, 512], "dtype": "f32"}, "device": "trn1",
//              "call_s": 0.0013, "source": "[TRNSCI]"}]}
// A run is a recipe's step (phase: the batch phase, default 0; mtp_heads: default those active at the phase's start;
// launch flags go in `set` as launch.* keys; the recipe's own launch.stack is replaced by the profile being fitted)
// or one eager call of a tile kernel (dispatch + kernel + launch gap: what a per-call benchmark times).
// "held_out": true keeps a run out of the fit: the final fit predicts it (an out-of-sample check; its error joins the
// band). compile_s, when given, is the measured time to the first step; the runs that have it fit
// compile_s_per_instruction (one ratio, log-mean; leave-one-out when two or more have it).
//
// Fitting. Free parameters are stack parameters by name, or "scale": one factor dividing all four efficiencies (what
// one run determines). Without "fit", the longest identifiable prefix of [scale, step_overhead_s] is fitted
// ([op_dispatch_s, step_overhead_s] for an eager base): one run fits one scale, two runs at different tokens per step
// also fix the per-step cost. The fit minimises the squared log ratios predicted / measured (Levenberg-Marquardt over
// the parameters' logs). Identifiability: the Jacobian's columns (d log step / d log parameter) scaled to unit length
// must have full rank (smallest / largest singular value > 1e-4) and no fewer runs than parameters; else an Error
// names the parameters the runs cannot separate and which runs to add. A fit whose residuals stay above
// kContradiction (or, fully determined, above 0.1 %) is an Error naming the run that disagrees.
// Leave-one-out: each fitted run predicted by the same fit on the other fitted runs (fewer parameters when those
// cannot fix all: stated per run); a held-out run by the whole fit. band = [min(1, min measured / predicted),
// max(1, max measured / predicted)] over those out-of-sample predictions.
// Not here: the profile's format (recipe/stack_profile.h), how parameters enter a step (step_model.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/home.h"
#include "hw/catalog.h"
#include "recipe/recipe.h"
#include "recipe/stack_profile.h"

namespace nanotrn::predict {

// |log(predicted / measured)| above which a fitted run contradicts the others (about 28 %).
inline constexpr double kContradiction = 0.25;

struct CalibrationRun {
  std::string label, source;
  std::string device;
  // A recipe's step, or a kernel call.
  std::optional<recipe::Recipe> recipe;
  int64_t phase = 0;
  int mtp_heads = 0;                 // 0: those active at the phase's start
  std::vector<int64_t> call_matmul;  // {m, k, n} of a call run
  DType call_dtype = DType::f32;
  double measured_s = 0;
  std::optional<double> compile_s;
  bool held_out = false;  // not fitted: predicted by the fit on the others, a check on it
  nlohmann::json spec;    // the run as given (stored in the profile's fit)
};

struct CalibrationSpec {
  recipe::StackProfile base;
  std::string base_name;  // as given
  std::string name, description;
  std::vector<std::string> fit;  // empty: chosen
  std::vector<CalibrationRun> runs;
  std::string origin;  // the file, for sources
};

// Strict reading: unknown keys, a missing measurement, an unknown recipe, device or parameter are Errors naming the
// file and the run. Recipes are found as `--recipe` finds them (base/home.h).
CalibrationSpec read_calibration_spec(const std::string& path, const Home& home);
CalibrationSpec calibration_spec_from_json(const nlohmann::json& j, const std::string& origin, const Home& home);

struct CalibratedRun {
  std::string label;
  double measured_s = 0, fitted_s = 0, residual = 0;  // residual = fitted / measured - 1
  std::optional<double> loo_s, loo_error;             // predicted by the fit on the other runs
  std::vector<std::string> loo_free;                  // the parameters that fit fitted
  bool held_out = false;                              // not fitted: loo_s is the whole fit's prediction
  double ideal_s = 0;                                 // under the `ideal` profile, for comparison
};

struct Calibration {
  recipe::StackProfile profile;
  std::vector<std::string> free;
  std::vector<CalibratedRun> runs;
  std::vector<CalibratedRun> compile_runs;  // the compile-time fit's, when runs had compile_s
};

Calibration calibrate(const CalibrationSpec& spec);
std::string calibration_text(const Calibration& c);

// One run under a profile, by the same rule the fit uses: a recipe's step (StepModel::step_with) or a call.
double predicted_run_seconds(const CalibrationRun& run, const recipe::StackProfile& profile);

}  // namespace nanotrn::predict
