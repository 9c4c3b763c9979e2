// The training memory lower bound: its weights are 4 bytes per parameter of model::count_params (the independent
// int64 count), the optimiser state follows the Muon/AdamW split, and the trainer, the predictor and resolve()
// refuse impossible sizes with an Error that names what is needed and what there is, before allocating anything.
#include <gtest/gtest.h>

#include "hw/catalog.h"
#include "model/config.h"
#include "predict/predictor.h"
#include "recipe/memory_need.h"
#include "train/token_source.h"
#include "train/trainer.h"

namespace nanotrn::recipe {
namespace {

TEST(MemoryNeed, CountsWhatTrainingHolds) {
  const Recipe r = default_recipe_with({"model.depth=4", "batch.rows=3", "batch.seq_len=64", "ema.decay=0.9"});
  const model::GptConfig c = model::resolve(r.model);
  const model::ParamCounts n = model::count_params(c);
  const MemoryNeed m = training_memory(r, c, r.batch.rows);
  EXPECT_EQ(m.weights, 4.0 * static_cast<double>(n.total()));
  EXPECT_EQ(m.gradients, m.weights);
  EXPECT_EQ(m.ema, m.weights);
  // Muon: one momentum per block matrix parameter; AdamW: two moments for every other parameter.
  EXPECT_EQ(m.optimizer, 4.0 * static_cast<double>(n.block_matrices + 2 * (n.total() - n.block_matrices)));
  EXPECT_EQ(m.activations, 4.0 * (4 + 1) * 3 * 64 * static_cast<double>(c.model_dim));
  EXPECT_EQ(m.total(), m.weights + m.gradients + m.optimizer + m.ema + m.activations);
  EXPECT_EQ(training_memory(default_recipe_with({"model.depth=4"}), c, 1).ema, 0.0);
}

TEST(MemoryNeed, RequireFitsNamesBothFigures) {
  MemoryNeed m;
  m.weights = 2.0 * 1024 * 1024 * 1024;
  EXPECT_NO_THROW(require_fits(m, m.total(), "x", "y"));
  try {
    require_fits(m, 1024.0 * 1024 * 1024, "the run", "there is 1 GiB");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("the run needs at least 2.00 GiB (weights 2.00 GiB"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("there is 1 GiB"), std::string::npos);
  }
}

TEST(MemoryNeed, TrainerRefusesAModelNoMachineHoldsBeforeAllocating) {
  // depth 200 -> model_dim 12,800: about 4e11 parameters, terabytes of state.
  const Recipe r = default_recipe_with({"model.depth=200", "train.budget=0", "train.steps=1"});
  FixedClock clock(0.01);
  train::TrainerData d;
  d.train = train::make_pattern_source(static_cast<int32_t>(r.model.vocab_size), 1);
  try {
    train::Trainer t(r, std::move(d), clock, {});
    FAIL() << "constructed a trainer for a " << model::count_params(model::resolve(r.model)).total()
           << "-parameter model";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("training needs at least"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("available"), std::string::npos) << e.message();
  }
}

TEST(MemoryNeed, PredictorRefusesARankBeyondItsHbm) {
  const Recipe r = default_recipe_with({"model.depth=300"});
  const hw::Catalog catalog = hw::builtin_catalog();
  try {
    predict::predict(r, catalog.find("trn2"), {});
    FAIL() << "priced a model that cannot fit in HBM";
  } catch (const Error& e) {
    // The per-rank table (predict/device_memory.h) against the rank's 24 GiB share of the chip (4 ranks).
    EXPECT_NE(e.message().find("does not fit one rank's HBM on trn2"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("of 24.00 GiB"), std::string::npos) << e.message();
  }
  // The challenge-size model fits.
  EXPECT_NO_THROW(predict::predict(default_recipe_with({"model.depth=8"}), catalog.find("trn2"), {}));
}

TEST(MemoryNeed, ResolveRefusesAShapeWhoseCountOverflows) {
  model::GptConfig c;
  c.depth = 1000000;
  try {
    model::resolve(c);
    FAIL() << "resolved a model whose int64 parameter count overflows";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("more than any machine can hold"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("model.depth = 1000000"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace nanotrn::recipe
