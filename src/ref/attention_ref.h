// Dense fp64 reference for self-attention with the modifiers of ops/attention_kernels.h, as an AttentionSpec (softcap,
// ALiBi, causal, sliding window, document mask, GQA / MQA, Tq < Tk decode): forms the full Tq x Tk score matrix per (b,
// h), applies the modifiers in the documented order, softmax in double. For tests only. Not here: anything fast or
// memory-frugal (O(Tq * Tk) per head, single-threaded); fp32 arithmetic.
#pragma once

#include <cstdint>
#include <vector>

namespace nanotrn::ref {

// The modifiers, as ops/attention_kernels.h's AttentionMods (same meanings and order), held by value so that this
// module depends on nothing above base. A raw score x = scale q.k becomes softcap tanh(x / softcap) (softcap > 0),
// then x - slope_h |pos_q - pos_k| (ALiBi); masked out unless visible: causal (pos_k <= pos_q), inside the window
// (pos_q - pos_k < window, window > 0), in the same document (equal segment ids) and inside the query's bounds
// (bound_min[i] <= pos_k <= bound_max[i] for query row i: the tile kernels' document bounds, attention_mask.h).
// Attention sinks (gpt-oss): softmax over the visible scores and the head's sink logit, whose value vector is 0.
struct AttentionSpec {
  bool causal = true;
  int64_t window = 0;                             // 0: unlimited
  std::vector<double> alibi_slopes{};             // empty: no ALiBi; else [H]
  std::vector<int32_t> segment_ids{};             // empty: no document mask; else [B, Tk]
  std::vector<int32_t> bound_min{}, bound_max{};  // empty: none; else [Tq] each, for every batch row and head
  double softcap = 0;                             // 0: off
  double scale = 0;                               // 0: 1 / sqrt(D)
  std::vector<double> sinks{};  // empty: none; else [H]: a logit per query head in every softmax's denominator
};

// out [B, Tq, H, D] from q [B, Tq, H, D], k, v [B, Tk, Hkv, D] (same layouts and conventions as attention_forward;
// slopes [H], segment ids [B, Tk]). When lse is non-null it receives [B, H, Tq] natural-log
// logsumexps (-inf for a row with no visible key, whose output is then 0).
std::vector<double> attention_forward_ref(const std::vector<double>& q, const std::vector<double>& k,
                                          const std::vector<double>& v, int64_t B, int64_t Tq, int64_t Tk, int64_t H,
                                          int64_t Hkv, int64_t D, const AttentionSpec& mods,
                                          std::vector<double>* lse = nullptr);

struct AttentionGradsRef {
  std::vector<double> dq, dk, dv;
};

// Dense backward in double by the textbook chain rule (no sinks: finite differences of the forward check those)
// (softmax Jacobian, then ALiBi (no gradient), then softcap (times 1 - tanh^2), then the scale). A localisation aid;
// finite differences of attention_forward_ref are the check of record.
AttentionGradsRef attention_backward_ref(const std::vector<double>& dout, const std::vector<double>& q,
                                         const std::vector<double>& k, const std::vector<double>& v, int64_t B,
                                         int64_t Tq, int64_t Tk, int64_t H, int64_t Hkv, int64_t D,
                                         const AttentionSpec& mods);

}  // namespace nanotrn::ref
