// The predictor: (a) the NKI matmul tutorial's BF16 4096x8192x8192 on one Trn1 NeuronCore (measured 6.97 ms, [MM-OLD])
// against the software NeuronCore, with the gap stated; a GPU kernel equals its roofline; the step composes as
// documented (accum x micro-batch + optimiser + exposed all-reduce + host); the budget walk counts steps like the
// trainer.
#include <cstdio>
#include <map>

#include <gtest/gtest.h>

#include "base/host_memory.h"
#include "hw/catalog.h"
#include "predict/kernel_cost.h"
#include "predict/predictor.h"
#include "predict/step_model.h"
#include "recipe/recipe.h"
#include "support/source_path.h"

namespace nanotrn::predict {
namespace {

KernelOp bf16_matmul(int64_t m, int64_t k, int64_t n) { return matmul_op("mm", m, k, n, DType::bf16); }

TEST(Predict, NkiMatmulOnOneTrn1Core) {
  const hw::Catalog c = hw::builtin_catalog();
  KernelCoster coster(c.find("trn1"), 1);
  const KernelOp op = bf16_matmul(4096, 8192, 8192);
  const OpCost cost = coster.cost(op, DType::bf16);
  const double measured = 6.97e-3;                            // [MM-OLD] fully optimised NKI kernel, 85 % of peak
  const double bound = op.flops / (2.0 * 128 * 128 * 2.8e9);  // TensorE peak 91.75 TFLOP/s [NKI-A2]
  std::printf(
      "[ matmul ] 4096x8192x8192 bf16 on trn1 core: predicted %.3f ms, measured %.2f ms, error %+.0f %%; "
      "TensorE bound %.3f ms\n",
      cost.seconds * 1e3, measured * 1e3, 100.0 * (cost.seconds / measured - 1.0), bound * 1e3);
  EXPECT_EQ(cost.method.rfind("neuron v2", 0), 0u);
  // The modelled kernel can never beat the TensorE bound, and it is a real timing (not a roofline fallback).
  EXPECT_GE(cost.seconds, bound);
  EXPECT_GE(cost.busiest[hw::Engine::tensor], bound * 0.999);
  // At K = 8192 the library's pipelined kernel K-blocks with an fp32 SBUF accumulator, as the tutorial's optimised
  // kernel does (matmul.h), so both operands' blocks stay resident and it is TensorE-bound: within +-20 % of the
  // measurement.
  EXPECT_LT(cost.seconds, 1.2 * measured);
  EXPECT_GT(cost.seconds, 0.8 * measured);
}

TEST(Predict, GpuKernelIsItsRoofline) {
  const hw::Catalog c = hw::builtin_catalog();
  const hw::Device& h100 = c.find("h100");
  KernelCoster coster(h100, 1);
  const KernelOp op = bf16_matmul(8192, 1024, 4096);
  const OpCost cost = coster.cost(op, DType::bf16);
  EXPECT_EQ(cost.method, "roofline");
  EXPECT_DOUBLE_EQ(cost.seconds, std::max(op.flops / 989e12, op.bytes / 3.35e12));
}

recipe::Recipe tiny(const std::string& budget) {
  return recipe::default_recipe_with({"model.vocab_size=64", "model.depth=2", "model.model_dim=32", "model.head_dim=16",
                                      "model.n_kv_head=1", "model.ve_gate_channels=8", "batch.seq_len=16",
                                      "batch.rows=4", "train.budget=" + budget, "eval.tokens=256", "eval.rows=4",
                                      "launch.stack=ideal"});
}

TEST(Predict, StepComposesAsDocumented) {
  const hw::Catalog c = hw::builtin_catalog();
  const hw::Device& trn2 = c.find("trn2");
  StepModel m(tiny("30s"), trn2);
  EXPECT_EQ(m.ranks(), 4);  // 4 rows over 4 logical cores (LNC=2)
  EXPECT_EQ(m.rows_per_rank(), 1);
  const StepTime s1 = m.step(1, 1), s3 = m.step(3, 1);
  const double host = m.stack().value(recipe::StackParam::graph_launch_s);
  EXPECT_DOUBLE_EQ(s1.host_s, 2 * host);
  EXPECT_NEAR(s3.step_s, 3 * s1.micro_batch_s + s1.optimizer_s + s1.allreduce_exposed_s + 4 * host, 1e-12);
  EXPECT_NEAR(s3.step_s - s1.step_s, 2 * (s1.micro_batch_s + host), 1e-12);
  // Every micro-batch kernel pays the assumed launch gap; the stages never take less than their longest kernel.
  double longest_sum = 0;
  for (const TimedOp& op : s1.micro_ops) longest_sum = std::max(longest_sum, op.cost.seconds);
  EXPECT_GE(s1.micro_batch_s, longest_sum + static_cast<double>(s1.micro_ops.size()) * trn2.value("kernel_launch_s"));
}

TEST(Predict, BudgetWalkMatchesSinglePhaseArithmetic) {
  const hw::Catalog c = hw::builtin_catalog();
  const Prediction p = predict(tiny("30s"), c.find("trn2"));
  ASSERT_EQ(p.phases.size(), 1u);
  const double t = p.phases[0].time.step_s;
  // The trainer stops once charged >= budget: ceil(budget / t) steps.
  EXPECT_EQ(p.walk.steps, static_cast<int64_t>(std::ceil(30.0 / t)));
  EXPECT_GT(p.phases[0].mfu, 0.0);
  EXPECT_LT(p.phases[0].mfu, 1.0);
}

// --tokens N: the budget is the shortest whose walk reaches N, and the cost rents the chips for the compile and the
// walk at the catalog's price.
TEST(Predict, TokenTargetPricesTheShortestBudgetThatReachesIt) {
  const hw::Catalog c = hw::builtin_catalog();
  const recipe::Recipe r = tiny("30s");
  const Prediction p = predict(r, c.find("trn1"), PredictOptions{.tokens = 100000});
  EXPECT_EQ(p.target_tokens, 100000);
  EXPECT_GE(p.walk.tokens, 100000);
  const int64_t per_step = p.phases[0].time.tokens;
  EXPECT_LT(p.walk.tokens - per_step, 100000);  // one step fewer would not reach it
  recipe::Recipe shorter = r;
  shorter.train.budget = recipe::Duration{"shorter", p.budget_s * (1 - 1e-7)};
  EXPECT_LT(predict(shorter, c.find("trn1")).walk.tokens, 100000);
  // The cost: compile and steps held on one chip, priced at 1/16 of trn1.32xlarge's hourly price.
  const double held = p.walk.charged_s - p.startup_s + p.compile_s;
  EXPECT_DOUBLE_EQ(p.cost.held_s, held);
  EXPECT_DOUBLE_EQ(p.cost.chip_hours, held / 3600.0);
  EXPECT_DOUBLE_EQ(p.cost.usd_share, held / 3600.0 * 21.5 / 16.0);
  EXPECT_EQ(prediction_json(p)["cost"]["instance"], "trn1.32xlarge");
  EXPECT_EQ(prediction_json(p)["target_tokens"], 100000);
}

TEST(Predict, EveryShippedRecipeOnEveryDevice) {
  const hw::Catalog c = hw::builtin_catalog();
  for (const char* r : {"cpu-tiny", "cpu-small", "autoresearch-d8"}) {
    const recipe::Recipe recipe =
        recipe::load_recipe(testing_support::source_path("recipes/" + std::string(r) + ".json"));
    for (const char* d : {"trn1", "trn2", "trn3", "h100", "gb300"}) {
      const Prediction p = predict(recipe, c.find(d));
      for (const PhasePrediction& ph : p.phases) {
        EXPECT_GT(ph.time.step_s, 0.0) << r << " on " << d;
        EXPECT_LT(ph.mfu, 1.0) << r << " on " << d;
      }
      EXPECT_GT(p.walk.steps, 0) << r << " on " << d;
    }
  }
}

// The host has no HBM in the catalog: a prediction on it measures its memory against this machine's
// (base/host_memory.h, read from /proc/meminfo and the cgroup independently of the predictor), never "of 0 B".
TEST(Predict, OnTheHostTheCapacityIsThisMachinesMemory) {
  const recipe::Recipe recipe = recipe::load_recipe(testing_support::source_path("recipes/cpu-tiny.json"));
  const Prediction p = predict(recipe, hw::host_device(hw::builtin_catalog(), /*measured_gflops=*/100.0));
  const HostMemory host = host_memory();
  if (host.known) {
    EXPECT_NEAR(p.memory.capacity, host.available_bytes, 0.05 * host.available_bytes);
    EXPECT_TRUE(p.memory.fits());
    EXPECT_NE(p.memory.describe().find("this machine's " + host.basis), std::string::npos) << p.memory.describe();
  } else {  // no /proc/meminfo: said, with no capacity invented
    EXPECT_EQ(p.memory.capacity, 0.0);
    EXPECT_NE(p.memory.describe().find("not known here"), std::string::npos) << p.memory.describe();
  }
}

// How long this takes is measured in bench/predict_bench.cpp, against the 2 s bound.
TEST(Predict, FrontierForgeK60OnTrn2IsShapedLikeTheRun) {
  const recipe::Recipe r = recipe::load_recipe(testing_support::source_path("recipes/frontierforge-k60.json"));
  const Prediction p = predict(r, hw::builtin_catalog().find("trn2"));
  EXPECT_EQ(p.ranks, 4);
  EXPECT_EQ(p.rows_per_rank, 16);
  ASSERT_EQ(p.phases.size(), 3u);
  EXPECT_EQ(p.phases[0].time.tokens, 65536);  // recipe-spec §6.3: 65k / 131k / 262k tokens per step
  EXPECT_EQ(p.phases[2].time.tokens, 262144);
  EXPECT_EQ(p.phases[2].mtp_heads, 3);  // MTP fades out by 45 %, after the k4 phase starts at 20 %
  EXPECT_GT(p.phases[1].time.step_s, p.phases[0].time.step_s);
  EXPECT_GT(p.phases[2].time.step_s, p.phases[1].time.step_s);
  int64_t sum = 0;
  for (int64_t n : p.walk.steps_per_phase) sum += n;
  EXPECT_EQ(sum, p.walk.steps);
}

TEST(Predict, TraceHoldsEveryKernelOfOneStep) {
  const Prediction p = predict(tiny("30s"), hw::builtin_catalog().find("trn2"));
  const nlohmann::json t = prediction_trace(p, 0);
  const StepTime& s = p.phases[0].time;
  size_t slices = 0, engine_slices = 0;
  std::map<std::pair<std::string, double>, double> kernel_end;  // (name, start) -> end, of the kernel lanes
  for (const nlohmann::json& e : t.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    EXPECT_GE(e.at("ts").get<double>(), 0.0);
    EXPECT_LE(e.at("ts").get<double>() + e.at("dur").get<double>(), s.step_s * 1e6 * (1 + 1e-9));
    if (e.at("cat") == "engine") continue;
    slices++;
    kernel_end[{e.at("name").get<std::string>(), e.at("ts").get<double>()}] =
        e.at("ts").get<double>() + e.at("dur").get<double>();
  }
  // Each engine track's slice lies inside its kernel's slice: it starts with it and is no longer.
  for (const nlohmann::json& e : t.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("cat") != "engine") continue;
    engine_slices++;
    const auto k = kernel_end.find({e.at("name").get<std::string>(), e.at("ts").get<double>()});
    ASSERT_NE(k, kernel_end.end()) << e.dump();
    EXPECT_LE(e.at("ts").get<double>() + e.at("dur").get<double>(), k->second * (1 + 1e-9)) << e.dump();
  }
  EXPECT_GE(engine_slices, s.micro_ops.size());  // every kernel keeps at least one engine busy
  // micro-batch kernels x accum + optimiser kernels + one host launch per graph + the all-reduce.
  EXPECT_EQ(slices, s.micro_ops.size() * static_cast<size_t>(s.accum) + s.optimizer_ops.size() +
                        static_cast<size_t>(s.accum + 1) + (s.allreduce_s > 0 ? 1 : 0));
}

}  // namespace
}  // namespace nanotrn::predict
