// Every shipped Hugging Face config's scaled-down host instance (qa::scaled_down: the instance `qa models` trains)
// against the independent PyTorch implementation of tests/python/gpt_parity.py: the same initial weights and batch,
// the step-0 loss and every gradient within 1e-4 relative. A gradient is measured against its own largest element,
// floored at 1e-3 of the model's largest: the key bias of a block without rotary or QK-norm (GPT-2's) has an exact
// gradient of 0 (the softmax cancels it), so both sides hold rounding noise there. Configs that scale down to the
// same instance share one PyTorch run. The per-config errors are printed ("parity <file>: ..."): docs/MODELS_QA.md
// quotes them. The test fails, never skips, when /usr/bin/python3 or torch is missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "autograd/tape.h"
#include "base/error.h"
#include "io/safetensors.h"
#include "model/gpt.h"
#include "model/hf_config.h"
#include "qa/models_qa.h"
#include "recipe/recipe.h"
#include "support/gpt_peer.h"

namespace nanotrn::qa {
namespace {

struct Errors {
  double loss = 0, gradient = 0;
};

// The PyTorch peer's step-0 loss and gradients for the instance `c`, against nanotrn's.
Errors forward_backward_errors(const model::GptConfig& c, const std::string& dir) {
  recipe::Recipe recipe = recipe::default_recipe_with({});
  recipe.model = c;
  Engine engine;
  Tape tape;
  Ctx ctx{engine, &tape};
  model::Gpt gpt(ctx, c, 7);
  const int64_t B = 2, T = 16;
  const testing_support::PeerBatch batch = testing_support::random_batch(9, static_cast<size_t>(B * T), c.vocab_size);
  const std::vector<int32_t>&ids = batch.ids, &targets = batch.targets;
  const SafetensorsFile ref = testing_support::run_gpt_peer(gpt, recipe, batch, {1, B, T}, dir);

  const Tensor loss = gpt.loss(ctx, Tensor::from_ints({B, T}, ids), Tensor::from_ints({B, T}, targets));
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

TEST(ModelsParity, EveryShippedConfigsHostInstanceMatchesPyTorch) {
  std::map<std::string, Errors> by_instance;
  int checked = 0;
  for (const std::string& file : config_files(std::string(NANOTRN_SOURCE_DIR) + "/configs/hf")) {
    model::HfModel hf;
    try {
      hf = model::read_hf_config(file);
    } catch (const Error&) {
      continue;  // refused by the reader (docs/MODELS_QA.md lists why)
    }
    const model::GptConfig s = scaled_down(hf.config);
    recipe::Recipe r = recipe::default_recipe_with({});
    r.model = s;
    const std::string key = recipe::recipe_to_json(r).at("model").dump();
    if (!by_instance.count(key)) {
      const std::string dir = ::testing::TempDir() + "/nanotrn_models_parity_" + std::to_string(by_instance.size());
      by_instance[key] = forward_backward_errors(s, dir);
    }
    const Errors& e = by_instance[key];
    std::printf("parity %s (%s): loss %.1e, gradients %.1e\n", std::filesystem::path(file).filename().c_str(),
                hf.architecture.c_str(), e.loss, e.gradient);
    EXPECT_LT(e.loss, 1e-4) << file;
    EXPECT_LT(e.gradient, 1e-4) << file;
    checked++;
  }
  EXPECT_GE(checked, 40);  // the zoo's readable configs (docs/MODELS_QA.md)
  std::printf("%d configs, %zu distinct host instances\n", checked, by_instance.size());
}

}  // namespace
}  // namespace nanotrn::qa
