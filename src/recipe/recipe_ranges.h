// The ranges of a recipe's numbers, in one table (recipe_ranges.cpp): learning rates finite and >= 0, betas and
// momenta in [0, 1), eps > 0, fractions in [0, 1], counts >= 1, and so on. NaN and infinities are never in range.
//
//   check_recipe_ranges(r);   // throws "recipe: optim.matrix_lr must be a finite number >= 0, got -0.04"
//
// A key of a list names its element: "train.mtp_weights[1]", "batch.phases[2].accum". Shapes that depend on other
// fields (model sizes, heads dividing each other) are model::resolve()'s; the thread cap is max_host_threads().
#pragma once

#include "base/host_threads.h"
#include "recipe/recipe.h"

namespace nanotrn::recipe {

void check_recipe_ranges(const Recipe& recipe);

using nanotrn::max_host_threads;  // train.threads' ceiling (base/host_threads.h)

}  // namespace nanotrn::recipe
