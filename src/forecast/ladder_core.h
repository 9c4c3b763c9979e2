// The ladder's own CORE (`forecast --core`): every ladder run also scores CORE on a bundle after training (the
// sweep's --core: `nanotrn eval core` of its checkpoint), CORE is fitted as a straight line in val_bpb over the
// ladder's runs (ordinary least squares; a rung with several seeds at their mean), and the line is read at the
// forecast's val_bpb. Only where it is above noise: the slope must be negative (CORE rises as the loss falls, as on
// every published run; a rising line says the bundle measures something this data's loss does not) with a two-sided
// p-value below 0.05 (Student's t on n - 2 degrees of freedom, sweep/stats.h); else nothing is forecast from it (the
// ladder's CORE is at its noise floor, or it tracks something other than this data's loss).
//
//   LadderCore c = fit_ladder_core(runs, {.bpb = 1.79, .bpb_low = 1.77, .bpb_high = 1.84, .coverage = 0.9});
//   if (c.above_noise) use(c.core, c.low, c.high);   // c.slope, c.intercept, c.p, c.rms, c.loo_rms, c.runs
//
// Why a line in val_bpb, not a law of its own in N and D: CORE follows the loss (nanochat's published runs lie on one
// line, core_map.h), so the scaling law carries the extrapolation and CORE only maps it; the ladder's line is on the
// user's bundle and data, where the published map is on FineWeb-EDU and nanochat's tokenizer only.
// The interval: OLS's prediction interval for one new observation, yhat +- t_{n-2, (1 + coverage)/2} s sqrt(1 + 1/n +
// (x - xbar)^2 / Sxx) (s^2 = RSS / (n - 2)), at both ends of the forecast's val_bpb interval, and their union: it holds
// one run's CORE noise (a bundle's tasks have few examples) and the line's uncertainty, not a bend beyond the ladder's
// val_bpb range (`beyond`, in bpb, says how far the forecast lies past the ladder's lowest val_bpb).
// Errors: fewer than 3 runs with a CORE, or all at one val_bpb.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "forecast/scaling_law.h"

namespace nanotrn::forecast {

struct LadderCoreAt {
  double bpb = 0, bpb_low = 0, bpb_high = 0;  // the forecast's val_bpb and its interval
  double coverage = 0.9;
};

struct LadderCore {
  int runs = 0;                        // ladder runs with a CORE (rungs, each the mean of its seeds)
  double intercept = 0, slope = 0;     // CORE = intercept + slope x val_bpb
  double p = 0;                        // the slope's two-sided p-value
  bool above_noise = false;            // slope < 0 and p < 0.05
  double rms = 0, loo_rms = 0;         // the line's residual RMS and leave-one-out RMS (CORE)
  double core = 0, low = 0, high = 0;  // at the forecast's val_bpb, and the prediction interval
  double beyond = 0;                   // the ladder's lowest val_bpb minus the forecast's (bpb; > 0: extrapolated)
  nlohmann::json to_json() const;
};

LadderCore fit_ladder_core(const std::vector<LadderRun>& runs, const LadderCoreAt& at);
// How the printed forecast and its page describe the line: "a line in val_bpb over 12 ladder runs, -0.211 CORE per
// bpb (p = 0.0031), leave-one-out RMS 0.017".
std::string ladder_core_note(const LadderCore& c);

}  // namespace nanotrn::forecast
