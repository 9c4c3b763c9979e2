// optim.kind adamw (optim/optimizer_kind.h): the block matrices leave Muon for an AdamW group of their own. Checked
// against AdamW's first step written out in fp64 (bias-corrected moments m = g, v = g^2, so the update is
// lr * g / (|g| + eps) after the decoupled decay lr * wd * p), against Muon's state names, and against the memory
// rule both the trainer's check and the predictor's table use (two fp32 moments per matrix parameter, not one).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "autograd/tape.h"
#include "model/gpt.h"
#include "predict/lowering.h"
#include "recipe/memory_need.h"
#include "recipe/recipe.h"
#include "support/random_ids.h"
#include "train/optimizers.h"

namespace nanotrn::train {
namespace {

recipe::Recipe small(const std::string& kind) {
  recipe::Recipe r = recipe::default_recipe_with(
      {"model.vocab_size=64", "model.depth=2", "model.model_dim=32", "model.head_dim=16", "model.n_kv_head=1",
       "model.ve_gate_channels=8", "optim.kind=" + kind, "optim.adamw_matrix_lr=0.003",
       "optim.adamw_matrix_weight_decay=0.1", "train.budget=0", "train.steps=10"});
  r.model = model::resolve(r.model);
  return r;
}

TEST(OptimizerKind, AdamWStepsTheBlockMatricesAsItsFirstStepFormula) {
  const recipe::Recipe r = small("adamw");
  Engine engine;
  Tape tape;
  Ctx ctx{engine, &tape};
  model::Gpt gpt(ctx, r.model, 7);
  const int64_t V = r.model.vocab_size;
  tape.backward(gpt.loss(ctx, testing_support::random_ids(2, 16, V, 9, 1), testing_support::random_ids(2, 16, V, 9, 2),
                         r.train.mtp_weights));
  std::map<std::string, std::pair<std::vector<float>, std::vector<float>>> before;  // name -> (weights, grads)
  for (model::Parameter& p : gpt.parameters()) {
    if (p.group == model::ParamGroup::matrix) before[p.name] = {p.value.to_vector(), p.value.grad().to_vector()};
  }
  ASSERT_FALSE(before.empty());
  OptimizerSet optim(engine.gemm(), gpt, r.optim);
  optim.schedule(0, 1.0, 0.0);
  optim.step();
  const double lr = r.optim.adamw_matrix_lr, wd = r.optim.adamw_matrix_weight_decay, eps = r.optim.adam_eps;
  for (const model::Parameter& p : gpt.parameters()) {
    if (p.group != model::ParamGroup::matrix) continue;
    const auto& [w, g] = before.at(p.name);
    const std::vector<float> now = p.value.to_vector();
    double worst = 0;
    for (size_t i = 0; i < w.size(); i++) {
      const double want = w[i] * (1 - lr * wd) - lr * g[i] / (std::fabs(static_cast<double>(g[i])) + eps);
      worst = std::max(worst, std::fabs(now[i] - want));
    }
    EXPECT_LT(worst, 1e-6) << p.name;  // fp32 arithmetic on updates of about lr = 3e-3
  }
  // The checkpoint's view: AdamW's moments for the matrices, no Muon slots.
  size_t exp_avg = 0;
  for (const auto& [name, t] : optim.state()) {
    EXPECT_EQ(name.find(".momentum"), std::string::npos) << name;
    if (name.find(".exp_avg") != std::string::npos && before.count(name.substr(6, name.rfind('.') - 6))) exp_avg++;
  }
  EXPECT_EQ(exp_avg, 2 * before.size());  // exp_avg and exp_avg_sq of each matrix
}

TEST(OptimizerKind, MemoryAndPricingFollowTheKind) {
  const recipe::Recipe muon = small("muon"), adamw = small("adamw");
  const model::ParamCounts n = model::count_params(adamw.model);
  const double all = static_cast<double>(n.total()), matrices = static_cast<double>(n.block_matrices);
  EXPECT_DOUBLE_EQ(recipe::optimizer_state_bytes(adamw.model, OptimizerKind::adamw), 8.0 * all);
  EXPECT_DOUBLE_EQ(recipe::optimizer_state_bytes(muon.model, OptimizerKind::muon),
                   4.0 * (matrices + 2 * (all - matrices)));
  EXPECT_DOUBLE_EQ(recipe::training_memory(adamw, adamw.model, 4).optimizer, 8.0 * all);
  // The priced optimiser step: Newton-Schulz and Muon's element-wise pass only under muon; AdamW over every
  // parameter under adamw (both element-wise passes cost 12 FLOPs per element, predict/lowering.cpp).
  auto groups = [](const recipe::Recipe& r) {
    std::map<std::string, double> elements;
    for (const predict::KernelOp& op : predict::lower_optimizer(r, r.model, predict::LoweringOptions{})) {
      elements[op.group] += op.flops * static_cast<double>(op.count) / 12.0;
    }
    return elements;
  };
  const auto m = groups(muon), a = groups(adamw);
  EXPECT_GT(m.count("muon newton-schulz"), 0u);
  EXPECT_EQ(a.count("muon newton-schulz"), 0u);
  EXPECT_EQ(a.count("muon element-wise"), 0u);
  EXPECT_DOUBLE_EQ(a.at("adamw"), all);
  EXPECT_DOUBLE_EQ(m.at("adamw") + m.at("muon element-wise"), all);
}

}  // namespace
}  // namespace nanotrn::train
