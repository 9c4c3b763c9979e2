// Opens the token sources a recipe names: `data.train` / `data.val` are shard globs read through the data
// pipeline's loader with the tokenizer at `data.tokenizer` (its token-bytes table feeds val_bpb), or a synthetic
// source for benchmarks and smoke tests: "synthetic:random" or "synthetic:pattern" (every token then counts 1 byte,
// so "bpb" is bits per token, and the header says so).
//
//   TrainerData data = open_training_data(recipe);   // errors name the missing file or glob
#pragma once

#include "train/recipe.h"
#include "train/trainer.h"

namespace nanotrn::train {

TrainerData open_training_data(const Recipe& recipe);
// The shard part of open_training_data (train/shard_source.cpp).
TrainerData open_shard_data(const Recipe& recipe);

}  // namespace nanotrn::train
