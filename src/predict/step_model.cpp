// Step composition. See step_model.h.
#include "predict/step_model.h"

#include <algorithm>
#include <cstdio>

#include "base/error.h"
#include "base/format.h"
#include "hw/roofline.h"
#include "neuron/machine.h"
#include "train/memory_need.h"

namespace nanotrn::predict {
namespace {

int64_t resolve_lnc(const hw::Device& d, int64_t requested) {
  if (requested <= 0) return d.lnc();
  check(d.kind == hw::DeviceKind::trainium, "--lnc applies to Trainium devices only ('" + d.name + "')");
  check(requested == 1 || (requested == 2 && d.neuron_core != "v2"),
        "lnc " + std::to_string(requested) + " is not available on '" + d.name + "' (LNC=1/2 on Trn2 and later [LNC])");
  return requested;
}

}  // namespace

StepModel::StepModel(const train::Recipe& recipe, const hw::Device& device, const PredictOptions& options)
    : recipe_(recipe),
      config_(model::resolve(recipe.model)),
      device_(device),
      options_(options),
      lnc_(resolve_lnc(device, options.lnc)),
      coster_(device, lnc_) {
  const int64_t per_chip = device.kind == hw::DeviceKind::trainium ? device.physical_cores_per_chip() / lnc_ : 1;
  const int64_t all = device.chips() * per_chip;
  const int64_t rows = recipe.batch.rows;
  check(rows >= 1, "predict: batch.rows must be >= 1");
  available_ranks_ = all;
  ranks_ = std::min(all, rows);
  rows_per_rank_ = (rows + ranks_ - 1) / ranks_;
  dtype_ = recipe.train.precision == "bf16" ? DType::bf16 : DType::f32;
  // Every rank holds the whole model (data parallel): refuse a recipe whose rank cannot fit in its share of the
  // chip's HBM before pricing anything (the lowering of an absurd shape would exhaust the host instead).
  const int64_t ranks_per_chip = (ranks_ + device.chips() - 1) / device.chips();
  const double hbm_per_rank = device.value("hbm_bytes_per_chip") / static_cast<double>(ranks_per_chip);
  train::require_fits(train::training_memory(recipe, config_, rows_per_rank_), hbm_per_rank,
                      "predict: recipe '" + recipe.name + "': one rank",
                      device.name + " has " + format_bytes(hbm_per_rank) + " of HBM per rank (" +
                          std::to_string(ranks_per_chip) + " ranks per chip)");
}

double StepModel::allreduce_bytes() const { return gradient_bytes(config_, dtype_); }

double StepModel::allreduce_bytes_per_s() const {
  if (ranks_ <= 1) return 0.0;
  double bw = coster_.rank_bytes_per_s();
  if (device_.kind == hw::DeviceKind::trainium) {
    const neuron::NeuronCoreSpec& s = neuron::spec_for(device_.neuron_core);
    bw = std::min(bw, s.dma_total_bytes_per_ns() * 1e9 * static_cast<double>(lnc_));
  }
  if (device_.chips() > 1) bw = std::min(bw, device_.link_bytes_per_s_per_chip());
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
                     .shard_optimizer = options_.shard_optimizer,
                     .fused_attention_backward = device_.kind != hw::DeviceKind::trainium};
  for (KernelOp& op : lower_micro_batch(config_, recipe_.batch.seq_len, lo)) {
    OpCost c = coster_.cost(op, dtype_);
    s->micro_ops.push_back({std::move(op), std::move(c), 0.0});
  }
  for (KernelOp& op : lower_optimizer(recipe_, config_, lo)) {
    OpCost c = coster_.cost(op, dtype_);
    s->optimizer_ops.push_back({std::move(op), std::move(c), 0.0});
  }
  double micro_launch = 0.0, opt_launch = 0.0;
  s->micro_batch_s = run_sequence(s->micro_ops, &micro_launch);
  s->optimizer_s = run_sequence(s->optimizer_ops, &opt_launch);
  s->launch_s = micro_launch * static_cast<double>(accum) + opt_launch;
  for (const TimedOp& op : s->micro_ops) {
    if (op.op.pass == Pass::backward) {
      s->backward_s = s->micro_batch_s - op.start_s;
      break;
    }
  }
  s->allreduce_s = hw::ring_allreduce_seconds(allreduce_bytes(), ranks_, allreduce_bytes_per_s(),
                                              device_.value("link_hop_latency_s"));
  s->allreduce_exposed_s = options_.overlap_allreduce ? std::max(0.0, s->allreduce_s - s->backward_s) : s->allreduce_s;
  s->host_s = device_.value("host_graph_launch_s") * static_cast<double>(accum + 1);
  s->step_s = static_cast<double>(accum) * s->micro_batch_s + s->optimizer_s + s->allreduce_exposed_s + s->host_s;
  slot = std::move(s);
  return *slot;
}

std::vector<std::string> StepModel::notes() const {
  std::vector<std::string> n;
  n.push_back(
      "layout: data parallel over " + std::to_string(ranks_) + " rank(s) (" + std::to_string(device_.chips()) +
      " chip(s)" + (device_.kind == hw::DeviceKind::trainium ? ", LNC=" + std::to_string(lnc_) : std::string()) +
      "), " + std::to_string(rows_per_rank_) + " row(s) x " + std::to_string(recipe_.batch.seq_len) +
      " tokens per rank per micro-batch; no tensor/pipeline parallelism" +
      (ranks_ < available_ranks_ ? " (" + std::to_string(available_ranks_ - ranks_) + " of " +
                                       std::to_string(available_ranks_) + " logical cores idle: fewer rows than cores)"
                                 : std::string()));
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
  n.push_back("gradient all-reduce: " + format_number("%.1f MB", allreduce_bytes() / 1e6) + " (" +
              std::string(dtype_name(dtype_)) + " gradients, assumed) as a ring at " +
              format_number("%.0f GB/s", allreduce_bytes_per_s() / 1e9) + " per rank" +
              (options_.overlap_allreduce ? ", overlapped with the last backward" : ", not overlapped"));
  n.push_back("assumed: kernel launch gap " + format_number("%.1f us", device_.value("kernel_launch_s") * 1e6) +
              ", host graph launch " + format_number("%.2f ms", device_.value("host_graph_launch_s") * 1e3) +
              " per micro-batch and per optimiser step; eager host dispatch between graphs is not modelled");
  n.push_back(std::string("optimiser: ") +
              (options_.shard_optimizer ? "Muon sharded over the ranks" : "every rank runs the whole optimiser") +
              "; layout transposes and DMA contention are not modelled; fused attention skips fully masked "
              "(causal) key blocks" +
              (device_.kind == hw::DeviceKind::trainium ? " in the forward only" : ", forward and backward"));
  return n;
}

}  // namespace nanotrn::predict
