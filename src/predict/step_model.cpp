// Step composition. See step_model.h.
#include "predict/step_model.h"

#include <algorithm>
#include <cstdio>

#include "base/error.h"
#include "base/format.h"
#include "hw/roofline.h"
#include "hw/topology.h"
#include "neuron/isa/machine.h"
#include "recipe/budget.h"

namespace nanotrn::predict {
StepModel::StepModel(const recipe::Recipe& recipe, const hw::Device& device, const PredictOptions& options)
    : recipe_(recipe),
      config_(model::resolve(recipe.model)),
      device_(device),
      options_(options),
      layout_(resolve_layout(recipe, device)),
      coster_(device, layout_.lnc) {
  lnc_ = layout_.lnc;
  ranks_ = layout_.ranks;
  rows_per_rank_ = layout_.rows_per_rank;
  dtype_ = recipe.train.precision == "bf16" ? DType::bf16 : DType::f32;
  if (layout_.stack == recipe::Stack::eager) {
    check(device.value("eager_op_dispatch_s") > 0.0,
          "launch.stack eager: the catalog has no eager per-op dispatch figure for '" + device.name +
              "' (eager_op_dispatch_s is 0: unknown); use the compiled stack");
  }
  // Refuse a layout whose rank cannot fit its share of the chip's HBM before pricing anything (the lowering of an
  // absurd shape would exhaust the host instead). The most MTP heads are active at the start.
  const int heads = recipe::active_heads(recipe::mtp_weights_at(recipe, 0.0));
  const int64_t all_chips = layout_.chips * layout_.nodes;
  const int64_t ranks_per_chip = (ranks_ * layout_.tp * layout_.pp + all_chips - 1) / all_chips;
  int64_t most_accum = 1;
  for (const recipe::BatchPhase& ph : recipe.batch.phases) most_accum = std::max(most_accum, ph.accum);
  memory_ = rank_memory(recipe, config_, layout_, dtype_, heads, most_accum,
                        device.value("hbm_bytes_per_chip") / static_cast<double>(ranks_per_chip));
  if (device.kind != hw::DeviceKind::cpu)
    require_fits(memory_, recipe, config_, layout_, dtype_, heads, most_accum, device.name);
}

double StepModel::allreduce_bytes() const {
  return gradient_bytes(config_, dtype_, layout_.tp, layout_.ep) / static_cast<double>(layout_.pp);  // one stage's
}

double StepModel::expert_gradient_bytes() const {
  return static_cast<double>(rank_expert_parameters(config_, layout_.tp, layout_.ep)) *
         static_cast<double>(dtype_size(dtype_)) / static_cast<double>(layout_.pp);
}

double StepModel::rank_bytes_per_s() const {
  double bw = coster_.rank_bytes_per_s();
  if (device_.kind == hw::DeviceKind::trainium) {
    const neuron::NeuronCoreSpec& s = neuron::spec_for(device_.neuron_core);
    bw = std::min(bw, s.dma_total_bytes_per_ns() * 1e9 * static_cast<double>(lnc_));
  }
  return bw;
}

// Ranks are numbered node by node, chip by chip; a replica is tp x pp consecutive ranks (tp innermost).
hw::Group StepModel::tp_group() const { return place_group(layout_, layout_.tp, 1); }

hw::Group StepModel::dp_group() const { return place_group(layout_, ranks_, layout_.tp * layout_.pp); }

hw::Group StepModel::ep_group() const { return place_group(layout_, layout_.ep, layout_.tp * layout_.pp); }

// With expert parallelism the experts' gradients are reduced only over the replicas holding the same experts
// (every ep-th replica), the rest over the whole data-parallel group; the two run one after the other (assumed).
double StepModel::dp_collective(hw::Collective kind) const {
  const double experts = layout_.ep > 1 ? expert_gradient_bytes() : 0.0;
  double s = hw::collective_seconds(device_, kind, allreduce_bytes() - experts, dp_group(), rank_bytes_per_s());
  if (experts > 0 && ranks_ / layout_.ep > 1) {
    const hw::Group holders = place_group(layout_, ranks_ / layout_.ep, layout_.tp * layout_.pp * layout_.ep);
    s += hw::collective_seconds(device_, kind, experts, holders, rank_bytes_per_s());
  }
  return s;
}

OpCost StepModel::collective_cost(const KernelOp& op) const {
  const CollectiveCall& call = *op.collective();
  const hw::Group group = call.group == CollectiveGroup::expert_parallel ? ep_group() : tp_group();
  OpCost c;
  c.seconds = hw::collective_seconds(device_, call.kind, op.bytes, group, rank_bytes_per_s());
  c.method = (call.kind == hw::Collective::all_to_all ? "all-to-all: " : "") + hw::collective_algorithm(device_, group);
  c.busiest[hw::Engine::dma] = c.seconds;
  c.use[hw::Engine::dma] = c.seconds;
  return c;
}

double StepModel::run_sequence(std::vector<TimedOp>& ops, double* launch_s) {
  const double launch = device_.value("kernel_launch_s");
  double t = 0.0;
  size_t i = 0;
  while (i < ops.size()) {
    size_t j = i;
    double longest = 0.0;
    hw::EngineUse engines;
    while (j < ops.size() && ops[j].op.stage == ops[i].op.stage) {
      ops[j].start_s = t;
      longest = std::max(longest, ops[j].cost.seconds);
      for (size_t e = 0; e < engines.busy_s.size(); e++) engines.busy_s[e] += ops[j].cost.busiest.busy_s[e];
      j++;
    }
    double stage = longest;
    for (const double v : engines.busy_s) stage = std::max(stage, v);
    const double gaps = launch * static_cast<double>(j - i);
    *launch_s += gaps;
    t += stage + gaps;
    i = j;
  }
  return t;
}

int64_t StepModel::zero() const { return ranks_ > 1 ? recipe_.launch.zero : 0; }

std::vector<KernelOp> StepModel::with_recompute(std::vector<KernelOp> ops) {
  // Activation checkpointing: the blocks' forward ops ("L<i> ...") run again at the start of the backward.
  std::vector<KernelOp> again;
  for (const KernelOp& f : ops) {
    if (f.pass != Pass::forward || f.name.empty() || f.name[0] != 'L') continue;
    KernelOp r = f;
    r.name = "recompute " + f.name;
    r.pass = Pass::backward;
    again.push_back(std::move(r));
  }
  auto first_backward =
      std::find_if(ops.begin(), ops.end(), [](const KernelOp& o) { return o.pass == Pass::backward; });
  ops.insert(first_backward, std::make_move_iterator(again.begin()), std::make_move_iterator(again.end()));
  return ops;
}

double StepModel::run_serial(std::vector<TimedOp>& ops, double* launch_s) {
  const double launch = device_.value("kernel_launch_s");
  double t = 0.0;
  for (TimedOp& op : ops) {
    op.start_s = t;
    t += op.cost.seconds + launch;
  }
  *launch_s += launch * static_cast<double>(ops.size());
  return t;
}

double eager_host_idle(const StepTime& s, double dispatch_s, double launch_s) {
  std::vector<const std::vector<TimedOp>*> sequence(static_cast<size_t>(s.accum), &s.micro_ops);
  sequence.push_back(&s.optimizer_ops);
  double host = 0.0, device = 0.0, idle = 0.0;
  for (const std::vector<TimedOp>* ops : sequence) {
    for (const TimedOp& op : *ops) {
      host += dispatch_s;
      if (host > device) {
        idle += host - device;
        device = host;
      }
      device += op.cost.seconds + launch_s;
    }
  }
  return idle;
}

const StepTime& StepModel::step(int64_t accum, int mtp_heads) {
  check(accum >= 1 && mtp_heads >= 1, "predict: accum and mtp_heads must be >= 1");
  auto& slot = cache_[{accum, mtp_heads}];
  if (slot) return *slot;
  auto s = std::make_unique<StepTime>();
  s->accum = accum;
  s->mtp_heads = mtp_heads;
  s->tokens = accum * recipe_.batch.rows * recipe_.batch.seq_len;
  LoweringOptions lo{.rows = rows_per_rank_,
                     .mtp_heads = mtp_heads,
                     .dtype = dtype_,
                     .ranks = ranks_,
                     .shard_optimizer = options_.shard_optimizer || zero() >= 1,
                     .fused_attention_backward = device_.kind != hw::DeviceKind::trainium ||
                                                 recipe_.launch.attention_backward == recipe::AttentionBackward::flash,
                     .tp = layout_.tp,
                     .sequence_parallel = recipe_.launch.sequence_parallel};
  lo.pp = layout_.pp;
  lo.ep = layout_.ep;
  const bool eager = layout_.stack == recipe::Stack::eager;
  // Compiled: one graph per micro-batch, independent kernels of a stage overlap. Eager: every op is its own graph,
  // run one after another. Sets each op's start; returns the sequence's time.
  auto run_graph = [this, eager](std::vector<TimedOp>& ops, double* launch_s) {
    return eager ? run_serial(ops, launch_s) : run_sequence(ops, launch_s);
  };
  // One micro-batch on one pipeline stage; with pp > 1 the slower of the first stage (embedding) and the last (head)
  // sets the pipeline's pace (stage i holds layers [i depth / pp, (i + 1) depth / pp)).
  auto price_stage = [&](int64_t stage, StepTime& into) {
    LoweringOptions so = lo;
    if (layout_.pp > 1) {
      so.layer_begin = stage * config_.depth / layout_.pp;
      so.layer_end = (stage + 1) * config_.depth / layout_.pp;
      so.embedding = stage == 0;
      so.head = stage == layout_.pp - 1;
    }
    std::vector<KernelOp> micro = lower_micro_batch(config_, recipe_.batch.seq_len, so);
    if (recipe_.launch.recompute) micro = with_recompute(std::move(micro));
    for (KernelOp& op : micro) {
      const CollectiveCall* collective = op.collective();
      OpCost c = collective ? collective_cost(op) : coster_.cost(op, dtype_);
      into.graph_instructions += c.instructions;
      into.untimed_ops += c.instructions > 0 || collective ? 0 : 1;
      if (collective && collective->group == CollectiveGroup::tensor_parallel) into.tp_collective_s += c.seconds;
      into.micro_ops.push_back({std::move(op), std::move(c), 0.0});
    }
  };
  price_stage(0, *s);
  if (layout_.pp > 1) {
    StepTime last;
    price_stage(layout_.pp - 1, last);
    double unused = 0;
    if (run_graph(last.micro_ops, &unused) > run_graph(s->micro_ops, &unused)) {
      s->micro_ops = std::move(last.micro_ops);
      s->graph_instructions = last.graph_instructions;
      s->untimed_ops = last.untimed_ops;
      s->tp_collective_s = last.tp_collective_s;
      s->pipeline_stage = layout_.pp - 1;
    }
  }
  for (KernelOp& op : lower_optimizer(recipe_, config_, lo)) {
    OpCost c = coster_.cost(op, dtype_);
    s->optimizer_ops.push_back({std::move(op), std::move(c), 0.0});
  }
  double micro_launch = 0.0, opt_launch = 0.0;
  s->micro_batch_s = run_graph(s->micro_ops, &micro_launch);
  s->optimizer_s = run_graph(s->optimizer_ops, &opt_launch);
  // 1F1B: accum + pp - 1 slots of one stage's micro-batch, each with its two point-to-point transfers (the
  // activation forward, its gradient backward; on the critical path: assumed); pp = 1 is plain accumulation.
  if (layout_.pp > 1) {
    // Each of the stage's tp ranks sends the activation (its 1 / tp sequence shard under sequence parallelism,
    // Megatron's scatter-gather); stages are consecutive blocks of tp ranks, so a boundary may cross chips or
    // nodes: the slowest boundary sets the pace.
    const double shard = recipe_.launch.sequence_parallel ? static_cast<double>(layout_.tp) : 1.0;
    const double bytes = static_cast<double>(rows_per_rank_ * recipe_.batch.seq_len * config_.model_dim) *
                         static_cast<double>(dtype_size(dtype_)) / shard;
    for (int64_t stage = 0; stage + 1 < layout_.pp; ++stage) {
      const hw::Group pair = place_group(layout_, 2, layout_.tp, stage * layout_.tp);
      s->p2p_s = std::max(s->p2p_s, 2 * hw::collective_seconds(device_, hw::Collective::point_to_point, bytes, pair,
                                                               rank_bytes_per_s()));
    }
  }
  const double slots = static_cast<double>(accum + layout_.pp - 1);
  s->pipeline_bubble_s = static_cast<double>(layout_.pp - 1) * (s->micro_batch_s + s->p2p_s);
  s->launch_s = micro_launch * slots + opt_launch;
  for (const TimedOp& op : s->micro_ops) {
    if (op.op.pass == Pass::backward) {
      s->backward_s = s->micro_batch_s - op.start_s;
      break;
    }
  }
  // The data-parallel group's collectives on the topology (hw/topology.h).
  const double ring = dp_collective(hw::Collective::all_reduce);
  const double half = dp_collective(hw::Collective::reduce_scatter), a = static_cast<double>(accum);
  auto hidden_under = [&](double comm, double compute) {
    return options_.overlap_allreduce ? std::max(0.0, comm - compute) : comm;
  };
  switch (zero()) {
    case 0:  // all-reduce during the last backward
      s->allreduce_s = ring;
      s->allreduce_exposed_s = hidden_under(ring, s->backward_s);
      break;
    case 1:  // reduce-scatter during the last backward; all-gather of the updated weights after the optimiser
      s->allreduce_s = ring;
      s->allreduce_exposed_s = hidden_under(half, s->backward_s) + half;
      break;
    case 2:  // gradient shards: reduce-scatter every micro-batch's backward; all-gather after the optimiser
      s->allreduce_s = a * half + half;
      s->allreduce_exposed_s = a * hidden_under(half, s->backward_s) + half;
      break;
    default:  // 3: weights gathered for the forward and again for the backward, gradients reduce-scattered, per
              // micro-batch, prefetched under that micro-batch's compute
      s->allreduce_s = a * 3 * half;
      s->allreduce_exposed_s = a * hidden_under(3 * half, s->micro_batch_s);
      break;
  }
  if (eager) {
    s->host_s = eager_host_idle(*s, device_.value("eager_op_dispatch_s"), device_.value("kernel_launch_s"));
  } else {
    s->host_s = device_.value("host_graph_launch_s") * static_cast<double>(accum + 1);
  }
  s->step_s = slots * (s->micro_batch_s + s->p2p_s) + s->optimizer_s + s->allreduce_exposed_s + s->host_s;
  slot = std::move(s);
  return *slot;
}

std::vector<std::string> StepModel::notes() const {
  std::vector<std::string> n;
  n.push_back("layout: " + layout_text(layout_, device_, recipe_.batch.seq_len) +
              (zero() > 0 ? ", ZeRO-" + std::to_string(zero()) : std::string()) +
              (recipe_.launch.recompute ? ", blocks recomputed in the backward" : "") +
              (layout_.tp == 1 && layout_.pp == 1 ? "; no tensor/pipeline parallelism" : ""));
  if (layout_.tp > 1) {
    n.push_back("tensor parallel: " + std::to_string(layout_.tp) + " ranks per replica (Megatron splits" +
                (recipe_.launch.sequence_parallel ? ", sequence parallel" : "") +
                "), collectives: " + hw::collective_algorithm(device_, tp_group()) +
                ", not overlapped with compute (assumed); Muon's Newton-Schulz runs on each rank's shard "
                "(assumed; exact Muon would gather the whole matrix)");
  }
  n.push_back("HBM per rank (modelled, device_memory.h): " + memory_.describe());
  if (device_.kind == hw::DeviceKind::trainium) {
    n.push_back(
        "kernels with a library tile kernel (matmul, softmax, rmsnorm, fused attention forward and backward) "
        "are timed "
        "on the software NeuronCore " +
        device_.neuron_core +
        " (pipelined schedule); the others by roofline (marked in the breakdown); the attention backward " +
        (recipe_.launch.attention_backward == recipe::AttentionBackward::flash
             ? std::string("is the flash tile kernel (windowed layers with their window)")
             : std::string("is unfused (launch.attention_backward): recompute + softmax + 4 matmuls through HBM")));
  } else {
    n.push_back("every kernel by roofline on " + device_.name + " (no software model of this device)" +
                (dtype_ == DType::f32 && device_.kind == hw::DeviceKind::gpu
                     ? "; an f32 recipe is priced at the BF16 peak (no FP32/TF32 peak in the catalog)"
                     : ""));
  }
  if (ranks_ <= 1) {
    n.push_back("no gradient collective: one rank");
  } else {
    n.push_back("gradient collectives: " + format_number("%.1f MB", allreduce_bytes() / 1e6) + " (" +
                std::string(dtype_name(dtype_)) +
                " gradients, assumed) over the data-parallel group: " + hw::collective_algorithm(device_, dp_group()) +
                (options_.overlap_allreduce ? ", overlapped with the last backward" : ", not overlapped"));
    if (layout_.ep > 1)
      n.push_back("experts: " + std::to_string(expert_shard(config_, layout_.ep)) + " of " +
                  std::to_string(config_.experts) + " per rank (top-" + std::to_string(config_.experts_per_token) +
                  " routing, balanced: assumed); token all-to-alls over " + std::to_string(layout_.ep) +
                  " replicas: " + hw::collective_algorithm(device_, ep_group()) + "; the experts' " +
                  format_number("%.1f MB", expert_gradient_bytes() / 1e6) +
                  " of gradients reduced over the replicas holding the same experts");
  }
  if (layout_.stack == recipe::Stack::eager) {
    n.push_back(
        "eager stack: every op is its own graph, run one after another (no overlap of independent kernels); "
        "the host dispatches each op in " +
        format_number("%.0f us", device_.value("eager_op_dispatch_s") * 1e6) + " (" +
        device_.number("eager_op_dispatch_s").source +
        ") ahead of the device, which waits when the host falls behind (host column); one sync per step; "
        "kernel launch gap " +
        format_number("%.1f us", device_.value("kernel_launch_s") * 1e6) + " (assumed)");
  } else {
    n.push_back("compiled stack, assumed: kernel launch gap " +
                format_number("%.1f us", device_.value("kernel_launch_s") * 1e6) + ", host graph launch " +
                format_number("%.2f ms", device_.value("host_graph_launch_s") * 1e3) +
                " per micro-batch and per optimiser step; eager host dispatch between graphs is not modelled");
  }
  n.push_back(std::string("optimiser: ") +
              (options_.shard_optimizer || zero() >= 1 ? "the optimiser sharded over the data-parallel ranks"
                                                       : "every rank runs the whole optimiser") +
              "; layout transposes and DMA contention are not modelled; fused attention skips fully masked "
              "(causal or windowed) key blocks" +
              (device_.kind == hw::DeviceKind::trainium &&
                       recipe_.launch.attention_backward == recipe::AttentionBackward::unfused
                   ? " in the forward only"
                   : ", forward and backward"));
  return n;
}

}  // namespace nanotrn::predict
