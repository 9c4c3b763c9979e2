// Pricing the forecast's target. See target.h.
#include "forecast/target.h"

#include "base/error.h"
#include "hw/catalog.h"
#include "model/config.h"
#include "predict/predictor.h"
#include "recipe/budget.h"

namespace nanotrn::forecast {

Target price_target(const recipe::Recipe& recipe, const std::string& device) {
  Target t;
  t.device = device;
  t.params = static_cast<double>(model::count_params(model::resolve(recipe.model)).non_embedding());
  if (device == "host") {
    check(recipe::budget_seconds(recipe) <= 0 && recipe.train.steps > 0,
          "forecast --device host: the recipe must be step limited (--set train.budget=0 --set train.steps=N); a host "
          "time budget is not something a forecast can price");
    const recipe::BudgetWalk w = recipe::walk_budget(recipe, [](const recipe::NextStep&) { return 1.0; });
    t.stack = "host";
    t.steps = w.steps;
    t.tokens = t.tokens_low = t.tokens_high = w.tokens;
  } else {
    const predict::Prediction p = predict::predict(recipe, hw::builtin_catalog().find(device));
    t.stack = p.stack.name;
    t.steps = p.walk.steps;
    t.tokens = p.walk.tokens;
    t.tokens_low = p.walk_high.tokens;  // the slow end of the band: fewer steps
    t.tokens_high = p.walk_low.tokens;
    check(t.steps > 0, "forecast: on " + device + " (" + t.stack + ") the budget, " + recipe.train.budget.text +
                           ", ends before the recipe's first step (the predictor's walk: compile time and the first "
                           "step do not fit; `nanotrn predict` shows it): nothing to forecast; give a longer --budget");
  }
  t.epochs = data::epochs_needed(recipe.data.train, t.tokens);
  return t;
}

}  // namespace nanotrn::forecast
