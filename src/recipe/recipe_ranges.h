// The ranges of a recipe's numbers, in one table (recipe_ranges.cpp): learning rates finite and >= 0, betas and
// momenta in [0, 1), eps > 0, fractions in [0, 1], counts >= 1, and so on. NaN and infinities are never in range.
//
//   check_recipe_ranges(r);   // throws "recipe: optim.matrix_lr must be a finite number >= 0, got -0.04"
//
// A key of a list names its element: "train.mtp_weights[1]", "batch.phases[2].accum". Shapes that depend on other
// fields (model sizes, heads dividing each other) are model::resolve()'s; the thread cap is max_host_threads().
#pragma once

#include "recipe/recipe.h"

namespace nanotrn::recipe {

void check_recipe_ranges(const Recipe& recipe);

// The most host threads a recipe may ask for: 4 x this machine's cores (see recipe_ranges.cpp for why).
int max_host_threads();

}  // namespace nanotrn::recipe
