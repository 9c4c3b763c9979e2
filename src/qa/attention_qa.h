// `nanotrn qa attention`: the public attention-variant grid (SemiAnalysis's FlexAttention run on Trn3, from
// attention-gym) on the software NeuronCore, forward and backward. The 96 configurations are
//   batch 1, 4 x sequence 512, 2048, 8192 x heads (query / kv) 8 / 8, 8 / 2 x head dim 64, 128
//   x variant: dense (no mask), causal, ALiBi (dense, score - slope_h |q - k|, the standard slopes over the 8 query
//     heads), sliding window (causal, `window` keys, default 1024 as attention-gym's examples)
// each through the attention tile kernels (neuron/kernels/attention.h, attention_backward.h) with the kv heads shared
// in the kernel (GQA: group 4).
//   Timing, for the full shape: the kernels' programs on the timing model of one NeuronCore (modelled, not measured):
//   time (above full_timing_max_seq, where a b4 program holds millions of instructions, the full shape's time is
//   t(2) + (n - 2) (t(3) - t(2)) from programs of 2 and 3 of its n kv groups: the kernels run the groups one after
//   the other through one pipeline, so each adds its steady-state time), cycles at the TensorE clock, MFU against the
//   core's bf16 TensorE peak with attention-gym's FLOP convention (forward B Hq (4 d + 2) per visible (query, key)
//   pair; backward 2.5 x forward), and memory-bandwidth use from attention-gym's byte model (forward: q, k, v read and
//   o written once; backward: q, k, v, o, dO and the lse read, dq, dk, dv written; bf16, lse fp32) against the core's
//   HBM share. The columns of the NKI Library's kernel QoR. Numerics, for one full slice (one kv head with its query
//   heads: every query and key block): the functional executor against fp64 (registry/attention_entry.cpp,
//   registry/attention_backward_check.h) within the derived per-element bounds, and attention-gym's bf16 tolerance
//   (atol 1e-1, rtol 1e-2: met whenever max |error| <= 1e-1). The slice does not depend on the batch, so batch 1 and 4
//   share it (seeded by the slice's shape). Slices above numerics_max_seq are not checked (the fp64 host reference is
//   O(T^2 d) per head in scalar loops): the row says so.
//
//   AttentionQaOptions o;  o.core = "v4";
//   std::vector<AttentionQaRow> rows = run_attention_qa(o, [](const std::string& line) { std::cerr << line; });
//   std::cout << attention_qa_table(rows);
// Not here: document masks, softcap (not in the tile kernels), the compile-time budget that failed 7 of the public
// run's configurations (the software NeuronCore has no compiler).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "neuron/kernels/attention_mask.h"

namespace nanotrn::qa {

enum class AttentionQaVariant : uint8_t { dense, causal, alibi, sliding_window };
const char* attention_qa_variant_name(AttentionQaVariant v);

struct AttentionQaConfig {
  int64_t batch = 1, seq = 512, q_heads = 8, kv_heads = 8, head_dim = 64;
  AttentionQaVariant variant = AttentionQaVariant::dense;
  std::string name() const;  // "b4 T8192 h8/2 d128 alibi"
};

// The 96 configurations, batch outermost, variant innermost.
std::vector<AttentionQaConfig> attention_qa_grid();

struct AttentionQaOptions {
  std::string core = "v3";             // v3 (Trn2) | v4 (Trn3)
  int64_t window = 1024;               // the sliding window's keys
  int64_t numerics_max_seq = 2048;     // slices up to this sequence length are checked against fp64
  int64_t full_timing_max_seq = 2048;  // longer: the full shape's time from samples of 2 and 3 kv groups
  std::vector<int64_t> seqs;           // empty: the grid's 512, 2048, 8192
  uint64_t seed = 1;
};

struct AttentionQaTiming {
  double seconds = 0, cycles = 0, flops = 0, bytes = 0, mfu = 0, bandwidth = 0;  // mfu, bandwidth: fractions
  bool extrapolated = false;  // from samples of 2 and 3 kv groups (above full_timing_max_seq)
};
struct AttentionQaNumerics {
  bool checked = false, passed = false;
  double max_error = 0, largest_bound = 0;
  size_t failures = 0;
};

struct AttentionQaRow {
  AttentionQaConfig config;
  AttentionQaTiming forward, backward;
  AttentionQaNumerics forward_check, backward_check;
  bool shared_slice = false;  // numerics reused from the same slice of a smaller batch
  std::string error;          // non-empty: the kernels refused the shape (the message)
  bool passed() const;        // built, timed, and checked ones within their bounds
};

// Progress lines (one per configuration) go to `say` when it is set.
std::vector<AttentionQaRow> run_attention_qa(const AttentionQaOptions& options,
                                             const std::function<void(const std::string&)>& say = {});
std::string attention_qa_table(const std::vector<AttentionQaRow>& rows);
nlohmann::json attention_qa_json(const std::vector<AttentionQaRow>& rows, const AttentionQaOptions& options);

}  // namespace nanotrn::qa
