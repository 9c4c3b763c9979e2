// The trainer: loss falls on a learnable synthetic language; 20 steps straight and 10 + resume + 10 give
// bit-identical weights and optimiser state; a non-finite loss stops the run and leaves the last checkpoint intact;
// the time budget stops at the step the clock says; val_bpb of an all-zero-logit model is log2(V) tokens / bytes.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/file.h"
#include "support/pattern_data.h"
#include "train/checkpoint.h"
#include "train/evaluate.h"
#include "train/trainer.h"

namespace nanotrn::train {
namespace {

recipe::Recipe small_recipe(std::vector<std::string> extra = {}) {
  std::vector<std::string> o = {"model.vocab_size=64",
                                "model.depth=2",
                                "model.model_dim=32",
                                "model.head_dim=16",
                                "model.n_kv_head=1",
                                "model.ve_gate_channels=8",
                                "batch.seq_len=16",
                                "batch.rows=4",
                                "train.budget=0",
                                "train.steps=20",
                                "eval.tokens=256",
                                "eval.rows=4",
                                "optim.momentum_warmup_steps=10",
                                "schedule.cooldown_fraction=0.5",
                                "ema.decay=0.9",
                                "ema.every=2"};
  o.insert(o.end(), extra.begin(), extra.end());
  return recipe::default_recipe_with(o);
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/nanotrn_trainer_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(Trainer, LossFallsOnALearnableLanguage) {
  const recipe::Recipe r = small_recipe({"train.steps=60", "train.log_every=5"});
  recipe::FixedClock clock(0.01);
  Trainer t(r, testing_support::pattern_data(r), clock, {});
  const TrainResult res = t.run();
  ASSERT_GE(res.loss_curve.size(), 4u);
  EXPECT_NEAR(res.loss_curve.front().second, std::log(64.0), 0.05);  // zero-init blocks: ln V at step 0
  EXPECT_LT(res.loss_curve.back().second, res.loss_curve.front().second - 1.0);
  EXPECT_EQ(res.steps, 60);
  EXPECT_EQ(res.stop_reason, "steps");
  EXPECT_TRUE(std::isfinite(res.val_bpb));
}

TEST(Trainer, ResumeContinuesBitIdentically) {
  const recipe::Recipe r =
      small_recipe({"batch.phases=[{\"from\":0,\"accum\":1,\"lr_scale\":0.5},"
                    "{\"from\":0.3,\"accum\":2,\"lr_scale\":1}]",
                    "optim.grad_clip=1.0"});
  recipe::FixedClock clock(0.01);
  const std::string a = fresh_dir("straight"), b = fresh_dir("resumed");
  {
    Trainer t(r, testing_support::pattern_data(r), clock, {.out_dir = a});
    EXPECT_EQ(t.run().steps, 20);
  }
  {
    Trainer t(r, testing_support::pattern_data(r), clock, {.out_dir = b, .stop_after_steps = 10});
    EXPECT_EQ(t.run().steps, 10);
  }
  {
    Trainer t(r, testing_support::pattern_data(r), clock, {.out_dir = b, .resume = b + "/checkpoint.safetensors"});
    EXPECT_EQ(t.run().steps, 20);
  }
  const Checkpoint ca = load_checkpoint(a + "/checkpoint.safetensors");
  const Checkpoint cb = load_checkpoint(b + "/checkpoint.safetensors");
  ASSERT_EQ(ca.file.tensors.size(), cb.file.tensors.size());
  for (size_t i = 0; i < ca.file.tensors.size(); i++) {
    const auto& [name, ta] = ca.file.tensors[i];
    const Tensor* tb = cb.file.find(name);
    ASSERT_NE(tb, nullptr) << name;
    const std::vector<float> va = ta.to_vector(), vb = tb->to_vector();
    ASSERT_EQ(va.size(), vb.size()) << name;
    EXPECT_EQ(std::memcmp(va.data(), vb.data(), va.size() * sizeof(float)), 0) << name << " differs";
  }
  nlohmann::json pa = ca.progress, pb = cb.progress;
  pa.erase("wall_seconds");  // host time differs run to run; everything else must not
  pb.erase("wall_seconds");
  EXPECT_EQ(pa, pb);
  EXPECT_EQ(ca.counters, cb.counters);
}

TEST(Trainer, NonFiniteLossStopsAndKeepsTheLastCheckpoint) {
  const std::string dir = fresh_dir("nan");
  recipe::FixedClock clock(0.01);
  const recipe::Recipe good = small_recipe({"train.steps=3", "train.checkpoint_every=1"});
  {
    Trainer t(good, testing_support::pattern_data(good), clock, {.out_dir = dir});
    t.run();
  }
  const std::string ckpt = dir + "/checkpoint.safetensors";
  const std::vector<uint8_t> before = read_file(ckpt);
  // Same model, absurd learning rates: the weights overflow within a step or two.
  const recipe::Recipe bad = small_recipe({"train.steps=50", "train.checkpoint_every=100", "optim.matrix_lr=1e30",
                                           "optim.embedding_lr=1e30", "optim.unembedding_lr=1e30"});
  Trainer t(bad, testing_support::pattern_data(bad), clock, {.out_dir = dir, .resume = ckpt});
  try {
    t.run();
    FAIL() << "expected NonFiniteLoss";
  } catch (const NonFiniteLoss& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("training loss is"), std::string::npos) << m;
    EXPECT_NE(m.find("at step"), std::string::npos) << m;
    EXPECT_NE(m.find(ckpt + " (step 3) is intact"), std::string::npos) << m;
  }
  EXPECT_EQ(read_file(ckpt), before);
  EXPECT_EQ(load_checkpoint(ckpt).progress["step"], 3);
}

TEST(Trainer, ResumeRefusesAnotherModelNamingTheField) {
  // The softcap changes no tensor shape, so only the recipe comparison can catch it.
  const std::string dir = fresh_dir("other_model");
  recipe::FixedClock clock(0.01);
  const recipe::Recipe first = small_recipe({"train.steps=1", "model.softcap=15"});
  {
    Trainer t(first, testing_support::pattern_data(first), clock, {.out_dir = dir});
    t.run();
  }
  const recipe::Recipe other = small_recipe({"train.steps=2", "model.softcap=20"});
  Trainer t(other, testing_support::pattern_data(other), clock,
            {.out_dir = dir, .resume = dir + "/checkpoint.safetensors"});
  try {
    t.run();
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.softcap: 20.0 in the recipe, 15.0 in the checkpoint"),
              std::string::npos)
        << e.what();
  }
}

TEST(Trainer, TimeBudgetStopsWhereTheClockSays) {
  // 0.25 s per micro-batch against a 2 s budget: exactly 8 steps with one micro-batch each.
  const recipe::Recipe r = small_recipe({"train.budget=2s", "train.steps=0"});
  recipe::FixedClock clock(0.25);
  Trainer t(r, testing_support::pattern_data(r), clock, {});
  const TrainResult res = t.run();
  EXPECT_EQ(res.steps, 8);
  EXPECT_EQ(res.stop_reason, "budget");
  EXPECT_DOUBLE_EQ(res.charged_seconds, 2.0);
}

// A clock that charges a device's time: the progress line and metrics.jsonl report the charged ms/step, tokens/s
// and MFU (model FLOPs per token x charged tokens/s over the clock's peak), with the host's figures beside them.
class ModelledDeviceClock final : public recipe::Clock {
 public:
  std::string name() const override { return "modelled"; }
  std::string rule() const override { return "0.5 s per step"; }
  double charge(const recipe::StepInfo&, double) override { return 0.5; }
  double peak_flops() const override { return 1e9; }
};

TEST(Trainer, UnderADeviceClockProgressIsInDeviceTime) {
  const recipe::Recipe r = small_recipe({"train.steps=4", "train.log_every=2"});
  ModelledDeviceClock clock;
  const std::string dir = (std::filesystem::temp_directory_path() / "nanotrn_device_progress").string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<std::string> lines;
  TrainerOptions o;
  o.out_dir = dir;
  o.print = [&lines](const std::string& line) { lines.push_back(line); };
  Trainer t(r, testing_support::pattern_data(r), clock, o);
  const TrainResult res = t.run();
  const double tokens_per_step = static_cast<double>(r.batch.rows * r.batch.seq_len);
  int steps_seen = 0;
  std::ifstream metrics(dir + "/metrics.jsonl");
  for (std::string text; std::getline(metrics, text);) {
    if (text.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j["event"] != "step") continue;
    ++steps_seen;
    EXPECT_DOUBLE_EQ(j["ms_per_step"].get<double>(), 500.0);
    EXPECT_DOUBLE_EQ(j["tokens_per_second"].get<double>(), tokens_per_step / 0.5);
    EXPECT_NEAR(j["mfu"].get<double>(), tokens_per_step / 0.5 * res.flops_per_token / 1e9, 1e-12);
    EXPECT_GT(j["host_tokens_per_second"].get<double>(), 0.0);
    EXPECT_FALSE(j.contains("fraction_of_peak"));
  }
  EXPECT_EQ(steps_seen, 3);  // steps 1, 2 and 4
  bool progress = false;
  for (const std::string& l : lines)
    if (l.rfind("step 2 |", 0) == 0) {
      progress = true;
      EXPECT_NE(l.find("500.0 ms/step modelled"), std::string::npos) << l;
      EXPECT_NE(l.find("MFU "), std::string::npos) << l;
      EXPECT_NE(l.find("| host "), std::string::npos) << l;
    }
  EXPECT_TRUE(progress);
  std::filesystem::remove_all(dir);
}

TEST(Evaluate, AllZeroLogitsGiveLog2VTimesTokensOverBytes) {
  const recipe::Recipe r = small_recipe();
  recipe::FixedClock clock(1.0);
  Trainer t(r, testing_support::pattern_data(r), clock, {});
  for (model::Parameter& p : t.model().parameters()) {
    if (p.name == "lm_head") p.value.zero();
  }
  // Token byte lengths 0 (specials) to 4; the expected sums come straight from the validation tokens.
  std::vector<int32_t> token_bytes(64);
  for (size_t i = 0; i < token_bytes.size(); i++) token_bytes[i] = static_cast<int32_t>(i % 5);
  auto val = make_pattern_source(64, 12);
  std::vector<int32_t> in(64), tg(64);
  int64_t tokens = 0, bytes = 0;
  for (int b = 0; b < 4; b++) {  // eval.tokens 256 = 4 batches of 4 x 16
    val->next(4, 16, in.data(), tg.data());
    for (int32_t y : tg) {
      tokens += token_bytes[static_cast<size_t>(y)] > 0 ? 1 : 0;
      bytes += token_bytes[static_cast<size_t>(y)];
    }
  }
  val = make_pattern_source(64, 12);
  Engine engine;
  Ctx ctx{engine};
  const BpbResult res = evaluate_bpb(ctx, t.model(), *val, token_bytes, {.tokens = 256, .rows = 4, .seq_len = 16});
  EXPECT_EQ(res.tokens, tokens);
  EXPECT_EQ(res.bytes, bytes);
  const double want = std::log2(64.0) * static_cast<double>(tokens) / static_cast<double>(bytes);
  EXPECT_NEAR(res.bpb, want, 1e-6 * want);
}

}  // namespace
}  // namespace nanotrn::train
