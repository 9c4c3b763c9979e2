// Composition: one training step's time on a device from its lowered kernels (lowering.h) and their costs
// (kernel_cost.h).
//
//   StepModel m(recipe, device, {});            // data-parallel layout: ranks, rows per rank
//   const StepTime& s = m.step(4, 1);           // accum 4 micro-batches, 1 CE head; cached per (accum, heads)
//   s.step_s, s.micro_batch_s, s.allreduce_exposed_s, s.host_s ...
//
// Layout: the launch shape (launch.h): data-parallel replicas of tp x pp ranks, on nodes x chips x ranks per chip;
// each replica gets ceil(rows / replicas) rows of every micro-batch. Every group (tensor parallel, data parallel,
// neighbouring pipeline stages) is placed by place_group and priced on the topology (hw/topology.h), EFA included.
// step = (accum + pp - 1) x (micro-batch + p2p) + optimiser + exposed all-reduce + host, where
//  * a sequence of kernels (one micro-batch, or the optimiser) runs stage by stage; kernels of one stage are
//    independent: stage time = max(longest kernel, busiest engine class summed over the stage's kernels); every
//    kernel adds the device's kernel_launch_s (assumed, catalog);
//  * the gradient collectives (below for ZeRO) move every parameter, bf16 when the recipe trains in bf16 else fp32
//    (assumed), as a ring
//    over the ranks (hw/topology.h: on one chip at the rank's DMA bandwidth (machine.h: engines x per-engine
//    peak x lnc, capped by its HBM share), across chips on the links, across nodes over EFA); with overlap it starts
//    during the last micro-batch's backward and only the part longer than that backward is exposed (DMA
//    contention with compute is not modelled);
//  * ZeRO (launch.zero, more than one rank): stage 1 reduce-scatters the gradients during the last backward and
//    all-gathers the updated weights after the (sharded) optimiser, exposed; stage 2 reduce-scatters every
//    micro-batch's gradients under its backward; stage 3 also all-gathers the weights for every micro-batch's forward
//    and backward, prefetched under that micro-batch (DeepSpeed's schedule; assumed). Each ring reduce-scatter or
//    all-gather costs half a ring all-reduce. Stages >= 1 shard the optimiser (as --shard-optimizer);
//  * launch.recompute re-runs every block's forward ops at the start of the backward;
//  * tensor parallelism (launch.tp, lowering.h): each collective is priced over the tp group on the topology (a ring
//    at the rank's DMA bandwidth on one chip, the chip links or EFA beyond), on the critical path: no overlap with
//    the GEMMs (Megatron without communication overlap; assumed for the Neuron stack);
//  * pipeline parallelism (launch.pp, 1F1B): the micro-batch is the slower of the first stage (embedding) and the
//    last (head), each holding depth / pp layers; p2p = the activation sent forward and its gradient sent back per
//    slot by each of the stage's tp ranks (rows x T x d in the activation dtype, 1 / tp of it under sequence
//    parallelism), on chip, over the chip links or over EFA, the slowest stage boundary on the critical path
//    (assumed);
//    the optimiser and the gradient all-reduce cover one stage's 1 / pp of the parameters;
//  * compiled stack (launch.stack): host = host_graph_launch_s x (accum + 1): one compiled graph per micro-batch and
//    one for the optimiser (assumed, catalog);
//  * eager stack: every op is its own graph and they run one after another (a stage costs the sum of its kernels,
//    each with its launch gap); the host dispatches each op in eager_op_dispatch_s (catalog: a calibration, see
//    docs/VALIDATION.md) and runs ahead of the device, which waits whenever the host is behind; host = that waiting,
//    with one sync per step (the loss read at its end).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hw/catalog.h"
#include "hw/topology.h"
#include "model/config.h"
#include "predict/device_memory.h"
#include "predict/kernel_cost.h"
#include "predict/launch.h"
#include "predict/lowering.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {

