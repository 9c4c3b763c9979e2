// The trainer tests' data: the synthetic permutation walk (train/token_source.h) with fixed seeds, train and
// validation from different seeds, every token counting as one byte.
//
//   Trainer t(recipe, pattern_data(recipe), clock, {});
#pragma once

#include <cstdint>

#include "recipe/recipe.h"
#include "train/token_source.h"
#include "train/trainer.h"

namespace nanotrn::testing_support {

inline train::TrainerData pattern_data(const recipe::Recipe& r) {
  train::TrainerData d;
  d.train = train::make_pattern_source(static_cast<int32_t>(r.model.vocab_size), 11);
  d.val = train::make_pattern_source(static_cast<int32_t>(r.model.vocab_size), 12);
  d.token_bytes.assign(static_cast<size_t>(r.model.vocab_size), 1);
  d.description = "synthetic";
  return d;
}

}  // namespace nanotrn::testing_support
