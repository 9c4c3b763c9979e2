// Opens the token sources a recipe names: `data.train` / `data.val` are shard globs read through the data
// pipeline's loader with the tokenizer at `data.tokenizer` (its token-bytes table feeds val_bpb), or a synthetic
// source for benchmarks and smoke tests: "synthetic:random" or "synthetic:pattern" (every token then counts 1 byte,
// so "bpb" is bits per token, and the header says so).
//
//   TrainerData data = open_training_data(recipe, "nanotrn data setup --recipe cpu-tiny");
//
// Errors name the missing tokenizer or glob, and the command that builds them (`setup_command`; empty means
// "nanotrn data setup --recipe <recipe name>"); so do shards whose shards.json records another tokenizer than
// data.tokenizer (data/shard_tokenizer_check.h). Paths are used as they are: resolve them first (recipe_paths.h).
#pragma once

#include <string>

#include "recipe/recipe.h"
#include "train/trainer.h"

namespace nanotrn::train {

TrainerData open_training_data(const recipe::Recipe& recipe, const std::string& setup_command = "");
// What an evaluation reads, for `eval bpb`: the validation source, the token-bytes table and BOS; `train` is null
// and data.train is never opened (a checkpoint scores without its training shards).
TrainerData open_validation_data(const recipe::Recipe& recipe, const std::string& setup_command = "");
// The shard part of both (train/shard_source.cpp); with_train = false leaves `train` null.
TrainerData open_shard_data(const recipe::Recipe& recipe, const std::string& setup_command = "",
                            bool with_train = true);

}  // namespace nanotrn::train
