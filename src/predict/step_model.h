// Composition: one training step's time on a device from its lowered kernels (lowering.h) and their costs
// (kernel_cost.h).
//
//   StepModel m(recipe, device, {});            // data-parallel layout: ranks, rows per rank
//   const StepTime& s = m.step(4, 1);           // accum 4 micro-batches, 1 CE head; cached per (accum, heads)
//   s.step_s, s.micro_batch_s, s.allreduce_exposed_s, s.host_s ...
//
// Layout: data parallel over chips x logical cores (physical cores / lnc); each rank gets ceil(rows / ranks) rows
// of every micro-batch (fewer ranks when rows < ranks). No tensor or pipeline parallelism.
// step = accum x micro-batch + optimiser + exposed all-reduce + host dispatch, where
//  * a sequence of kernels (one micro-batch, or the optimiser) runs stage by stage; kernels of one stage are
//    independent: stage time = max(longest kernel, busiest engine class summed over the stage's kernels); every
//    kernel adds the device's kernel_launch_s (assumed, catalog);
//  * the gradient all-reduce (every parameter, bf16 when the recipe trains in bf16 else fp32: assumed) is a ring
//    over the ranks (hw/roofline.h) at the slower of the rank's DMA bandwidth (machine.h: engines x per-engine
//    peak x lnc, capped by its HBM share) and the chip's link bandwidth when chips > 1; with overlap it starts
//    during the last micro-batch's backward and only the part longer than that backward is exposed (DMA
//    contention with compute is not modelled);
//  * host dispatch = host_graph_launch_s x (accum + 1): one compiled graph per micro-batch and one for the
//    optimiser (assumed, catalog). Eager host work between graphs is not modelled.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hw/catalog.h"
#include "model/config.h"
#include "predict/kernel_cost.h"
#include "predict/lowering.h"
#include "train/recipe.h"

namespace nanotrn::predict {

struct PredictOptions {
  int64_t lnc = 0;                // physical cores per logical core; 0 = the device's default
  bool shard_optimizer = false;   // split Muon's Newton-Schulz over the ranks
  bool overlap_allreduce = true;  // overlap the all-reduce with the last backward
};

struct TimedOp {
  KernelOp op;
  OpCost cost;
  double start_s = 0;  // from the start of its sequence
};

struct StepTime {
  int64_t accum = 1;
  int mtp_heads = 1;
  int64_t tokens = 0;  // whole step, all ranks
  double micro_batch_s = 0, backward_s = 0, optimizer_s = 0;
  double allreduce_s = 0, allreduce_exposed_s = 0;
  double launch_s = 0;  // kernel-launch gaps in the step (inside micro_batch_s and optimizer_s)
  double host_s = 0;
  double step_s = 0;
  std::vector<TimedOp> micro_ops, optimizer_ops;
};

class StepModel {
 public:
  StepModel(const train::Recipe& recipe, const hw::Device& device, const PredictOptions& options = {});
  const StepTime& step(int64_t accum, int mtp_heads);

  const train::Recipe& recipe() const { return recipe_; }
  const model::GptConfig& config() const { return config_; }
  const hw::Device& device() const { return device_; }
  const PredictOptions& options() const { return options_; }
  int64_t lnc() const { return lnc_; }
  int64_t ranks() const { return ranks_; }
  int64_t rows_per_rank() const { return rows_per_rank_; }
  DType dtype() const { return dtype_; }
  double allreduce_bytes() const;
  double allreduce_bytes_per_s() const;
  const KernelCoster& coster() const { return coster_; }
  // Assumptions and layout facts worth printing with a prediction.
  std::vector<std::string> notes() const;

 private:
  double run_sequence(std::vector<TimedOp>& ops, double* launch_s);

  train::Recipe recipe_;
  model::GptConfig config_;
  hw::Device device_;
  PredictOptions options_;
  int64_t lnc_ = 1, ranks_ = 1, rows_per_rank_ = 1, available_ranks_ = 1;
  DType dtype_ = DType::bf16;
  KernelCoster coster_;
  std::map<std::pair<int64_t, int>, std::unique_ptr<StepTime>> cache_;
};

}  // namespace nanotrn::predict
