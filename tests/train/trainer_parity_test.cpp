// Parity of the real Trainer with PyTorch: tests/python/trainer_parity.py re-implements the training loop
// (LR warm-up and stepped cool-down, two batch phases with gradient accumulation and an LR scale, Muon momentum
// warm-up, weight decay to zero, global-norm clipping) from recipe-spec §3.3, on gpt_parity.py's GPT and optimisers.
// The Trainer runs 10 steps on a recording token source; PyTorch replays the same micro-batches from the same
// initial weights. A different model from parity_test.cpp: relu^2, full multi-head attention, the default 32-channel
// value-embedding gate, one prediction head. Fails, never skips, when /usr/bin/python3 or torch is missing.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <gtest/gtest.h>

#include "io/safetensors.h"
#include "model/gpt.h"
#include "recipe/clock.h"
#include "recipe/recipe.h"
#include "support/torch_peer.h"
#include "train/parity_weights.h"
#include "train/trainer.h"

namespace nanotrn::train {
namespace {

constexpr int kSteps = 10;

// Passes another source's batches through and keeps a copy of every one.
class RecordingSource final : public TokenSource {
 public:
  explicit RecordingSource(std::unique_ptr<TokenSource> inner, std::vector<int32_t>* ids, std::vector<int32_t>* tg)
      : inner_(std::move(inner)), ids_(ids), tg_(tg) {}
  void next(int64_t rows, int64_t seq_len, int32_t* inputs, int32_t* targets) override {
    inner_->next(rows, seq_len, inputs, targets);
    ids_->insert(ids_->end(), inputs, inputs + rows * seq_len);
    tg_->insert(tg_->end(), targets, targets + rows * seq_len);
  }
  nlohmann::json state() const override { return inner_->state(); }
  void restore(const nlohmann::json& s) override { inner_->restore(s); }
  std::string describe() const override { return "recording " + inner_->describe(); }

 private:
  std::unique_ptr<TokenSource> inner_;
  std::vector<int32_t>*ids_, *tg_;
};

recipe::Recipe trainer_parity_recipe() {
  // Progress is step / 10: steps 0-2 run phase 0 (2 micro-batches, LR x0.5), steps 3-9 phase 1; warm-up over steps
  // 0-1; the 3-level cool-down covers p >= 0.45 (steps 5-9); clipping at 0.5 (the gradient norm starts above it).
  return recipe::default_recipe_with(
      {"model.vocab_size=80",
       "model.depth=2",
       "model.model_dim=48",
       "model.head_dim=16",
       "model.activation=relu2",
       "model.init.attn_proj=0.5",
       "model.init.mlp_proj=0.5",
       "model.init.lm_head_std=0.3",
       "batch.seq_len=16",
       "batch.rows=2",
       R"(batch.phases=[{"from":0,"accum":2,"lr_scale":0.5},{"from":0.25,"accum":1,"lr_scale":1}])",
       "schedule.warmup_steps=2",
       "schedule.cooldown_fraction=0.55",
       "schedule.final_lr_fraction=0.1",
       "schedule.cooldown_levels=3",
       "optim.momentum_warmup_steps=4",
       "optim.grad_clip=0.5",
       "optim.matrix_lr=0.03",
       "train.budget=0",
       "train.steps=10",
       "train.threads=1"});
}

TEST(PyTorchParity, TrainerScheduleAccumulationAndClipping) {
  const recipe::Recipe recipe = trainer_parity_recipe();
  std::vector<int32_t> ids, targets;
  TrainerData data;
  data.train = std::make_unique<RecordingSource>(make_pattern_source(static_cast<int32_t>(recipe.model.vocab_size), 17),
                                                 &ids, &targets);
  data.token_bytes.assign(static_cast<size_t>(recipe.model.vocab_size), 1);
  // The Trainer's initial weights: the same constructor from the same seed.
  Engine engine;
  Ctx ctx{engine, nullptr};
  const model::Gpt init(ctx, model::resolve(recipe.model), recipe.seed);
  const std::vector<std::vector<float>> initial = testing::weights_of(init);

  recipe::FixedClock clock(0.01);
  Trainer trainer(recipe, std::move(data), clock, {});
  const TrainResult res = trainer.run();
  ASSERT_EQ(res.steps, kSteps);
  const int64_t B = recipe.batch.rows, T = recipe.batch.seq_len, micro = static_cast<int64_t>(ids.size()) / (B * T);
  ASSERT_EQ(micro, 3 * 2 + 7 * 1);  // the phases' accumulation counts

  const std::string dir = ::testing::TempDir() + "/nanotrn_trainer_parity";
  std::filesystem::create_directories(dir);
  const std::string in_path = dir + "/in.safetensors", out_path = dir + "/out.safetensors";
  std::filesystem::remove(out_path);
  {
    std::vector<std::pair<std::string, Tensor>> ts;
    for (size_t i = 0; i < init.parameters().size(); i++) {
      ts.emplace_back("model." + init.parameters()[i].name, init.parameters()[i].value);
    }
    ts.emplace_back("ids", Tensor::from_ints({micro, B, T}, ids));
    ts.emplace_back("targets", Tensor::from_ints({micro, B, T}, targets));
    recipe::Recipe resolved = recipe;
    resolved.model = model::resolve(recipe.model);
    save_safetensors(in_path, ts, {{"recipe", recipe::recipe_to_json(resolved).dump()}});
  }
  const std::string cmd = testing_support::torch_peer_command("trainer_parity.py", in_path + " " + out_path);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "the PyTorch reference failed (python3-torch installed?): " << cmd;
  const SafetensorsFile ref = load_safetensors(out_path);

  // The run exercised what it is meant to: clipping on some steps, a warm-up, a cool-down reaching its floor.
  const std::vector<float> norms = ref.find("grad_norm")->to_vector(), lrm = ref.find("lr_multiplier")->to_vector();
  ASSERT_EQ(norms.size(), static_cast<size_t>(kSteps));
  EXPECT_GT(*std::max_element(norms.begin(), norms.end()), recipe.optim.grad_clip);
  EXPECT_LT(lrm[0], lrm[1]);
  EXPECT_LT(lrm[kSteps - 1], lrm[4]);
  // Same final loss (the Trainer's last step) and the same weights, by the rule of parity_test.cpp.
  const double ref_last = ref.find("loss")->to_vector().back();
  EXPECT_NEAR(res.last_loss, ref_last, 1e-3 * std::fabs(ref_last));
  testing::expect_weights_match(trainer.model(), initial, ref);
}

}  // namespace
}  // namespace nanotrn::train
