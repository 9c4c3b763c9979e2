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
// Kernels: "matmul" {m,k,n}, "softmax"/"rmsnorm" {rows, cols}, "attention" and "attention_bwd" {heads, T, hd} or
// {heads, T, hd, window} have library tile kernels on the software NeuronCore;
// "" means no tile kernel (element-wise, norm backward, gather/scatter): priced by roofline from flops/bytes.
// Layout transposes between kernels are not lowered (assumed folded into DMA access patterns).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dtype/dtype.h"
#include "model/config.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {

enum class Pass { forward, backward, optimizer };
std::string to_string(Pass p);

struct KernelOp {
  std::string name;   // "L3 attn q", "head 0 lm_head"
  std::string group;  // breakdown bucket: "attention matmul", "mlp matmul", "lm_head + CE", "norms", ...
  Pass pass = Pass::forward;
  std::string kernel;           // "matmul", "softmax", "rmsnorm", "attention", "attention_bwd", or "" (roofline only)
  std::vector<int64_t> shape;   // matmul {m, k, n}; softmax / rmsnorm {rows, cols}; attention {heads, T, hd}
  int64_t count = 1;            // identical invocations (batched over rows x heads)
  double flops = 0, bytes = 0;  // per invocation; bytes = HBM traffic
  int stage = 0;                // ops sharing a stage are independent and may overlap
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

std::vector<KernelOp> lower_micro_batch(const model::GptConfig& resolved, int64_t seq_len, const LoweringOptions& o);
std::vector<KernelOp> lower_optimizer(const recipe::Recipe& recipe, const model::GptConfig& resolved,
                                      const LoweringOptions& o);
// Parameters updated by Muon according to the lowering (tests compare with count_params().block_matrices +
// ve_gates).
int64_t muon_parameters(const model::GptConfig& resolved);
// Bytes of the data-parallel gradient all-reduce: every parameter one tensor-parallel rank holds, in `grad_dtype`.
double gradient_bytes(const model::GptConfig& resolved, DType grad_dtype, int64_t tp = 1, int64_t ep = 1);

}  // namespace nanotrn::predict
