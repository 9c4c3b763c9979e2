// Composition: one training step's time on a device from its lowered kernels (lowering.h), their costs
// (kernel_cost.h) and the software stack the launch runs on (recipe/stack_profile.h).
//
//   StepModel m(recipe, device, {});            // data-parallel layout: ranks, rows per rank; recipe.launch.stack
//   const StepTime& s = m.step(4, 1);           // accum 4 micro-batches, 1 CE head; cached per (accum, heads)
//   s.step_s, s.step_s_band, s.micro_batch_s, s.allreduce_exposed_s, s.host_s, s.overhead_s ...
//   StepTime t = m.step_with(4, 1, other_profile);   // the same priced kernels under another stack (calibration.h)
//
// Two stages. priced(): the step's ops at the speed of nanotrn's library tile kernels (the `ideal` stack), which
// depends only on the recipe, device and layout and is cached. compose(): that step under a stack profile:
//  * every op's time is its modelled time / the profile's efficiency for its op class (matmul, attention, vector,
//    collective: lowering.h OpClass), the data-parallel collectives' too;
//  * a sequence of kernels (one micro-batch, or the optimiser) runs stage by stage when compiled (kernels of one
//    stage are independent: stage time = max(longest kernel, busiest engine summed over the stage's kernels)), one
//    after another when eager; every kernel adds the device's kernel_launch_s (assumed, catalog);
//  * dma_contention x the part of the gradient collectives hidden under the backward is added (the collective shares
//    the DMA rings with the compute it overlaps);
//  * host: compiled, graph_launch_s per graph (one per micro-batch and one for the optimiser); eager, the host
//    dispatches each op in op_dispatch_s and runs ahead of the device, which waits whenever the host is behind
//    (eager_host_idle), with one sync per step;
//  * step_overhead_s once per step;
//  * the band: step_s x the profile's [band_low, band_high].
// The stack applies to Trainium devices; a GPU or the host is priced at its roofline with its catalog graph launch
// (an eager stack there is refused).
// Layout: the launch shape (launch.h): data-parallel replicas of tp x pp ranks, on nodes x chips x ranks per chip;
// each replica gets ceil(rows / replicas) rows of every micro-batch. Every group (tensor parallel, data parallel,
// neighbouring pipeline stages) is placed by place_group and priced on the topology (hw/topology.h), EFA included.
// step = (accum + pp - 1) x (micro-batch + p2p) + optimiser + exposed all-reduce + contention + host + overhead, where
//  * the gradient collectives (below for ZeRO) move every parameter, bf16 when the recipe trains in bf16 else fp32
//    (assumed), as a ring over the ranks (hw/topology.h: on one chip at the rank's DMA bandwidth (machine.h: engines
//    x per-engine peak x lnc, capped by its HBM share), across chips on the links, across nodes over EFA); with
//    overlap it starts during the last micro-batch's backward and only the part longer than that backward is
//    exposed;
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
//    (assumed); the optimiser and the gradient all-reduce cover one stage's 1 / pp of the parameters.
// Compile time (compile_seconds): the profile's compile_s_per_instruction x the tile-program instructions of the
// run's compiled graphs: one micro-batch graph per distinct number of MTP heads the run uses, and the optimiser's.
#pragma once

#include <array>
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
  int64_t tokens = 0;  // > 0: price the run to this many tokens (the budget is the walk's time to them; budget.h)
};

struct TimedOp {
  KernelOp op;
  OpCost cost;
  double start_s = 0;  // from the start of its sequence
};

// One step's ops priced at the library kernels' speed (the `ideal` stack), before compose() applies a stack.
struct PricedStep {
  int64_t accum = 1;
  int mtp_heads = 1;
  std::vector<TimedOp> micro_ops, optimizer_ops;  // the slowest pipeline stage's micro-batch
  double graph_instructions = 0;
  size_t untimed_ops = 0;
  int64_t pipeline_stage = 0;
  double p2p_s = 0;  // one slot's point-to-point transfers (pp > 1)
};

struct StepTime {
  int64_t accum = 1;
  int mtp_heads = 1;
  int64_t tokens = 0;  // whole step, all ranks
  double micro_batch_s = 0, backward_s = 0, optimizer_s = 0;
  double allreduce_s = 0, allreduce_exposed_s = 0;
  double contention_s = 0;  // dma_contention x the collectives' time hidden under compute
  double launch_s = 0;      // kernel-launch gaps in the step (inside micro_batch_s and optimizer_s)
  double host_s = 0;        // graph launches (compiled) or the device's wait for the host's dispatch (eager)
  double overhead_s = 0;    // the stack's step_overhead_s
  double step_s = 0;
  std::array<double, 2> step_s_band{};  // step_s x the stack's [band_low, band_high]
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
  // Under the recipe's stack (launch.stack).
  const StepTime& step(int64_t accum, int mtp_heads);
  // Under another stack, from the same priced kernels (calibration.h fits a profile so).
  StepTime step_with(int64_t accum, int mtp_heads, const recipe::StackProfile& stack);
  const PricedStep& priced(int64_t accum, int mtp_heads);
  // The stack in effect: the recipe's on a Trainium device; on a GPU or the host, `ideal` with the device's graph
  // launch.
  const recipe::StackProfile& stack() const { return stack_; }
  // Compile time of the run's graphs under `stack` (0 for eager execution): see above.
  double compile_seconds(const recipe::StackProfile& stack);
  double compile_seconds() { return compile_seconds(stack_); }

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
  double run_sequence(std::vector<TimedOp>& ops, double* launch_s) const;
  double run_serial(std::vector<TimedOp>& ops, double* launch_s) const;
  double run_graph(std::vector<TimedOp>& ops, double* launch_s, recipe::Execution execution) const;
  static std::vector<KernelOp> with_recompute(std::vector<KernelOp> ops);
  OpCost collective_cost(const KernelOp& op) const;
  LoweringOptions lowering_options(int mtp_heads) const;
  void price_stage(int64_t stage, const LoweringOptions& lo, PricedStep& into);
  double p2p_seconds() const;
  StepTime compose(const PricedStep& priced, const recipe::StackProfile& stack) const;
  void add_collectives(StepTime& s, double efficiency) const;
  double host_seconds(const StepTime& s, const recipe::StackProfile& stack) const;
  std::string stack_note() const;

  recipe::Recipe recipe_;
  model::GptConfig config_;
  hw::Device device_;
  PredictOptions options_;
  Layout layout_;
  RankMemory memory_;
  int64_t lnc_ = 1, ranks_ = 1, rows_per_rank_ = 1;
  DType dtype_ = DType::bf16;
  KernelCoster coster_;
  recipe::StackProfile stack_;
  std::map<std::pair<int64_t, int>, std::unique_ptr<PricedStep>> priced_;
  std::map<std::pair<int64_t, int>, std::unique_ptr<StepTime>> cache_;
};

}  // namespace nanotrn::predict
