// Calibrations: catalog constants derived from one named public measurement, because no document gives them. Each is
// marked "calibration" in the catalog with the measurement it came from, and docs/VALIDATION.md lists the error it
// leaves on every other public point (leave-one-out). A fitted constant is never validation on its own point.
//
//   double d = fit_eager_dispatch(recipe::load_recipe("recipes/kit-baseline.json"), catalog.find("trn2"), 1.28);
//   // the eager_op_dispatch_s that makes the recipe's first-phase predicted step 1.28 s
//
// The fit inverts the eager stack's host wait (step_model.h: eager_host_idle, monotone in the dispatch time) by
// bisection; the device side of the step (kernel times, launch gaps, exposed all-reduce) does not depend on it.
#pragma once

#include "hw/catalog.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {

// Throws when the recipe's launch stack is not eager, or when the measured step is faster than the modelled
// device alone (no dispatch time could explain it).
double fit_eager_dispatch(const recipe::Recipe& recipe, const hw::Device& device, double measured_step_s);

}  // namespace nanotrn::predict
