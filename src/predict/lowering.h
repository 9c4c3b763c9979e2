// Lowering: a recipe's training step on one data-parallel rank, as the list of kernel invocations a device runs,
// with shapes, FLOPs and HBM bytes. Timing is elsewhere (kernel_cost.h); composition in step_model.h.
//
//   LoweringOptions o;  o.rows = 16;  o.mtp_heads = 1;  o.dtype = DType::bf16;
//   std::vector<KernelOp> mb = lower_micro_batch(resolved_config, seq_len, o);  // forward + backward
//   std::vector<KernelOp> opt = lower_optimizer(recipe, resolved_config, o);    // Muon + AdamW (+ clip)
//   double g = gradient_bytes(resolved_config, DType::bf16);                    // the all-reduce buffer
//
// What one micro-batch is (per rank, t = rows x T tokens, d model width, H query heads and K KV heads of hd):
//   forward, per layer: resid lambdas; rmsnorm; q/k/v projections; rotary; q/k rmsnorm; attention; output
//   projection; residual; rmsnorm; fc; activation; projection; residual (SwiGLU: gate and up, SiLU(gate) * up,
//   projection). Head: rmsnorm, then per active MTP head the
//   lm_head matmul [t, d] x [d, V] and a softmax over V (the fused cross-entropy's exp pass). Embedding gather.
//   Attention: one fused "attention" kernel per (row, head), {1, T, hd} on full causal layers and {1, T, hd, window}
//   on layers with a sliding window shorter than T (the flash-style tile kernel, neuron/kernels/attention.h): HBM
//   traffic q, k, v, o and the fp32 log-sum-exp only, FLOPs those of the visible pairs, 4 hd x pairs
//   (neuron::AttentionVariant::pairs: T (T + 1) / 2 causal).
//   backward: every matmul [m,k] x [k,n] becomes dX = [m,n] x [n,k] and dW = [k,m] x [m,n] (independent, one stage).
//   Attention backward (fused_attention_backward): one fused "attention_bwd" op per (row, head), the forward's shape,
//   reading q, k, v, o, dO, lse and writing dq, dk, dv, 2.5x the forward FLOPs (recomputed scores, dV, dP, dQ, dK):
//   the flash backward tile kernel on Trainium (neuron/kernels/attention_backward.h), FlashAttention-2 by roofline
//   elsewhere. Unfused, the scores and softmax are recomputed through HBM and 4 matmuls run (T x S probabilities and
//   their gradients in HBM, S = min(window, T)). Element-wise and norm backwards read about one more tensor than
//   their forward.
// Optimiser: Muon for the block matrices (momentum, Newton-Schulz: per iteration A = X X^T, B = bA + cA^2,
//   X = aX + BX on the short side), AdamW for the rest, gradient clipping when enabled. With shard_optimizer the
//   Newton-Schulz work is split over the ranks (ZeRO style), else every rank does all of it.
// Tensor parallelism (o.tp > 1, Megatron-style): q/k/v and fc column-parallel, attn proj and mlp proj row-parallel,
//   embedding and lm_head vocab-parallel. Per layer the forward all-reduces the attn proj and mlp proj outputs, the
//   backward the q/k/v and fc input gradients; the embedding output, the lm_head input gradient and the CE's row
//   max and sum are all-reduced too. With sequence_parallel each all-reduce is a reduce-scatter and the next split
//   region's input an all-gather, and the norms and residuals work on 1/tp of the tokens. Collectives are ops with
//   kernel "all-reduce" / "reduce-scatter" / "all-gather", group "tp collective", bytes = the full tensor per rank,
//   each in its own stage (step_model.h prices them).
// Mixture of experts (model.experts): per layer a router matmul [t, d] x [d, experts] and its top-k, the experts'
//   MLPs as batched matmuls over experts / ep local experts of t k ep / experts tokens each (balanced: assumed),
//   and with ep > 1 an all-to-all ("ep collective") dispatching the token copies and one combining the outputs, each
//   mirrored in the backward.
// Kernels: each op carries what it runs (KernelOp::work): a tile kernel of the registry with its typed shape
// ("matmul" MatmulShape, "softmax" RowsShape, "rmsnorm" RmsnormShape, "attention" / "attention_bwd" AttentionShape of
// one (row, head) with the layer's causal or sliding-window mask), a collective (its kind and group), or roofline
// work (element-wise, norm backward, gather/scatter) priced from flops and bytes. Each op also has its OpClass, which
// the software stack's efficiencies act on (stack_profile.h).
// Layout transposes between kernels are not lowered (assumed folded into DMA access patterns).
#pragma once

#include <any>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dtype/dtype.h"
#include "hw/topology.h"
#include "model/config.h"
#include "neuron/registry/kernel_registry.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {

enum class Pass { forward, backward, optimizer };
std::string to_string(Pass p);

// Which of a software stack's efficiencies applies to an op (stack_profile.h): the tile-kernel matmuls, the attention
// core (the fused kernels, or the unfused chain that stands for them), the collectives, and everything else
// (element-wise, norms, softmax over V, gathers: the vector engines' and DMA's work).
enum class OpClass { matmul, attention, vector, collective };
inline constexpr int kOpClassCount = 4;
std::string_view to_string(OpClass c);

