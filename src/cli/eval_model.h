// The model a checkpoint holds, loaded for evaluation the one way `eval bpb` and `eval core` share:
//
//   EvalModel m = load_eval_model(ckpt, sets, /*ema=*/false, home);
//   Ctx ctx = m.ctx();   // no tape; matmuls in the recipe's precision
//   m.gpt->...;          // the weights checked finite (naming the first bad one)
//
// The stored recipe takes the --set overrides, its data paths are resolved under the data root (checkpoints of older
// builds hold them as written), and with `ema` the EMA weights replace the live ones (an Error when the checkpoint
// has none).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/home.h"
#include "engine/engine.h"
#include "model/gpt.h"
#include "recipe/recipe.h"
#include "train/checkpoint.h"

namespace nanotrn::cli {

struct EvalModel {
  train::Checkpoint checkpoint;
  recipe::Recipe recipe;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<model::Gpt> gpt;
  Ctx ctx() const { return Ctx{*engine, nullptr, recipe.train.precision}; }
};

EvalModel load_eval_model(const std::string& ckpt, const std::vector<std::string>& sets, bool ema, const Home& home);

}  // namespace nanotrn::cli
