// Every trial priced on the sweep's target device before it trains (predict/predictor.h): steps in its budget (with
// the stack's band), tokens/s, MFU, and whether one rank's share fits the device's HBM. A trial that does not fit is
// skipped, its reason on its line; so is a dominated one: the same training (the same overrides once launch.* is set
// aside, the same seed and rung) as another trial that gets more steps on the target, which it can only lose to.
//
//   Pricing p = price_trial(recipe, "trn2");      // p.fits, p.reason, p.steps, p.json
//   std::map<std::string, std::string> why = dominated(trials, prices);   // trial id -> the reason it is skipped
//
// Not here: the prediction itself (predict/), the record it goes into (records.h).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "recipe/recipe.h"
#include "sweep/plan.h"

namespace nanotrn::sweep {

struct Pricing {
  bool fits = true;
  std::string reason;  // why not, when it does not fit
  int64_t steps = 0;
  nlohmann::json json;  // {device, stack, fits, reason, steps, steps_band, tokens_per_s, mfu, step_s, step_s_band}
};

Pricing price_trial(const recipe::Recipe& recipe, const std::string& device);

// Trials that lose to another trial of the same training by steps: id -> "dominated by <id>: ...".
std::map<std::string, std::string> dominated(const std::vector<Trial>& trials, const std::vector<Pricing>& prices);

}  // namespace nanotrn::sweep
