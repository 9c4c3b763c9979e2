// Step composition. See step_model.h.
#include "predict/step_model.h"

#include <algorithm>
#include <cstdio>

#include "base/error.h"
#include "base/format.h"
#include "hw/roofline.h"
#include "neuron/machine.h"
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
  const int64_t ranks_per_chip = (ranks_ + layout_.chips - 1) / layout_.chips;
  memory_ = rank_memory(recipe, config_, layout_, dtype_, heads,
                        device.value("hbm_bytes_per_chip") / static_cast<double>(ranks_per_chip));
  if (device.kind != hw::DeviceKind::cpu) require_fits(memory_, recipe, config_, layout_, dtype_, heads, device.name);
}

double StepModel::allreduce_bytes() const { return gradient_bytes(config_, dtype_); }

double StepModel::allreduce_bytes_per_s() const {
  if (ranks_ <= 1) return 0.0;
  double bw = coster_.rank_bytes_per_s();
  if (device_.kind == hw::DeviceKind::trainium) {
    const neuron::NeuronCoreSpec& s = neuron::spec_for(device_.neuron_core);
    bw = std::min(bw, s.dma_total_bytes_per_ns() * 1e9 * static_cast<double>(lnc_));
  }
  if (layout_.chips > 1) bw = std::min(bw, device_.link_bytes_per_s_per_chip());
  return bw;
}

double StepModel::run_sequence(std::vector<TimedOp>& ops, double* launch_s) {
  const double launch = device_.value("kernel_launch_s");
  double t = 0.0;
  size_t i = 0;
  while (i < ops.size()) {
    size_t j = i;
    double longest = 0.0;
    std::map<std::string, double> engines;
    while (j < ops.size() && ops[j].op.stage == ops[i].op.stage) {
      ops[j].start_s = t;
      longest = std::max(longest, ops[j].cost.seconds);
      for (const auto& [k, v] : ops[j].cost.engines) engines[k] += v;
      j++;
    }
    double stage = longest;
    for (const auto& [k, v] : engines) stage = std::max(stage, v);
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
                     .fused_attention_backward = device_.kind != hw::DeviceKind::trainium};
  std::vector<KernelOp> micro = lower_micro_batch(config_, recipe_.batch.seq_len, lo);
  if (recipe_.launch.recompute) micro = with_recompute(std::move(micro));
  for (KernelOp& op : micro) {
    OpCost c = coster_.cost(op, dtype_);
    s->graph_instructions += c.instructions;
    s->untimed_ops += c.instructions > 0 ? 0 : 1;
    s->micro_ops.push_back({std::move(op), std::move(c), 0.0});
  }
  for (KernelOp& op : lower_optimizer(recipe_, config_, lo)) {
    OpCost c = coster_.cost(op, dtype_);
    s->optimizer_ops.push_back({std::move(op), std::move(c), 0.0});
  }
  double micro_launch = 0.0, opt_launch = 0.0;
  const bool eager = layout_.stack == recipe::Stack::eager;
  // Compiled: one graph per micro-batch, independent kernels of a stage overlap. Eager: every op is its own graph,
  // run one after another.
  s->micro_batch_s = eager ? run_serial(s->micro_ops, &micro_launch) : run_sequence(s->micro_ops, &micro_launch);
  s->optimizer_s = eager ? run_serial(s->optimizer_ops, &opt_launch) : run_sequence(s->optimizer_ops, &opt_launch);
  s->launch_s = micro_launch * static_cast<double>(accum) + opt_launch;
  for (const TimedOp& op : s->micro_ops) {
    if (op.op.pass == Pass::backward) {
      s->backward_s = s->micro_batch_s - op.start_s;
      break;
    }
  }
  // Ring reduce-scatter and all-gather each move half an all-reduce (hw/roofline.h).
  const double ring = hw::ring_allreduce_seconds(allreduce_bytes(), ranks_, allreduce_bytes_per_s(),
                                                 device_.value("link_hop_latency_s"));
  const double half = ring / 2, a = static_cast<double>(accum);
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
  s->step_s = static_cast<double>(accum) * s->micro_batch_s + s->optimizer_s + s->allreduce_exposed_s + s->host_s;
  slot = std::move(s);
  return *slot;
}

std::vector<std::string> StepModel::notes() const {
  std::vector<std::string> n;
  n.push_back("layout: " + layout_text(layout_, device_, recipe_.batch.seq_len) +
              (zero() > 0 ? ", ZeRO-" + std::to_string(zero()) : std::string()) +
              (recipe_.launch.recompute ? ", blocks recomputed in the backward" : "") +
              "; no tensor/pipeline parallelism");
  n.push_back("HBM per rank (modelled, device_memory.h): " + memory_.describe());
  if (device_.kind == hw::DeviceKind::trainium) {
    n.push_back(
        "kernels with a library tile kernel (matmul, softmax, rmsnorm, fused causal attention forward) are timed "
        "on the software NeuronCore " +
        device_.neuron_core +
        " (pipelined schedule); the others by roofline (marked in the breakdown); the attention backward has "
        "no tile kernel yet: recompute + softmax + 4 matmuls through HBM");
  } else {
    n.push_back("every kernel by roofline on " + device_.name + " (no software model of this device)" +
                (dtype_ == DType::f32 && device_.kind == hw::DeviceKind::gpu
                     ? "; an f32 recipe is priced at the BF16 peak (no FP32/TF32 peak in the catalog)"
                     : ""));
  }
  if (ranks_ <= 1) {
    n.push_back("no gradient collective: one rank");
  } else {
    n.push_back("gradient all-reduce: " + format_number("%.1f MB", allreduce_bytes() / 1e6) + " (" +
                std::string(dtype_name(dtype_)) + " gradients, assumed) as a ring at " +
                format_number("%.0f GB/s", allreduce_bytes_per_s() / 1e9) + " per rank" +
                (options_.overlap_allreduce ? ", overlapped with the last backward" : ", not overlapped"));
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
              (options_.shard_optimizer ? "Muon sharded over the ranks" : "every rank runs the whole optimiser") +
              "; layout transposes and DMA contention are not modelled; fused attention skips fully masked "
              "(causal) key blocks" +
              (device_.kind == hw::DeviceKind::trainium ? " in the forward only" : ", forward and backward"));
  return n;
}

}  // namespace nanotrn::predict