// The launch shape (chips, ranks per chip, LNC, stack) is the recipe's `launch` section (launch.h).
struct PredictOptions {
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
  // The compiled micro-batch graph's size: tile-program instructions of its timed kernels (a lower bound: the
  // `untimed_ops` priced by roofline have no program to count). neuronx-cc refuses graphs over kCompilerLimit.
  double graph_instructions = 0;
  size_t untimed_ops = 0;
  double tp_collective_s = 0;  // one micro-batch's tensor-parallel collectives (inside micro_batch_s)
  // Pipeline parallelism (launch.pp): micro_ops and micro_batch_s are the slowest stage's (`pipeline_stage`); each
  // of the accum + pp - 1 slots also pays p2p_s; the bubble is (pp - 1) slots.
  int64_t pipeline_stage = 0;
  double p2p_s = 0, pipeline_bubble_s = 0;
  std::vector<TimedOp> micro_ops, optimizer_ops;
};

// The eager stack's host wait in one step: the host enqueues op after op (accum micro-batches, then the optimiser),
// dispatch_s each, never waiting for the device; the device starts an op once it is enqueued and the previous op
// is done (its seconds plus launch_s); returns the time the device spent waiting for the host. Monotone in
// dispatch_s (calibration.h inverts it).
double eager_host_idle(const StepTime& step, double dispatch_s, double launch_s);

// neuronx-cc's limit on the instructions of one compiled graph (NCC_EXTP004, recipe-spec §12).
constexpr double kCompilerInstructionLimit = 5e6;

class StepModel {
 public:
  StepModel(const recipe::Recipe& recipe, const hw::Device& device, const PredictOptions& options = {});
  const StepTime& step(int64_t accum, int mtp_heads);

  const recipe::Recipe& recipe() const { return recipe_; }
  const model::GptConfig& config() const { return config_; }
  const hw::Device& device() const { return device_; }
  const PredictOptions& options() const { return options_; }
  const Layout& layout() const { return layout_; }
  const RankMemory& memory() const { return memory_; }
  int64_t zero() const;  // the ZeRO stage in effect (0 with one rank)
  int64_t lnc() const { return lnc_; }
  int64_t ranks() const { return ranks_; }
  int64_t rows_per_rank() const { return rows_per_rank_; }
  DType dtype() const { return dtype_; }
  double allreduce_bytes() const;
  double rank_bytes_per_s() const;       // one rank's own DMA bandwidth (its cores' queues, capped by its HBM share)
  hw::Group tp_group() const;            // where a tensor-parallel group's ranks sit (hw/topology.h)
  hw::Group dp_group() const;            // where the data-parallel group's ranks sit
  hw::Group ep_group() const;            // where an expert-parallel group's ranks sit (ep replicas, one rank of each)
  double expert_gradient_bytes() const;  // of allreduce_bytes(): the rank's experts' (reduced over their holders)
  double dp_collective(hw::Collective kind) const;  // of the gradient buffer
  const KernelCoster& coster() const { return coster_; }
  // Assumptions and layout facts worth printing with a prediction.
  std::vector<std::string> notes() const;

 private:
  double run_sequence(std::vector<TimedOp>& ops, double* launch_s);
  double run_serial(std::vector<TimedOp>& ops, double* launch_s);
  static std::vector<KernelOp> with_recompute(std::vector<KernelOp> ops);
  OpCost collective_cost(const KernelOp& op) const;

  recipe::Recipe recipe_;
  model::GptConfig config_;
  hw::Device device_;
  PredictOptions options_;
  Layout layout_;
  RankMemory memory_;
  int64_t lnc_ = 1, ranks_ = 1, rows_per_rank_ = 1;
  DType dtype_ = DType::bf16;
  KernelCoster coster_;
  std::map<std::pair<int64_t, int>, std::unique_ptr<StepTime>> cache_;
};

}  // namespace nanotrn::predict
