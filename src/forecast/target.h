// What the forecast is for: the recipe on its target, as N (non-embedding parameters), D (training tokens) and the
// epochs of data.train those tokens need.
//
//   Target t = price_target(recipe, "trn2");   // t.params, t.tokens (t.tokens_low .. t.tokens_high: the band)
//   Target h = price_target(recipe, "host");   // a step-limited recipe: D = its steps' tokens, no band
//
// On a catalog device D comes from the predictor's budget walk (predict/predictor.h; the same walk `train --clock`
// stops at), its band from the walks at the stack's slow and fast step times. On "host" the recipe must be step
// limited (train.budget 0, train.steps N): host time is what a forecast avoids spending, not a budget it can price,
// and such a forecast is the one a host run can check. A device budget that ends before the first step is an Error.
#pragma once

#include <cstdint>
#include <string>

#include "data/epochs.h"
#include "recipe/recipe.h"

namespace nanotrn::forecast {

struct Target {
  std::string device, stack;
  double params = 0;                        // N
  int64_t steps = 0, tokens = 0;            // D, the central walk
  int64_t tokens_low = 0, tokens_high = 0;  // D at the band's slow and fast ends (equal on the host)
  data::DataEpochs epochs;
};

Target price_target(const recipe::Recipe& recipe, const std::string& device);

}  // namespace nanotrn::forecast
