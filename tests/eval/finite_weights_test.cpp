// A checkpoint whose one weight is NaN: it saves and loads (the bytes are intact, the checksums agree), and the check
// that `eval bpb` and `sample` run after loading it names the file, the weight and the element.
#include "eval/finite_weights.h"

#include <gtest/gtest.h>

#include <limits>

#include "base/error.h"
#include "data/temp_dir.h"
#include "train/checkpoint.h"

namespace nanotrn {
namespace {

TEST(FiniteWeights, ACheckpointWithOneNanWeightIsNamedOnLoad) {
  data::testing::TempDir dir;
  const recipe::Recipe recipe =
      recipe::default_recipe_with({"model.vocab_size=64", "model.depth=2", "model.model_dim=32", "model.head_dim=16",
                                   "model.n_kv_head=1", "model.ve_gate_channels=8"});
  Engine engine;
  Ctx ctx{engine};
  model::Gpt gpt(ctx, model::resolve(recipe.model), recipe.seed);
  const std::string path = dir / "checkpoint.safetensors";
  train::save_checkpoint(path, recipe, gpt, {}, {}, {}, nlohmann::json::object());
  model::Gpt fine(ctx, model::resolve(recipe.model), recipe.seed + 1);
  train::restore_model(fine, train::load_checkpoint(path));
  EXPECT_NO_THROW(check_finite_weights(fine, path));

  const std::string name = gpt.parameters()[1].name;
  gpt.parameters()[1].value.data<float>()[3] = std::numeric_limits<float>::quiet_NaN();
  train::save_checkpoint(path, recipe, gpt, {}, {}, {}, nlohmann::json::object());
  model::Gpt loaded(ctx, model::resolve(recipe.model), recipe.seed + 1);
  train::restore_model(loaded, train::load_checkpoint(path));
  try {
    check_finite_weights(loaded, path);
    ADD_FAILURE() << "a NaN weight passed";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find(path + ": weight '" + name + "'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("holds nan at element 3"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace nanotrn
