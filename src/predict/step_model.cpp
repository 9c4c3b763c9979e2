// Step composition. See step_model.h.
#include "predict/step_model.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "base/error.h"
#include "base/format.h"
#include "base/host_memory.h"
#include "hw/roofline.h"
#include "hw/topology.h"
#include "neuron/isa/machine.h"
#include "recipe/budget.h"

namespace nanotrn::predict {
namespace {

// The stack profiles describe Trainium software; a GPU or the host is priced at its roofline with its own graph
// launch (catalog), and an eager stack there has nothing to stand on.
recipe::StackProfile effective_stack(const recipe::StackProfile& wanted, const hw::Device& device) {
  if (device.kind == hw::DeviceKind::trainium) return wanted;
  check(wanted.execution == recipe::Execution::compiled,
        "launch.stack " + wanted.name + ": eager execution is modelled for Trainium devices only (its dispatch is " +
            "fitted to Trainium runs); '" + device.name + "' is priced at its roofline, compiled");
  recipe::StackProfile p = recipe::builtin_stack("ideal");
  p.param(recipe::StackParam::graph_launch_s) = device.number("host_graph_launch_s");
  p.band_low = {1.0, "a roofline: no band (an upper bound on throughput)"};
  p.band_high = {1.0, "a roofline: no band (an upper bound on throughput)"};
  return p;
}

recipe::StackParam efficiency_of(OpClass c) {
  switch (c) {
    case OpClass::matmul:
      return recipe::StackParam::matmul_efficiency;
    case OpClass::attention:
      return recipe::StackParam::attention_efficiency;
    case OpClass::vector:
      return recipe::StackParam::vector_efficiency;
    case OpClass::collective:
      return recipe::StackParam::collective_efficiency;
  }
  return recipe::StackParam::vector_efficiency;
}

// An op at the stack's speed: every time divided by its class's efficiency (the program's instructions unchanged).
OpCost at_stack_speed(OpCost c, double efficiency) {
  const double f = 1.0 / efficiency;
  c.seconds *= f;
  for (double& v : c.busiest.busy_s) v *= f;
  for (double& v : c.use.busy_s) v *= f;
  return c;
}

}  // namespace

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
  dtype_ = recipe.train.precision;
  stack_ = effective_stack(recipe.launch.stack, device);
  // Refuse a layout whose rank cannot fit its share of the chip's HBM before pricing anything (the lowering of an
  // absurd shape would exhaust the host instead). The most MTP heads are active at the start.
  const int heads = recipe::active_heads(recipe::mtp_weights_at(recipe, 0.0));
  const int64_t all_chips = layout_.chips * layout_.nodes;
  const int64_t ranks_per_chip = (ranks_ * layout_.tp * layout_.pp + all_chips - 1) / all_chips;
  int64_t most_accum = 1;
  for (const recipe::BatchPhase& ph : recipe.batch.phases) most_accum = std::max(most_accum, ph.accum);
  memory_ = rank_memory(recipe, config_, layout_, dtype_, heads, most_accum,
                        device.value("hbm_bytes_per_chip") / static_cast<double>(ranks_per_chip));
  if (device.kind == hw::DeviceKind::cpu) {  // the host has no HBM in the catalog: its memory is this machine's
    const HostMemory host = host_memory();
    memory_.capacity = host.known ? host.available_bytes : 0;
    memory_.capacity_of = host.known ? "this machine's " + host.basis : "this machine's memory: not known here";
  } else {
    require_fits(memory_, recipe, config_, layout_, dtype_, heads, most_accum, device.name);
  }
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

double StepModel::run_sequence(std::vector<TimedOp>& ops, double* launch_s) const {
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

double StepModel::run_serial(std::vector<TimedOp>& ops, double* launch_s) const {
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

double StepModel::run_graph(std::vector<TimedOp>& ops, double* launch_s, recipe::Execution execution) const {
  return execution == recipe::Execution::eager ? run_serial(ops, launch_s) : run_sequence(ops, launch_s);
}

LoweringOptions StepModel::lowering_options(int mtp_heads) const {
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
  return lo;
}

// One micro-batch on one pipeline stage, priced at the library kernels' speed; with pp > 1 stage i holds layers
// [i depth / pp, (i + 1) depth / pp), the embedding on the first and the head on the last.
void StepModel::price_stage(int64_t stage, const LoweringOptions& lo, PricedStep& into) {
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
    const bool collective = op.collective() != nullptr;
    OpCost c = collective ? collective_cost(op) : coster_.cost(op, dtype_);
    into.graph_instructions += c.instructions;
    into.untimed_ops += c.instructions > 0 || collective ? 0 : 1;
    into.micro_ops.push_back({std::move(op), std::move(c), 0.0});
  }
  into.pipeline_stage = stage;
}

// 1F1B's two point-to-point transfers per slot (the activation forward, its gradient backward; on the critical path:
// assumed). Each of a stage's tp ranks sends the activation (its 1 / tp sequence shard under sequence parallelism);
// stages are consecutive blocks of tp ranks, so a boundary may cross chips or nodes: the slowest sets the pace.
double StepModel::p2p_seconds() const {
  if (layout_.pp <= 1) return 0.0;
  const double shard = recipe_.launch.sequence_parallel ? static_cast<double>(layout_.tp) : 1.0;
  const double bytes = static_cast<double>(rows_per_rank_ * recipe_.batch.seq_len * config_.model_dim) *
                       static_cast<double>(dtype_size(dtype_)) / shard;
  double p2p = 0.0;
  for (int64_t stage = 0; stage + 1 < layout_.pp; ++stage) {
    const hw::Group pair = place_group(layout_, 2, layout_.tp, stage * layout_.tp);
    p2p = std::max(
        p2p, 2 * hw::collective_seconds(device_, hw::Collective::point_to_point, bytes, pair, rank_bytes_per_s()));
  }
  return p2p;
}

const PricedStep& StepModel::priced(int64_t accum, int mtp_heads) {
  check(accum >= 1 && mtp_heads >= 1, "predict: accum and mtp_heads must be >= 1");
  auto& slot = priced_[{accum, mtp_heads}];
  if (slot) return *slot;
  auto p = std::make_unique<PricedStep>();
  p->accum = accum;
  p->mtp_heads = mtp_heads;
  const LoweringOptions lo = lowering_options(mtp_heads);
  price_stage(0, lo, *p);
  if (layout_.pp > 1) {  // the slower of the first stage (embedding) and the last (head) sets the pace
    PricedStep last;
    price_stage(layout_.pp - 1, lo, last);
    double unused = 0;
    const recipe::Execution ex = stack_.execution;
    if (run_graph(last.micro_ops, &unused, ex) > run_graph(p->micro_ops, &unused, ex)) {
      p->micro_ops = std::move(last.micro_ops);
      p->graph_instructions = last.graph_instructions;
      p->untimed_ops = last.untimed_ops;
      p->pipeline_stage = last.pipeline_stage;
    }
  }
  for (KernelOp& op : lower_optimizer(recipe_, config_, lo)) {
    OpCost c = coster_.cost(op, dtype_);
    p->optimizer_ops.push_back({std::move(op), std::move(c), 0.0});
  }
  p->p2p_s = p2p_seconds();
  slot = std::move(p);
  return *slot;
}

// The data-parallel group's collectives on the topology (hw/topology.h) at the stack's collective efficiency, what
// of them the backward hides, and the contention of the hidden part with the compute under it.
void StepModel::add_collectives(StepTime& s, double efficiency) const {
  const double ring = dp_collective(hw::Collective::all_reduce) / efficiency;
  const double half = dp_collective(hw::Collective::reduce_scatter) / efficiency;
  const double a = static_cast<double>(s.accum);
  auto hidden_under = [&](double comm, double compute) {
    return options_.overlap_allreduce ? std::max(0.0, comm - compute) : comm;
  };
  switch (zero()) {
    case 0:  // all-reduce during the last backward
      s.allreduce_s = ring;
      s.allreduce_exposed_s = hidden_under(ring, s.backward_s);
      break;
    case 1:  // reduce-scatter during the last backward; all-gather of the updated weights after the optimiser
      s.allreduce_s = ring;
      s.allreduce_exposed_s = hidden_under(half, s.backward_s) + half;
      break;
    case 2:  // gradient shards: reduce-scatter every micro-batch's backward; all-gather after the optimiser
      s.allreduce_s = a * half + half;
      s.allreduce_exposed_s = a * hidden_under(half, s.backward_s) + half;
      break;
    default:  // 3: weights gathered for the forward and again for the backward, gradients reduce-scattered, per
              // micro-batch, prefetched under that micro-batch's compute
      s.allreduce_s = a * 3 * half;
      s.allreduce_exposed_s = a * hidden_under(3 * half, s.micro_batch_s);
      break;
  }
}

double StepModel::host_seconds(const StepTime& s, const recipe::StackProfile& stack) const {
  if (stack.execution == recipe::Execution::eager)
    return eager_host_idle(s, stack.value(recipe::StackParam::op_dispatch_s), device_.value("kernel_launch_s"));
  return stack.value(recipe::StackParam::graph_launch_s) * static_cast<double>(s.accum + 1);
}

StepTime StepModel::compose(const PricedStep& p, const recipe::StackProfile& stack) const {
  StepTime s;
  s.accum = p.accum;
  s.mtp_heads = p.mtp_heads;
  s.tokens = p.accum * recipe_.batch.rows * recipe_.batch.seq_len;
  s.graph_instructions = p.graph_instructions;
  s.untimed_ops = p.untimed_ops;
  s.pipeline_stage = p.pipeline_stage;
  auto at_speed = [&stack](const std::vector<TimedOp>& ops) {
    std::vector<TimedOp> out = ops;
    for (TimedOp& t : out) t.cost = at_stack_speed(t.cost, stack.value(efficiency_of(t.op.op_class)));
    return out;
  };
  s.micro_ops = at_speed(p.micro_ops);
  s.optimizer_ops = at_speed(p.optimizer_ops);
  for (const TimedOp& t : s.micro_ops) {
    const CollectiveCall* c = t.op.collective();
    if (c && c->group == CollectiveGroup::tensor_parallel) s.tp_collective_s += t.cost.seconds;
  }
  double micro_launch = 0.0, opt_launch = 0.0;
  s.micro_batch_s = run_graph(s.micro_ops, &micro_launch, stack.execution);
  s.optimizer_s = run_graph(s.optimizer_ops, &opt_launch, stack.execution);
  const double efficiency = stack.value(recipe::StackParam::collective_efficiency);
  s.p2p_s = p.p2p_s / efficiency;
  const double slots = static_cast<double>(s.accum + layout_.pp - 1);
  s.pipeline_bubble_s = static_cast<double>(layout_.pp - 1) * (s.micro_batch_s + s.p2p_s);
  s.launch_s = micro_launch * slots + opt_launch;
  for (const TimedOp& op : s.micro_ops) {
    if (op.op.pass == Pass::backward) {
      s.backward_s = s.micro_batch_s - op.start_s;
      break;
    }
  }
  add_collectives(s, efficiency);
  s.contention_s = stack.value(recipe::StackParam::dma_contention) * (s.allreduce_s - s.allreduce_exposed_s);
  s.host_s = host_seconds(s, stack);
  s.overhead_s = stack.value(recipe::StackParam::step_overhead_s);
  s.step_s = slots * (s.micro_batch_s + s.p2p_s) + s.optimizer_s + s.allreduce_exposed_s + s.contention_s + s.host_s +
             s.overhead_s;
  s.step_s_band = {s.step_s * stack.band_low.value, s.step_s * stack.band_high.value};
  return s;
}

const StepTime& StepModel::step(int64_t accum, int mtp_heads) {
  auto& slot = cache_[{accum, mtp_heads}];
  if (!slot) slot = std::make_unique<StepTime>(compose(priced(accum, mtp_heads), stack_));
  return *slot;
}

StepTime StepModel::step_with(int64_t accum, int mtp_heads, const recipe::StackProfile& stack) {
  return compose(priced(accum, mtp_heads), effective_stack(stack, device_));
}

double StepModel::compile_seconds(const recipe::StackProfile& stack) {
  const double per = effective_stack(stack, device_).value(recipe::StackParam::compile_s_per_instruction);
  if (per <= 0.0 || stack.execution == recipe::Execution::eager) return 0.0;
  // One micro-batch graph per distinct number of active MTP heads over the run (the graph does not depend on accum:
  // the micro-batches of a step run the same graph), and the optimiser's.
  std::set<int> heads = {recipe::active_heads(recipe::mtp_weights_at(recipe_, 1.0))};
  for (const recipe::BatchPhase& ph : recipe_.batch.phases)
    heads.insert(recipe::active_heads(recipe::mtp_weights_at(recipe_, ph.from)));
  double instructions = 0;
  for (const int h : heads) instructions += priced(1, h).graph_instructions;
  for (const TimedOp& op : priced(1, *heads.begin()).optimizer_ops) instructions += op.cost.instructions;
  return per * instructions;
}

std::string StepModel::stack_note() const {
  const recipe::StackProfile& p = stack_;
  if (device_.kind != hw::DeviceKind::trainium)
    return "stack: none applied (the stack profiles describe Trainium software); " + device_.name +
           " is priced at its roofline, graph launch " +
           format_number("%.2f ms", p.value(recipe::StackParam::graph_launch_s) * 1e3) + " (" +
           p.param(recipe::StackParam::graph_launch_s).source + ")";
  std::string s = "stack " + p.name + (p.builtin() ? "" : " (" + p.origin + ")") + ", " +
                  std::string(recipe::to_string(p.execution)) + " execution (" +
                  (p.execution == recipe::Execution::eager
                       ? "every op its own graph, one after another; the host dispatches ahead of the device, which "
                         "waits when it falls behind; one sync per step"
                       : "one graph per micro-batch and one for the optimiser; a stage's independent kernels overlap") +
                  "); kernel launch gap " + format_number("%.1f us", device_.value("kernel_launch_s") * 1e6) +
                  " (assumed); values:";
  for (recipe::StackParam q : recipe::all_stack_params())
    s += " " + std::string(recipe::to_string(q)) + " " + format_number("%.4g", p.value(q)) + ";";
  s += " band x" + format_number("%.3f", p.band_low.value) + " .. x" + format_number("%.3f", p.band_high.value);
  return s;
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
  n.push_back(std::string(device_.kind == hw::DeviceKind::cpu ? "memory" : "HBM") +
              " per rank (modelled, device_memory.h): " + memory_.describe());
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
  n.push_back(stack_note());
  n.push_back(std::string("optimiser: ") +
              (options_.shard_optimizer || zero() >= 1 ? "the optimiser sharded over the data-parallel ranks"
                                                       : "every rank runs the whole optimiser") +
              "; fused attention skips fully masked "
              "(causal or windowed) key blocks" +
              (device_.kind == hw::DeviceKind::trainium &&
                       recipe_.launch.attention_backward == recipe::AttentionBackward::unfused
                   ? " in the forward only"
                   : ", forward and backward"));
  return n;
}

}  // namespace nanotrn::predict
