// The flash-attention backward tile kernel: for each of `heads` stacked (batch, head) pairs, from the forward's
// inputs, its output o, its natural-log log-sum-exp and the output gradient dO, the gradients
//   P = exp(scale q k^T - lse)   (recomputed; masked pairs 0)      D = rowsum(dO o)
//   dV = P^T dO      dP = dO V^T      dS = P (dP - D)      dQ = scale dS K      dK = scale dS^T Q
// with the T x T scores, probabilities and their gradients only in PSUM / SBUF, never in HBM (FlashAttention-2's
// backward; the key-major loop of NKI Library's attention_bwd).
//
// Layout contract (HBM, any float dtype; cast to bf16 on the way into SBUF):
//   q, o, dout, dq                 [heads * T, d]   query head h is rows [h T, (h + 1) T)
//   k, v, dk, dv                   [kv * T, d]      kv = heads / variant.group kv heads (GQA / MQA: query head h
//                                                   reads kv head h / group; its dK, dV sum over the group)
//   lse                            [heads * T, 1]   fp32 (or any float): log sum_s exp(scale q_t . k_s) over visible s
// d <= 128, or 256 (head_dim on the partition axis of Q^T, K^T, V^T, dO^T, split into 128-row contraction tiles
// for S and dP; 384 and 512 would need more PSUM banks for the gradient accumulators than remain); T a multiple of 128.
// Gradients are written in dq / dk / dv's dtype.
//
//   KernelBuilder b(spec_for("v3"));
//   AttentionBackwardIo io{.q = q, .k = k, .v = v, .o = o, .dout = dout, .lse = lse, .dq = dq, .dk = dk, .dv = dv};
//   attention_backward_kernel(b, io, /*heads=*/8, {AttentionMask::causal}, Schedule::pipelined);
//
// Per head (resident in SBUF): Q and dO as [128, d] query tiles and as Q^T, dO^T [d, T] (TensorE transposes), o
// only to form D (VectorE multiply and free-axis sum), -lse, and the fp32 dQ accumulator. Then per key tile j (128
// keys; K_j, V_j loaded, K_j^T, V_j^T transposed) and per query tile i that sees any of its keys (the mask's band,
// attention_mask.h; pairs outside it are skipped whole), one item:
//   TensorE  S = Q_i K_j^T, dP = dO_i V_j^T            [128 q, 128 k] fp32 PSUM (K = d)
//   ScalarE  P = exp(scale S - lse_i) (bf16 SBUF; the bias vector -lse)
//   GpSimd   on a tile the mask cuts: P = 0 where not visible (affine_select per edge)
//   VectorE  dS = (dP - D_i) P (bf16; pipelined: dP - D_i on ScalarE, an identity activation with bias -D_i)
//   TensorE  dV_j += P^T dO_i, dK_j += dS^T Q_i          [128 k, d] fp32 PSUM, accumulated over the tile's queries
//   TensorE  dS^T (transpose, bf16 PSUM), copied to SBUF (naive: VectorE; pipelined: ScalarE)
//   TensorE  dQ_i part = dS K_j; VectorE dQacc_i += part
// After a key tile's last item: dV_j and scale dK_j leave PSUM and are stored; after a head's last item: scale dQacc,
// stored.
//
// Schedules:
//   naive      one buffer set, every DMA on queue 0, items one after the other.
//   pipelined  the items form one software-pipelined sequence: step s issues the scores of item s + 2, the
//              probabilities and dS of s + 1, the dK / dV / transpose of s and the dQ update of s - 1; rotating
//              buffers (3 item sets, 5 key-tile sets, 2 head sets when two heads' state fits SBUF and every head has
//              at least 4 items, else the pipeline drains between heads); head loads on DMA queues 0-7, key loads
//              8-9, dK / dV stores 10-11, dQ stores 12-15.
// Throws nanotrn::Error "[shape]" naming `loc` for non-HBM operands, mismatched shapes, T not a multiple of 128, an
// unsupported d, an invalid mask; "[sbuf-capacity]" when one head's state does not fit SBUF.
// Modifiers (attention_mask.h): ALiBi adds the head's bias tile (attention_alibi.h) to S before the exp (VectorE,
// reading PSUM). GQA: the group's query heads run one after the other; the first stores its dK_j, dV_j (fp32) to
// internal partial tensors in HBM, each later one loads the sum so far with K_j (or, when the previous head's store
// is not yet issued, right before it adds) and adds its own, the last stores the total in dk / dv's dtype: 2 (g - 1)
// fp32 [T, d] round trips per kv head beside the operands.
// Document bounds: items are the (query tile, key tile) pairs any row's bounds and the mask leave visible, and each
// tile the bounds cut gets attention_bounds.h's mask added to S before the exp (the rows' bounds resident per head).
// Softcap c: S = tanh(scale / c S) in place (ScalarE) before ALiBi's bias, P = exp(c S - lse), and dS = (dP - D) P
// (1 - S^2) (the square on ScalarE, 1 - x and the product on VectorE), dQ and dK still scaled by `scale`.
// Not here: the forward (attention.h; it does not write lse yet, so callers pass it), dropout.
#pragma once

#include <source_location>

#include "neuron/isa/builder.h"
#include "neuron/kernels/attention_mask.h"
#include "neuron/kernels/schedule.h"

namespace nanotrn::neuron {

// bounds: document bounds only (variant.bound_min / bound_max), an HBM tensor [T, 2] holding them as exact
// integers (column 0 bound_min, column 1 bound_max), as the forward's (attention.h); ignored without them.
struct AttentionBackwardIo {
  View q, k, v, o, dout, lse, dq, dk, dv, bounds{};
};

// scale <= 0 means 1 / sqrt(d).
void attention_backward_kernel(KernelBuilder& b, const AttentionBackwardIo& io, int64_t heads,
                               const AttentionVariant& variant, Schedule schedule, float scale = 0.0f,
                               std::source_location loc = std::source_location::current());

}  // namespace nanotrn::neuron
