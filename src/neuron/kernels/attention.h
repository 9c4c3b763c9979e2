// A fused (flash-style) attention tile kernel: for each of `heads` stacked (batch, head) pairs,
//   o[t, :] = sum_{s visible from t} softmax_s(scale * q[t, :] . k[s, :]) v[s, :]
// under a mask of attention_mask.h: causal (the default), none (dense) or a sliding window, optionally with a logit
// softcap (score c tanh(score / c)), ALiBi (score - slope_h |t - s|) and grouped kv heads (GQA / MQA: query head h
// reads kv head h / group), with online softmax over key blocks, so the T x T scores and probabilities live only in
// PSUM / SBUF (never HBM).
//
// Layout contract (HBM, any float dtype; cast to bf16 on the way into SBUF):
//   q_t       [d, heads * T]   q transposed: head h is columns [h T, (h + 1) T) (TensorE contracts over the
//                              partitions, so Q K^T wants d on partitions for both operands)
//   k_t       [d, kv * T]      k transposed, kv = heads / group kv heads
//   v         [kv * T, d]      kv head j is rows [j T, (j + 1) T)
//   o         [heads * T, d]   one row block per query head, the output dtype (bf16 or fp32)
// d <= 128, or a multiple of 128 up to 512 (split into 128-row contraction tiles); T a multiple of 128.
//
//   KernelBuilder b(spec_for("v3"));
//   View qt = b.hbm("q_t", 128, 2 * 1024, DType::bf16), kt = b.hbm("k_t", 128, 2 * 1024, DType::bf16);
//   View v = b.hbm("v", 2 * 1024, 128, DType::bf16), o = b.hbm("o", 2 * 1024, 128, DType::bf16);
//   attention_kernel(b, qt, kt, v, o, /*heads=*/2, Schedule::pipelined);   // scale 0 -> 1 / sqrt(d)
//
// Per kv head, K^T [d, T] and V (T/128 tiles [128, d]) stay resident in SBUF for its group of query heads (loaded
// once); per 128-query tile (Q^T tile [d, 128]
// resident) the keys from the first 128-key chunk the mask leaves any of to the diagonal (dense: to T) are visited
// in blocks of up to 512, so fully masked chunks are skipped. Per key block of w columns:
//   TensorE  S[128, w] = Q_tile^T K_block            (PSUM fp32, one bank; d/128 accumulating matmuls)
//   ScalarE  softcap c: S = tanh(scale / c S) in place; from here on the exp's scale is c instead of scale (and
//            ALiBi's tile is in those units); pipelined, issued after the exponentials of an earlier block, with
//            the statistics a step behind the scores
//   VectorE  ALiBi: S += the head's bias tile, columns [T - q0 + k0, + w): one fp32 [128, 2T] tile (masked: T + 128
//            columns) holding -slope / scale |T + p - c|, built per head by GpSimd iota and a VectorE multiply
//   VectorE  each 128-key chunk the mask cuts: S chunk += a [128, 128] 0 / -1e30 tile built once by GpSimd
//            affine_select (the diagonal: kept where query >= key; a window's lower edge: one tile per distinct
//            query - key offset of the chunks it cuts, at most two). A row whose first block is all masked has its
//            garbage sum rescaled by exactly 0 at its first visible block (alpha = exp(-huge) = 0). Document bounds:
//            a query tile's keys run from the first to the last chunk any of its rows may see, and each chunk the
//            bounds cut gets the bounds mask of attention_bounds.h (the rows' bounds loaded with the query tile).
//   VectorE  mx = -max_f S (raw), running mr = min(mr, mx)      (fp32 [128, 1])
//   ScalarE  b = scale * mr; alpha = exp(b - b_previous)        (the rescale of the running sum and accumulator)
//   ScalarE  P = exp(scale * S + b) (bf16 SBUF), rs = sum_f P (fp32, fused free-axis reduction)
//   ScalarE  l = l * alpha + rs                                   (scale and bias vectors; first block: l = rs)
//   TensorE  P^T per 128-key chunk (transpose into one PSUM bank, bf16); copy to SBUF (pipelined: ScalarE)
//   TensorE  O[128, d] = sum_chunks (P^T chunk)^T V_chunk          (PSUM fp32)
//   VectorE  acc = acc * alpha + O (fp32 SBUF; the first block copies, a single-block query tile skips acc)
// and per query tile: VectorE 1 / l, o = acc / l rounded to o's dtype, stored.
//
// Schedules:
//   naive      one buffer set, every DMA on queue 0, blocks one after the other: each step waits for the previous.
//   pipelined  the blocks of all (head, query tile) pairs form one software-pipelined sequence: step s issues the
//              scores and statistics of block s + 3, the exponentials of s + 1, the transposes of s, P V of s - 1
//              and the accumulator of s - 2, so each engine's in-order queue holds work whose inputs are already
//              done; TensorE computes later scores while ScalarE exponentiates. Rotating buffers (8 block sets, 4
//              score banks, 12 query-tile states), K/V double-buffered per kv head (a kv head's loads issued right
//              after the last P V that reads the set they overwrite, two kv heads back), query tiles loaded two tiles
//              ahead, the P^T copy on ScalarE; loads on queues 0-11, stores on 12-15.
// Throws nanotrn::Error "[shape]" naming `loc` for non-HBM operands, mismatched shapes, T not a multiple of 128 or
// an unsupported d; "[sbuf-capacity]" when K/V of a head do not fit SBUF.
// Not here: the backward kernel (attention_backward.h), dropout, and the log-sum-exp output
// the backward needs.
#pragma once

#include <source_location>

#include "neuron/isa/builder.h"
#include "neuron/kernels/attention_mask.h"
#include "neuron/kernels/schedule.h"

namespace nanotrn::neuron {

// scale <= 0 means 1 / sqrt(d). The first form is causal.
void attention_kernel(KernelBuilder& b, const View& q_t, const View& k_t, const View& v, const View& o, int64_t heads,
                      Schedule schedule, float scale = 0.0f,
                      std::source_location loc = std::source_location::current());
void attention_kernel(KernelBuilder& b, const View& q_t, const View& k_t, const View& v, const View& o, int64_t heads,
                      const AttentionVariant& variant, Schedule schedule, float scale = 0.0f,
                      std::source_location loc = std::source_location::current());
// With document bounds (variant.bound_min / bound_max): `bounds` an HBM tensor [T, 2] of any float dtype holding
// them as exact integers (column 0 bound_min, column 1 bound_max), the same values as the variant's, from which the
// kernel plans which blocks to skip; `bounds` is ignored without them.
void attention_kernel(KernelBuilder& b, const View& q_t, const View& k_t, const View& v, const View& o,
                      const View& bounds, int64_t heads, const AttentionVariant& variant, Schedule schedule,
                      float scale = 0.0f, std::source_location loc = std::source_location::current());

}  // namespace nanotrn::neuron
