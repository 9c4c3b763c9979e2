// The trainer's files under failure: a diverging run keeps only a checkpoint whose weights are finite and whose loss
// was finite (it resumes into a finite loss); a failed write of metrics.jsonl is an Error naming it; a malformed
// progress record in a checkpoint is an Error naming the file; a SIGINT stops the run after its step with a
// checkpoint that resumes.
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/file.h"
#include "base/stop_signal.h"
#include "io/safetensors.h"
#include "support/error_of.h"
#include "support/pattern_data.h"
#include "train/checkpoint.h"
#include "train/trainer.h"

namespace nanotrn::train {
namespace {

recipe::Recipe tiny_recipe(std::vector<std::string> extra = {}) {
  std::vector<std::string> o = {"model.vocab_size=64", "model.depth=2",     "model.model_dim=32",
                                "model.head_dim=16",   "model.n_kv_head=1", "model.ve_gate_channels=8",
                                "batch.seq_len=16",    "batch.rows=4",      "train.budget=0",
                                "train.steps=4",       "eval.tokens=256",   "eval.rows=4"};
  o.insert(o.end(), extra.begin(), extra.end());
  return recipe::default_recipe_with(o);
}

std::string empty_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/nanotrn_trainer_safety_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(TrainerSafety, ADivergingRunKeepsACheckpointThatResumesIntoAFiniteLoss) {
  recipe::FixedClock clock(0.01);
  // Learning rates large enough to diverge, small enough that some checkpoints come first: the first of these that
  // stops with a NonFiniteLoss after at least two steps.
  for (const char* lr : {"1000", "10000", "100000", "1000000"}) {
    SCOPED_TRACE(std::string("learning rates ") + lr);
    const std::string dir = empty_dir("diverge");
    const std::vector<std::string> lrs = {std::string("optim.matrix_lr=") + lr, std::string("optim.embedding_lr=") + lr,
                                          std::string("optim.unembedding_lr=") + lr,
                                          std::string("optim.scalar_lr=") + lr, "optim.momentum_warmup_steps=0"};
    std::vector<std::string> set = {"train.steps=30", "train.checkpoint_every=1"};
    set.insert(set.end(), lrs.begin(), lrs.end());
    const recipe::Recipe bad = tiny_recipe(set);
    std::string message;
    try {
      Trainer t(bad, testing_support::pattern_data(bad), clock, {.out_dir = dir});
      t.run();
      continue;  // did not diverge
    } catch (const NonFiniteLoss& e) {
      message = e.what();
    }
    const std::string ckpt = dir + "/checkpoint.safetensors";
    if (!std::filesystem::exists(ckpt)) continue;  // diverged at once: nothing was kept
    const Checkpoint kept = load_checkpoint(ckpt);
    const int64_t step = kept.progress.at("step").get<int64_t>();
    if (step < 2) continue;
    EXPECT_NE(message.find(ckpt + " (step " + std::to_string(step) + ") is intact"), std::string::npos) << message;
    for (const auto& [name, t] : kept.with_prefix("model.")) {
      for (float v : t.to_vector()) ASSERT_TRUE(std::isfinite(v)) << name;
    }
    // Resumed, the kept weights' next step has a finite loss (no out_dir: nothing is written).
    Trainer again(bad, testing_support::pattern_data(bad), clock, {.resume = ckpt, .stop_after_steps = step + 1});
    const TrainResult res = again.run();
    EXPECT_EQ(res.steps, step + 1);
    EXPECT_TRUE(std::isfinite(res.last_loss));
    return;
  }
  FAIL() << "no learning rate gave a divergence after a few checkpoints";
}

// A device (here /dev/full, whose writes fail) or FIFO in metrics.jsonl's place is refused before the first step,
// naming the file; a FIFO would otherwise block the run for good.
// The probe's case: a run that diverges without overflowing (finite weights, loss back at ln V) kept its dead weights
// as the "last good" checkpoint. A run that has learned is resumed with learning rates 1000x too large: it stops with
// Diverged at the first step whose loss is back at uniform guessing, and the checkpoint it keeps is the healthy one
// before (its resumed loss well below ln V).
TEST(TrainerSafety, ARunThatDivergesToUniformGuessingKeepsItsHealthyCheckpoint) {
  recipe::FixedClock clock(0.01);
  const std::string dir = empty_dir("dead");
  const recipe::Recipe good = tiny_recipe({"train.steps=80"});
  {
    Trainer t(good, testing_support::pattern_data(good), clock, {.out_dir = dir});
    const TrainResult r = t.run();
    ASSERT_LT(r.last_loss, std::log(64.0) - 1.5) << "the run must have learned for the rule to apply";
  }
  const std::string ckpt = dir + "/checkpoint.safetensors";
  std::vector<std::string> set = {"train.steps=100", "train.checkpoint_every=1", "optim.momentum_warmup_steps=0"};
  for (const char* k : {"optim.matrix_lr=", "optim.embedding_lr=", "optim.unembedding_lr=", "optim.scalar_lr="})
    set.push_back(std::string(k) + "1000");
  const recipe::Recipe bad = tiny_recipe(set);
  std::string message;
  try {
    Trainer t(bad, testing_support::pattern_data(bad), clock, {.out_dir = dir, .resume = ckpt});
    t.run();
    FAIL() << "learning rates of 1000 did not diverge";
  } catch (const Diverged& e) {
    message = e.what();
  }
  const int64_t kept = load_checkpoint(ckpt).progress.at("step").get<int64_t>();
  EXPECT_GE(kept, 80);
  EXPECT_NE(message.find("is no better than guessing uniformly over the 64 tokens"), std::string::npos) << message;
  EXPECT_NE(message.find(ckpt + " (step " + std::to_string(kept) + ") is intact"), std::string::npos) << message;
  // The kept weights are alive: resumed with the sane recipe, their loss is still far below uniform guessing.
  const recipe::Recipe sane = tiny_recipe({"train.steps=200"});
  Trainer again(sane, testing_support::pattern_data(sane), clock, {.resume = ckpt, .stop_after_steps = kept + 1});
  const TrainResult resumed = again.run();
  EXPECT_EQ(resumed.steps, kept + 1);
  EXPECT_LT(resumed.last_loss, std::log(64.0) - 1.0);
}

TEST(TrainerSafety, AFailedMetricsWriteIsAnErrorNamingTheFile) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string dir = empty_dir("full");
  std::filesystem::create_symlink("/dev/full", dir + "/metrics.jsonl");
  const recipe::Recipe r = tiny_recipe({"train.steps=2"});
  recipe::FixedClock clock(0.01);
  Trainer t(r, testing_support::pattern_data(r), clock, {.out_dir = dir});
  try {
    t.run();
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("cannot write '" + dir + "/metrics.jsonl': it is not a regular file"), std::string::npos) << m;
  }
}

