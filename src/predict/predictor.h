// `nanotrn predict`: a recipe's step time on a device per batch phase, tokens/s, MFU, steps in the budget, and a
// breakdown by op group and engine; text, JSON and a Perfetto trace of one step.
//
//   Prediction p = predict(recipe, catalog.find("trn2"), {});
//   std::cout << prediction_text(p);   prediction_json(p);   prediction_trace(p, p.phases.size() - 1);
//
// Per phase the step is priced with the MTP heads active at the phase's start, under the launch's software stack
// (recipe/stack_profile.h, step_model.h), with its band. The step count walks the budget with the trainer's own rules
// (recipe/budget.h: progress picks the phase and the MTP heads of every step, the run stops once charged >= budget),
// after the stack's compile time (less launch.compile_allowance_s), so `nanotrn train --clock <device>` stops at the
// same step (device_clock.h); the band's ends walk it again at the band's step times (more steps at the low end).
// With PredictOptions::tokens the budget is the shortest one whose walk reaches that many tokens
// (recipe::budget_for_tokens), the band walked over that same time. The cost line rents the chips for the compile
// and the walk (run_cost.h, the catalog's price).
// MFU = model FLOPs per token (model::flops_per_token, recipe-spec §2.4: no MTP heads, no recompute) x tokens /
// step time / the device's peak dense BF16 FLOP/s (catalog; all chips).
// Not here: the catalog (hw/), the lowering and composition rules (lowering.h, step_model.h).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "data/epochs.h"
#include "hw/catalog.h"
#include "predict/run_cost.h"
#include "predict/step_model.h"
#include "predict/top_kernels.h"
#include "recipe/budget.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {

struct PhasePrediction {
  size_t index = 0;
  double from = 0;
  int64_t accum = 1;
  int mtp_heads = 1;
  StepTime time;
  double tokens_per_s = 0, mfu = 0;
  std::array<double, 2> tokens_per_s_band{};  // at the step band's high and low ends
};

struct Prediction {
  std::string recipe, device, device_kind;
  int64_t lnc = 1, ranks = 1, rows_per_rank = 1, seq_len = 0;
  RankMemory memory;              // one rank's HBM use (device_memory.h)
  double graph_instructions = 0;  // the largest micro-batch graph over the phases (step_model.h), a lower bound
  Layout layout;                  // the launch shape (launch.h); lnc, ranks and rows_per_rank repeat its fields
  std::string dtype;
  double flops_per_token = 0, peak_flops = 0;
  int64_t params = 0;
  std::vector<PhasePrediction> phases;
  double budget_s = 0;
  int64_t target_tokens = 0;               // PredictOptions::tokens: budget_s is the time the walk takes to reach them
  recipe::StackProfile stack;              // the stack in effect (StepModel::stack)
  double compile_s = 0;                    // the stack's compile time of the run's graphs
  double startup_s = 0;                    // what of it counts against the budget (after launch.compile_allowance_s)
  recipe::BudgetWalk walk;                 // the trainer's own rules (recipe/budget.h)
  recipe::BudgetWalk walk_low, walk_high;  // at the band's low and high step times (walk_low: the most steps)
  data::DataEpochs epochs;                 // walk.tokens against data.train's tokens (data/epochs.h)
  RunCost cost;                            // the compile and the walk's steps, rented (run_cost.h)
  std::vector<std::string> notes;
  size_t kernels_timed = 0, shapes_cached = 0;
  double predict_wall_s = 0;
  double rank_peak_flops = 0, rank_bytes_per_s = 0;  // one rank's peak (recipe dtype) and HBM share: the ridge
};

Prediction predict(StepModel& model);
Prediction predict(const recipe::Recipe& recipe, const hw::Device& device, const PredictOptions& options = {});

// Where one step's time goes, largest first: seconds per op group (with launch gaps, exposed all-reduce and host
// dispatch), per engine class (busiest track; DMA = busiest queue), per pricing method; and per engine the busy
// time hw/bound.h uses (DMA = bytes at peak bandwidth). Kernel times before overlap.
struct StepBreakdown {
  std::vector<std::pair<std::string, double>> groups, engines, methods;
  hw::EngineUse use;
};
StepBreakdown step_breakdown(const StepTime& step);

// The kernels of the last phase's step, largest first, with their binding engine (top_kernels.h).
std::vector<KernelLine> last_phase_kernels(const Prediction& p);

// `top`: rows of the top-kernels table (the last phase's step; 0 = every kernel). JSON: "top_kernels".
std::string prediction_text(const Prediction& p, size_t top = 10);
nlohmann::json prediction_json(const Prediction& p, size_t top = 10);
// One row per prediction (`predict --device trn2,trn3,h100`): device, layout, last phase's step time, tokens/s, MFU,
// steps in the budget, and the largest kernel with its binding engine.
std::string comparison_text(const std::vector<Prediction>& predictions);
// Chrome-trace / Perfetto JSON of one step of phase `phase`: micro-batches, optimiser, all-reduce, host dispatch, and
// one track per engine with each kernel's busy time on it (from the kernel's start; the order of instructions inside
// a kernel is in `nanotrn kernel run --trace`).
nlohmann::json prediction_trace(const Prediction& p, size_t phase);

}  // namespace nanotrn::predict
