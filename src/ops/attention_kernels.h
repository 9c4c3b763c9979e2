// Tiled (flash-style) self-attention host kernels, forward and backward, on raw contiguous fp32 pointers: causal or
// not, sliding window, ALiBi, document (segment) mask, logit softcap, grouped-query / multi-query attention and
// KV-cache decode (fewer queries than keys). Memory beyond inputs and outputs is O(T) per head: the T x T score
// matrix is never formed; scores are recomputed in the backward from q, k and the forward's logsumexp.
// Not here: tensors, autograd (ops/ wraps these into the attention op), dtypes other than fp32, dropout, parameter
// gradients for the ALiBi slopes, and the fp64 reference (src/ref/attention_ref.h).
#pragma once

#include <cstdint>

namespace nanotrn {

// Score modifiers, applied in this fixed order to s = scale * <q_i, k_j>:
//   1. softcap > 0:   s = softcap * tanh(s / softcap)
//   2. alibi_slopes:  s -= slope[h] * |pos_q - pos_k|     (pos_q - pos_k for every visible key when causal)
//   3. masks: key j is visible to query i iff (!causal || pos_k <= pos_q) && (window == 0 || pos_q - pos_k < window)
//             && (!segment_ids || seg[b, pos_q] == seg[b, pos_k])
// The window is one-sided (it bounds how far back a query looks); W = 1 keeps only the diagonal.
struct AttentionMods {
  bool causal = true;
  int64_t window = 0;                    // sliding window size W (0 = unlimited); W = 1 means only the diagonal
  const float* alibi_slopes = nullptr;   // [H], per query head
  const int32_t* segment_ids = nullptr;  // [B, Tk] document ids (document mask)
  float softcap = 0.0f;                  // 0 = off; must be >= 0
  float scale = 0.0f;                    // 0 -> 1/sqrt(D)
};

// Shapes (row-major, contiguous): q [B, Tq, H, D]; k, v [B, Tk, Hkv, D]; out [B, Tq, H, D]; lse [B, H, Tq].
// Grouped-query attention: H % Hkv == 0, query head h reads kv head h / (H / Hkv) (MQA: Hkv = 1).
// Queries are the LAST Tq positions: pos_q(i) = i + (Tk - Tq), pos_k(j) = j (Tq == Tk for training; Tq < Tk for a
// KV-cache decode). lse is the natural-log logsumexp of the modified, masked scores of each query row (-inf if no key
// is visible; then out = 0). lse may be nullptr when no backward will follow.
// Throws nanotrn::Error naming the bad value for a non-positive size, H % Hkv != 0, Tq > Tk, window < 0,
// softcap < 0, a non-finite scale, or a null pointer.
// Parallel over (b, h, query block) with OpenMP; results do not depend on the number of threads. Arithmetic is fp32
// (exp and tanh by polynomials good to ~1e-7); against an fp64 reference out and lse agree to ~1e-6 relative.
void attention_forward(float* out, float* lse, const float* q, const float* k, const float* v, int64_t B, int64_t Tq,
                       int64_t Tk, int64_t H, int64_t Hkv, int64_t D, const AttentionMods& mods);

// Gradients (overwritten, not accumulated): dq [B, Tq, H, D], dk, dv [B, Tk, Hkv, D]. out and lse are the forward's
// (same inputs, same mods). dlse [B, H, Tq], or nullptr, is a gradient arriving at lse itself (attention sinks,
// ops/attention.h): since d lse / d s_j = P_j it enters as delta_i - dlse_i. Uses delta_i = <dout_i, out_i>; no
// atomics: dk/dv are owned by (b, kv head, key block) work items, dq either by (b, kv head) (fused into the same pass)
// or by a second pass over (b, h, query block). Bitwise identical for any number of OpenMP threads.
void attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* q, const float* k,
                        const float* v, const float* out, const float* lse, int64_t B, int64_t Tq, int64_t Tk,
                        int64_t H, int64_t Hkv, int64_t D, const AttentionMods& mods, const float* dlse = nullptr);

// Scratch bytes the kernels allocate for these shapes when run on `threads` OpenMP threads: fixed per-thread tile
// buffers (a function of D only) plus, for the backward, one float per (b, h, query) for delta. Independent of Tk;
// linear in Tq. Exposed so tests and benchmarks can check and report the memory claim.
int64_t attention_workspace_bytes(bool backward, int64_t B, int64_t Tq, int64_t H, int64_t D, int threads);

}  // namespace nanotrn
