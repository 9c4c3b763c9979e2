// Multi-head self-attention with autograd (flash-style host kernels: O(T) extra memory, never a T x T matrix).
//
//   AttentionOptions ao;                           // causal by default
//   ao.window = 256;                               // sliding window
//   ao.segment_ids = doc_ids;                      // i32 [B, T]: document mask
//   Tensor y = ops::attention(ctx, q, k, v, ao);   // q [B, T, H, D], k/v [B, T, Hkv, D] -> [B, T, H, D]
//
// Grouped-query attention when Hkv < H (H % Hkv == 0; query head h reads kv head h / (H / Hkv)). The score
// modifiers (softcap, ALiBi, masks) and their order are documented in ops/attention_kernels.h. q may have fewer
// positions than k/v (a KV-cache decode): queries are then the last positions.
#pragma once

#include <vector>

#include "engine/engine.h"

namespace nanotrn::ops {

struct AttentionOptions {
  bool causal = true;
  int64_t window = 0;               // 0 = unlimited
  std::vector<float> alibi_slopes;  // empty, or one slope per query head
  Tensor segment_ids;               // undefined, or i32 [B, Tk]
  float softcap = 0.0f;             // 0 = off
  float scale = 0.0f;               // 0 = 1/sqrt(D)
  // Undefined, or f32 [H] (may require grad): attention sinks (gpt-oss), a learned logit per query head that joins
  // every softmax's denominator with a zero value vector. Computed as out x sigmoid(lse - sink): the kernels' output
  // rescaled, and in the backward a gradient at lse (attention_backward's dlse) and at the sinks.
  Tensor sinks;
};

Tensor attention(Ctx& ctx, const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options = {});

// The ALiBi slopes of Press et al. for H heads: 2^(-8 (h + 1) / H), h = 0..H-1 (H a power of two; otherwise the
// paper's interleaving of the next power of two).
std::vector<float> alibi_slopes(int64_t H);

}  // namespace nanotrn::ops
