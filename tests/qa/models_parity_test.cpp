// Every shipped Hugging Face config's scaled-down host instance (qa::scaled_down: the instance `qa models` trains)
// against the independent PyTorch implementation of tests/python/gpt_parity.py: the same initial weights and batch,
// the step-0 loss and every gradient within 1e-4 relative. A gradient is measured against its own largest element,
// floored at 1e-3 of the model's largest: the key bias of a block without rotary or QK-norm (GPT-2's) has an exact
// gradient of 0 (the softmax cancels it), so both sides hold rounding noise there. Configs that scale down to the
// same instance share one PyTorch run, and every instance runs in one Python process (PyTorch's import once). The
// per-config errors are printed ("parity <file>: ..."): docs/MODELS_QA.md quotes them. The test fails, never skips,
// when /usr/bin/python3 or torch is missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "autograd/tape.h"
#include "base/error.h"
#include "io/safetensors.h"
#include "model/gpt.h"
#include "model/hf_config.h"
#include "qa/models_qa.h"
#include "recipe/recipe.h"
#include "support/gpt_peer.h"
#include "support/source_path.h"

namespace nanotrn::qa {
namespace {

struct Errors {
  double loss = 0, gradient = 0;
};

constexpr int64_t kB = 2, kT = 16;

recipe::Recipe recipe_of(const model::GptConfig& c) {
  recipe::Recipe r = recipe::default_recipe_with({});
  r.model = c;
  return r;
}

testing_support::PeerBatch batch_of(const model::GptConfig& c) {
  return testing_support::random_batch(9, static_cast<size_t>(kB * kT), c.vocab_size);
}

struct ConfigFile {
  std::string path, architecture;
};

// One distinct host instance, the configs that scale down to it, and the folder of its peer run.
struct Instance {
  model::GptConfig config;
  std::string dir;
  std::vector<ConfigFile> files;
};

// The PyTorch peer's step-0 loss and gradients for the instance `gpt` (read from `dir`), against nanotrn's.
Errors errors_against_peer(Engine& engine, model::Gpt& gpt, const std::string& dir) {
  Tape tape;
  Ctx ctx{engine, &tape};
  const testing_support::PeerBatch batch = batch_of(gpt.config());
  const SafetensorsFile ref = testing_support::read_gpt_peer_output(dir);
  const Tensor loss = gpt.loss(ctx, Tensor::from_ints({kB, kT}, batch.ids), Tensor::from_ints({kB, kT}, batch.targets));
  tape.backward(loss);
  Errors e;
  const double want = ref.find("loss")->to_vector()[0];
  e.loss = std::fabs(loss.item() - want) / std::fabs(want);
  double largest = 0;
  for (const model::Parameter& p : gpt.parameters())
    for (float g : ref.find("grad." + p.name)->to_vector()) largest = std::max(largest, std::fabs(double{g}));
  for (const model::Parameter& p : gpt.parameters()) {
    const std::vector<float> got = p.value.grad().to_vector(), w = ref.find("grad." + p.name)->to_vector();
    double err = 0, scale = 1e-3 * largest;
    for (size_t i = 0; i < w.size(); i++) {
      err = std::max(err, std::fabs(double{got[i]} - w[i]));
      scale = std::max(scale, std::fabs(double{w[i]}));
    }
    e.gradient = std::max(e.gradient, err / scale);
  }
  return e;
}

// The shipped configs the reader accepts, grouped by the host instance they scale down to (first-seen order).
std::vector<Instance> distinct_instances() {
  std::vector<Instance> instances;
  std::map<std::string, size_t> by_key;
  for (const std::string& file : config_files(testing_support::source_path("configs/hf"))) {
    model::HfModel hf;
    try {
      hf = model::read_hf_config(file);
    } catch (const Error&) {
      continue;  // refused by the reader (docs/MODELS_QA.md lists why)
    }
    const model::GptConfig s = scaled_down(hf.config);
    const std::string key = recipe::recipe_to_json(recipe_of(s)).at("model").dump();
    auto [it, fresh] = by_key.emplace(key, instances.size());
    if (fresh)
      instances.push_back({s, ::testing::TempDir() + "/nanotrn_models_parity_" + std::to_string(instances.size()), {}});
    instances[it->second].files.push_back({file, hf.architecture});
  }
  return instances;
}

TEST(ModelsParity, EveryShippedConfigsHostInstanceMatchesPyTorch) {
  const std::vector<Instance> instances = distinct_instances();
  Engine engine;
  // Each instance's model, built once (seed 7): its initial weights are the peer's input and then its own.
  std::vector<std::unique_ptr<model::Gpt>> models;
  std::vector<std::string> dirs;
  for (const Instance& in : instances) {
    models.push_back(std::make_unique<model::Gpt>(Ctx{engine}, in.config, 7));
    testing_support::write_gpt_peer_input(*models.back(), recipe_of(in.config), batch_of(in.config), {1, kB, kT},
                                          in.dir);
    dirs.push_back(in.dir);
  }
  testing_support::run_gpt_peers(dirs);  // one interpreter for every instance
  size_t checked = 0;
  for (size_t i = 0; i < instances.size(); ++i) {
    const Instance& in = instances[i];
    const Errors e = errors_against_peer(engine, *models[i], in.dir);
    for (const ConfigFile& f : in.files) {
      std::printf("parity %s (%s): loss %.1e, gradients %.1e\n", std::filesystem::path(f.path).filename().c_str(),
                  f.architecture.c_str(), e.loss, e.gradient);
      EXPECT_LT(e.loss, 1e-4) << f.path;
      EXPECT_LT(e.gradient, 1e-4) << f.path;
      checked++;
    }
  }
  EXPECT_GE(checked, 40u);  // the zoo's readable configs (docs/MODELS_QA.md)
  std::printf("%zu configs, %zu distinct host instances\n", checked, instances.size());
}

}  // namespace
}  // namespace nanotrn::qa