TEST(TrainerSafety, AMalformedProgressRecordIsAnErrorNamingTheCheckpoint) {
  const std::string dir = empty_dir("progress");
  const recipe::Recipe r = tiny_recipe({"train.steps=2"});
  recipe::FixedClock clock(0.01);
  {
    Trainer t(r, testing_support::pattern_data(r), clock, {.out_dir = dir});
    t.run();
  }
  const std::string ckpt = dir + "/checkpoint.safetensors";
  SafetensorsFile f = load_safetensors(ckpt);
  std::map<std::string, std::string> meta = f.metadata;
  for (const std::string& progress :
       {std::string(R"({"step": 2})"), std::string(R"({"step": "two"})"), std::string(R"([1, 2])")}) {
    SCOPED_TRACE(progress);
    meta["progress"] = progress;
    save_safetensors(ckpt, f.tensors, meta);
    try {
      Trainer t(r, testing_support::pattern_data(r), clock, {.resume = ckpt});
      t.run();
      FAIL() << "expected an Error";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(ckpt + ": the progress record"), std::string::npos) << m;
    }
  }
}

// The probe's case: a checkpoint with its crc32c: entries stripped loaded a flipped bit unnoticed. nanotrn always
// writes them, so a nanotrn checkpoint without them is refused; the same bytes with checksums load.
TEST(TrainerSafety, ACheckpointStrippedOfItsChecksumsIsRefused) {
  const std::string dir = empty_dir("nocrc");
  const recipe::Recipe r = tiny_recipe({"train.steps=2"});
  recipe::FixedClock clock(0.01);
  {
    Trainer t(r, testing_support::pattern_data(r), clock, {.out_dir = dir});
    t.run();
  }
  const std::string ckpt = dir + "/checkpoint.safetensors";
  const SafetensorsFile f = load_safetensors(ckpt);
  EXPECT_TRUE(f.checksummed);
  EXPECT_NO_THROW(load_checkpoint(ckpt));
  const std::vector<uint8_t> bare = encode_safetensors(f.tensors, f.metadata, SafetensorsChecksums::none);
  write_file_atomic(ckpt, bare);
  EXPECT_FALSE(load_safetensors(ckpt).checksummed);
  const std::string m = testing_support::error_message_of([&] { load_checkpoint(ckpt); });
  EXPECT_NE(m.find(ckpt + ": a nanotrn checkpoint without its crc32c: checksums"), std::string::npos) << m;
}

TEST(TrainerSafety, ASigintStopsAfterTheStepWithACheckpointThatResumes) {
  const std::string dir = empty_dir("sigint");
  const recipe::Recipe r = tiny_recipe({"train.steps=6"});
  recipe::FixedClock clock(0.01);
  install_stop_signals();
  clear_stop_signal();
  int polls = 0;
  TrainerOptions o{.out_dir = dir};
  o.should_stop = [&polls] {
    if (++polls == 3) {
      ::kill(::getpid(), SIGINT);  // only recorded: this process keeps running
      // The watcher thread records it asynchronously: wait for it (at most 10 s).
      for (int i = 0; i < 1000 && stop_signal() == 0; i++) ::usleep(10000);
    }
    return stop_signal() != 0;
  };
  TrainResult res;
  {
    Trainer t(r, testing_support::pattern_data(r), clock, o);
    res = t.run();
  }
  EXPECT_EQ(stop_signal(), SIGINT);
  clear_stop_signal();
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGHUP, SIG_DFL);
  EXPECT_EQ(res.stop_reason, "interrupted");
  EXPECT_EQ(res.steps, 2);
  const std::string ckpt = dir + "/checkpoint.safetensors";
  EXPECT_EQ(load_checkpoint(ckpt).progress.at("step"), 2);
  Trainer again(r, testing_support::pattern_data(r), clock, {.out_dir = dir, .resume = ckpt});
  EXPECT_EQ(again.run().steps, 6);
}

}  // namespace
}  // namespace nanotrn::train
