// Dense fp64 reference for self-attention with the modifiers of ops/attention_kernels.h (softcap, ALiBi, causal,
// sliding window, document mask, GQA / MQA, Tq < Tk decode): forms the full Tq x Tk score matrix per (b, h), applies
// the modifiers in the documented order, softmax in double. For tests only.
// Not here: anything fast or memory-frugal (O(Tq * Tk) per head, single-threaded); fp32 arithmetic.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/attention_kernels.h"

namespace nanotrn::ref {

// out [B, Tq, H, D] from q [B, Tq, H, D], k, v [B, Tk, Hkv, D] (same layouts and conventions as attention_forward;
// mods.alibi_slopes and mods.segment_ids are read as given). When lse is non-null it receives [B, H, Tq] natural-log
// logsumexps (-inf for a row with no visible key, whose output is then 0).
std::vector<double> attention_forward_ref(const std::vector<double>& q, const std::vector<double>& k,
                                          const std::vector<double>& v, int64_t B, int64_t Tq, int64_t Tk, int64_t H,
                                          int64_t Hkv, int64_t D, const AttentionMods& mods,
                                          std::vector<double>* lse = nullptr);

struct AttentionGradsRef {
  std::vector<double> dq, dk, dv;
};

// Dense backward in double by the textbook chain rule (softmax Jacobian, then ALiBi (no gradient), then softcap
// (times 1 - tanh^2), then the scale). A localisation aid; finite differences of attention_forward_ref are the
// check of record.
AttentionGradsRef attention_backward_ref(const std::vector<double>& dout, const std::vector<double>& q,
                                         const std::vector<double>& k, const std::vector<double>& v, int64_t B,
                                         int64_t Tq, int64_t Tk, int64_t H, int64_t Hkv, int64_t D,
                                         const AttentionMods& mods);

}  // namespace nanotrn::ref
