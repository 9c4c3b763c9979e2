// Loading a checkpoint's model for evaluation. See eval_model.h.
#include "cli/eval_model.h"

#include "base/error.h"
#include "eval/finite_weights.h"
#include "recipe/recipe_paths.h"

namespace nanotrn::cli {

EvalModel load_eval_model(const std::string& ckpt, const std::vector<std::string>& sets, bool ema, const Home& home) {
  EvalModel m;
  m.checkpoint = train::load_checkpoint(ckpt);
  nlohmann::json rj = recipe::recipe_to_json(m.checkpoint.recipe);
  for (const std::string& s : sets) recipe::apply_override(rj, s, rj);
  m.recipe = recipe::recipe_from_json(rj);
  recipe::resolve_data_paths(m.recipe, home);
  m.engine = std::make_unique<Engine>(EngineOptions{.num_threads = m.recipe.train.threads});
  const Ctx ctx = m.ctx();
  m.gpt = std::make_unique<model::Gpt>(ctx, model::resolve(m.recipe.model), m.recipe.seed);
  train::restore_model(*m.gpt, m.checkpoint);
  if (ema) {
    const auto weights = m.checkpoint.with_prefix("ema.");
    check(!weights.empty(), ckpt + ": this checkpoint has no EMA weights (ema.decay was 0)");
    for (const auto& [name, t] : weights) m.gpt->parameter(name).value.copy_from(t);
  }
  check_finite_weights(*m.gpt, ckpt + (ema ? " (EMA weights)" : ""));
  return m;
}

}  // namespace nanotrn::cli
