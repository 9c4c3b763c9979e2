// Training checkpoints: one safetensors file holding everything a run needs to continue exactly.
//
//   save_checkpoint("out/run/checkpoint.safetensors", {recipe, gpt, optim, ema, progress});   // atomic
//   Checkpoint c = load_checkpoint(path);          // c.recipe, c.progress, c.file (the tensors)
//   restore_model(gpt, c);  optim.load_state(...)  // or let the Trainer resume from it
//
// Tensors: "model.<param>" (f32 weights), "optim.<param>.<slot>" (optimiser state), "ema.<param>" (when EMA is on).
// Metadata: "format" = "nanotrn-checkpoint-1", "recipe" (the full recipe JSON), "progress" (step, charged and wall
// seconds, tokens, data positions, ...), "counters" (AdamW step counts). The file is written to a temporary name,
// fsynced and renamed, so a crash leaves the previous checkpoint intact. Reading checks the format and names the file.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/safetensors.h"
#include "model/gpt.h"
#include "recipe/recipe.h"

namespace nanotrn::train {

struct Checkpoint {
  recipe::Recipe recipe;
  nlohmann::json progress;                      // the trainer's counters and data positions
  std::map<std::string, std::string> counters;  // optimiser step counts
  SafetensorsFile file;
  // The tensors whose names start with `prefix`, with the prefix removed.
  std::vector<std::pair<std::string, Tensor>> with_prefix(const std::string& prefix) const;
};

void save_checkpoint(const std::string& path, const recipe::Recipe& recipe, const model::Gpt& gpt,
                     const std::vector<std::pair<std::string, Tensor>>& optimizer_state,
                     const std::map<std::string, std::string>& counters, const std::vector<Tensor>& ema,
                     const nlohmann::json& progress);
Checkpoint load_checkpoint(const std::string& path);
// Copies "model.*" into the parameters; every parameter must be present with its shape (errors name it).
void restore_model(model::Gpt& gpt, const Checkpoint& checkpoint);

}  // namespace nanotrn::train
