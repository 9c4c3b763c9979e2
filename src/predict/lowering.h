// Lowering: a recipe's training step on one data-parallel rank, as the list of kernel invocations a device runs,
// with shapes, FLOPs and HBM bytes. Timing is elsewhere (kernel_cost.h); composition in step_model.h.
//
//   LoweringOptions o;  o.rows = 16;  o.mtp_heads = 1;  o.dtype = DType::bf16;
//   std::vector<KernelOp> mb = lower_micro_batch(resolved_config, seq_len, o);  // forward + backward
//   std::vector<KernelOp> opt = lower_optimizer(recipe, resolved_config, o);    // Muon + AdamW (+ clip)
//   double g = gradient_bytes(resolved_config, DType::bf16);                    // the all-reduce buffer
//
// What one micro-batch is (per rank, t = rows x T tokens, d model width, H query heads and K KV heads of hd):
//   forward, per layer: resid lambdas; rmsnorm; q/k/v projections; rotary; q/k rmsnorm; scores = q k^T and
//   probs = softmax (per row and head over min(window, T) keys: causal skipping is not modelled, like the
//   12 H hd min(window, T) FLOP count); out = probs v; output projection; residual; rmsnorm; fc; activation;
//   projection; residual. Head: rmsnorm, then per active MTP head the lm_head matmul [t, d] x [d, V] and a softmax over
//   V (the fused cross-entropy's exp pass). Embedding gather. backward: every matmul [m,k] x [k,n] becomes dX = [m,n] x
//   [n,k] and dW = [k,m] x [m,n] (independent, one stage); attention recomputes scores and softmax (flash style) and
//   runs 4 matmuls; element-wise and norm backwards read about one more tensor than their forward.
// Optimiser: Muon for the block matrices (momentum, Newton-Schulz: per iteration A = X X^T, B = bA + cA^2,
//   X = aX + BX on the short side), AdamW for the rest, gradient clipping when enabled. With shard_optimizer the
//   Newton-Schulz work is split over the ranks (ZeRO style), else every rank does all of it.
// Kernels: "matmul" {m,k,n}, "softmax"/"rmsnorm" {rows, cols} have library tile kernels on the software NeuronCore;
// "" means no tile kernel (element-wise, norm backward, gather/scatter): priced by roofline from flops/bytes.
// Layout transposes between kernels are not lowered (assumed folded into DMA access patterns).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dtype/dtype.h"
#include "model/config.h"
#include "train/recipe.h"

namespace nanotrn::predict {

enum class Pass { forward, backward, optimizer };
std::string to_string(Pass p);

struct KernelOp {
  std::string name;   // "L3 attn q", "head 0 lm_head"
  std::string group;  // breakdown bucket: "attention matmul", "mlp matmul", "lm_head + CE", "norms", ...
  Pass pass = Pass::forward;
  std::string kernel;           // "matmul", "softmax", "rmsnorm", or "" (roofline only)
  std::vector<int64_t> shape;   // matmul {m, k, n}; softmax / rmsnorm {rows, cols}
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
};

std::vector<KernelOp> lower_micro_batch(const model::GptConfig& resolved, int64_t seq_len, const LoweringOptions& o);
std::vector<KernelOp> lower_optimizer(const train::Recipe& recipe, const model::GptConfig& resolved,
                                      const LoweringOptions& o);
// Parameters updated by Muon according to the lowering (tests compare with count_params().block_matrices +
// ve_gates).
int64_t muon_parameters(const model::GptConfig& resolved);
// Bytes of the gradient all-reduce: every parameter in `grad_dtype`.
double gradient_bytes(const model::GptConfig& resolved, DType grad_dtype);

}  // namespace nanotrn::predict