// A library tile kernel of the registry (neuron/registry/) with its typed shape (neuron/registry/shapes.h): what the
// timing side runs on the software NeuronCore.
struct TileCall {
  const neuron::KernelEntry* kernel = nullptr;
  std::any shape;
};
// The group a collective inside a micro-batch runs over.
enum class CollectiveGroup { tensor_parallel, expert_parallel };
struct CollectiveCall {
  hw::Collective kind = hw::Collective::all_reduce;
  CollectiveGroup group = CollectiveGroup::tensor_parallel;
};
// No tile kernel (element-wise, norm backward, gather/scatter): priced by roofline from flops and bytes.
struct RooflineWork {};
using OpWork = std::variant<RooflineWork, TileCall, CollectiveCall>;

struct KernelOp {
  std::string name;   // "L3 attn q", "head 0 lm_head"
  std::string group;  // breakdown bucket: "attention matmul", "mlp matmul", "lm_head + CE", "norms", ...
  Pass pass = Pass::forward;
  OpClass op_class = OpClass::vector;
  OpWork work;
  int64_t count = 1;            // identical invocations (batched over rows x heads)
  double flops = 0, bytes = 0;  // per invocation; bytes = HBM traffic (a collective's: the tensor per rank)
  int stage = 0;                // ops sharing a stage are independent and may overlap

  const TileCall* tile() const { return std::get_if<TileCall>(&work); }
  const CollectiveCall* collective() const { return std::get_if<CollectiveCall>(&work); }
  // The tile kernel's registry name, the collective's name ("all-reduce"), or "" (roofline).
  std::string kernel_name() const;
  // The tile kernel's shape in words (its definition's describe()), or "".
  std::string shape_text() const;
};

struct LoweringOptions {
  int64_t rows = 1;           // rows of the micro-batch on this rank
  int mtp_heads = 1;          // active cross-entropy heads (MTP)
  DType dtype = DType::bf16;  // matmul inputs and activations in HBM
  int64_t ranks = 1;          // data-parallel ranks (for shard_optimizer)
  bool shard_optimizer = false;
  // The attention backward as one fused "attention_bwd" op (the flash tile kernel on Trainium, FlashAttention-2 by
  // roofline elsewhere); false: the unfused chain (recompute, softmax, 4 matmuls through HBM) as a compiler without
  // a flash kernel lowers it (recipe launch.attention_backward = unfused, Trainium only).
  bool fused_attention_backward = true;
  // Tensor parallelism (Megatron): each of `tp` ranks owns heads / tp query heads, its share of the KV heads (or one
  // replicated KV head when there are fewer KV heads than ranks), mlp / tp MLP columns and vocab / tp of the
  // embedding and lm_head; see tp_shard.
  int64_t tp = 1;
  bool sequence_parallel = false;
  // Pipeline parallelism: the micro-batch of one stage holds layers [layer_begin, layer_end) (-1 = to the last),
  // the embedding only on the first stage and the head only on the last; the optimiser of a stage updates 1 / pp of
  // the parameters (embedding and head spread evenly: assumed).
  int64_t layer_begin = 0, layer_end = -1;
  bool embedding = true, head = true;
  int64_t pp = 1;
  // Expert parallelism (a mixture of experts): each rank holds experts / ep of them; tokens reach them by all-to-all.
  int64_t ep = 1;
};

// What one tensor-parallel rank owns; throws naming the dimension tp does not divide.
struct TpShard {
  int64_t heads = 0, kv_heads = 0, mlp = 0, vocab = 0;
};
TpShard tp_shard(const model::GptConfig& resolved, int64_t tp);
// Experts one expert-parallel rank holds: experts / ep (0 for a dense model); throws naming what ep does not divide.
int64_t expert_shard(const model::GptConfig& resolved, int64_t ep);
// Parameters one rank holds (block matrices, embeddings and lm_head split over tp; experts over ep; scalars
// replicated); its block matrices alone; and its experts' share (reduced over the replicas that hold the same
// experts, not the whole data-parallel group).
int64_t rank_parameters(const model::GptConfig& resolved, int64_t tp, int64_t ep = 1);
int64_t rank_block_parameters(const model::GptConfig& resolved, int64_t tp, int64_t ep = 1);
int64_t rank_expert_parameters(const model::GptConfig& resolved, int64_t tp, int64_t ep = 1);

// One matmul C[m, n] = A[m, k] B[k, n] as the lowering writes it: the library tile kernel, 2mkn FLOPs, inputs read in
// `dtype` and the fp32 output written once (what the QA sweep and the validation tests price on their own).
KernelOp matmul_op(const std::string& name, int64_t m, int64_t k, int64_t n, DType dtype);

std::vector<KernelOp> lower_micro_batch(const model::GptConfig& resolved, int64_t seq_len, const LoweringOptions& o);
// The optimiser step: Muon's Newton-Schulz and element-wise pass on the block matrices and AdamW on the rest, or
// AdamW on everything under optim.kind adamw; the gradient clip when optim.grad_clip > 0.
std::vector<KernelOp> lower_optimizer(const recipe::Recipe& recipe, const model::GptConfig& resolved,
                                      const LoweringOptions& o);
// Parameters updated by Muon according to the lowering (tests compare with count_params().block_matrices +
// ve_gates).
int64_t muon_parameters(const model::GptConfig& resolved);
// Bytes of the data-parallel gradient all-reduce: every parameter one tensor-parallel rank holds, in `grad_dtype`.
double gradient_bytes(const model::GptConfig& resolved, DType grad_dtype, int64_t tp = 1, int64_t ep = 1);

}  // namespace nanotrn::predict
