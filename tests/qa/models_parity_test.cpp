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
#include <cstdlib>
#include <filesystem>
#include <map>

#include "autograd/tape.h"
#include "base/rng.h"
#include "io/safetensors.h"
#include "model/gpt.h"
#include "model/hf_config.h"
#include "qa/models_qa.h"
#include "recipe/recipe.h"
#include "support/torch_peer.h"

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
  std::vector<int32_t> ids(static_cast<size_t>(B * T)), targets(ids.size());
  for (size_t i = 0; i < ids.size(); i++) {
    ids[i] = static_cast<int32_t>(random_u32(9, 1, i) % static_cast<uint32_t>(c.vocab_size));
    targets[i] = static_cast<int32_t>(random_u32(9, 2, i) % static_cast<uint32_t>(c.vocab_size));
  }
  std::filesystem::create_directories(dir);
  const std::string in = dir + "/in.safetensors", out = dir + "/out.safetensors";
  std::filesystem::remove(out);
  std::vector<std::pair<std::string, Tensor>> ts;
  for (const model::Parameter& p : gpt.parameters()) ts.emplace_back("model." + p.name, p.value);
  ts.emplace_back("ids", Tensor::from_ints({1, B, T}, ids));
  ts.emplace_back("targets", Tensor::from_ints({1, B, T}, targets));
  save_safetensors(in, ts, {{"recipe", recipe::recipe_to_json(recipe).dump()}, {"steps", "1"}});
  const std::string cmd = testing_support::torch_peer_command("gpt_parity.py", in + " " + out);
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "the PyTorch reference failed (python3-torch?): " << cmd;
  const SafetensorsFile ref = load_safetensors(out);

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
