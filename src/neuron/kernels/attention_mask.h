// Which keys a query sees, for the attention tile kernels (attention.h forward, attention_backward.h backward) and
// everything that prices or checks them: one rule, used by the kernels' block plans, their host checks and the FLOP
// counts.
//   causal          key <= query
//   none            every key (dense, bidirectional)
//   sliding_window  query - window < key <= query (window W >= 1; W = 1 is the diagonal only), as
//                   ops/attention_kernels.h's AttentionMods::window
// Positions are within one (batch, head): query t and key s both in [0, T).
//
//   AttentionVariant v{AttentionMask::sliding_window, 256};
//   v.visible(300, 100) == true;   v.visible(300, 44) == false;
//   TileCut c = v.tile(/*q0=*/256, /*k0=*/0, /*rows=*/128, /*cols=*/128);   // c.any, c.all: some / every pair visible
// Beside the mask, two modifiers the kernels apply (attention.h, attention_backward.h):
//   alibi  one slope per stacked head: the score gets -slope |query - key| added (after the scale, before the
//          softmax), as ops/attention_kernels.h's AttentionMods::alibi_slopes; standard_alibi_slopes gives
//          ALiBi's 2^(-8 (h + 1) / H)
//   group  query heads per kv head (GQA; group = heads: MQA): stacked query head h reads kv head h / group
//   softcap  c > 0: the scaled score x = scale q.k becomes c tanh(x / c) before ALiBi and the mask (Gemma 2's logit
//          softcap), as ops/attention_kernels.h's AttentionMods::softcap
//   bounds per query (document / packing masks, as FlexAttention's and NKI's bound_min / bound_max): query t sees
//          only keys bound_min[t] <= key <= bound_max[t], on top of the mask; one pair of [T] vectors for every
//          stacked head (one packed sequence), with bound_min[t] <= t <= bound_max[t] (a query sees itself).
//          document_bounds() makes them from document starts. The kernels plan their blocks from this host copy
//          and mask from the same values given as an HBM tensor [T, 2] (attention.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace nanotrn::neuron {

enum class AttentionMask : uint8_t { causal, none, sliding_window };

inline const char* attention_mask_name(AttentionMask m) {
  return m == AttentionMask::causal ? "causal" : m == AttentionMask::none ? "none" : "sliding_window";
}
// "causal", "none" (or "dense"), "sliding_window" (or "window"); throws nanotrn::Error naming the value otherwise.
AttentionMask parse_attention_mask(const std::string& name);

// Which pairs of a [rows queries x cols keys] tile are visible.
struct TileCut {
  bool any = false, all = false;
};

struct AttentionVariant {
  AttentionMask mask = AttentionMask::causal;
  int64_t window = 0;                 // sliding_window only: W >= 1
  std::vector<float> alibi_slopes{};  // empty: no ALiBi; else one slope (> 0, finite) per stacked query head
  int64_t group = 1;                  // query heads per kv head: the kernel's heads must be a multiple
  float softcap = 0;                  // 0: off; else c > 0, finite
  std::vector<int32_t> bound_min{}, bound_max{};  // empty: no bounds; else [T] each (see above)

  // The keys the mask alone leaves query `query`: [lo, hi] (dense: [0, INT64_MAX]). The one statement of the mask
  // per query; visible(), and tile() and pairs() with bounds, read it (without bounds those two use its closed forms).
  std::pair<int64_t, int64_t> mask_keys(int64_t query) const {
    if (mask == AttentionMask::none) return {0, std::numeric_limits<int64_t>::max()};
    return {mask == AttentionMask::causal ? 0 : std::max<int64_t>(0, query - window + 1), query};
  }
  bool visible(int64_t query, int64_t key) const {
    if (bounded() && (key < bound_min[static_cast<size_t>(query)] || key > bound_max[static_cast<size_t>(query)]))
      return false;
    const auto [lo, hi] = mask_keys(query);
    return lo <= key && key <= hi;
  }
  // Queries [q0, q0 + rows), keys [k0, k0 + cols). The mask alone: the corners decide, since visibility is a band in
  // (query - key); with bounds, row by row.
  TileCut tile(int64_t q0, int64_t k0, int64_t rows, int64_t cols) const {
    if (bounded()) return bounded_tile(q0, k0, rows, cols);
    if (mask == AttentionMask::none) return {true, true};
    const int64_t lo = q0 - (k0 + cols - 1), hi = (q0 + rows - 1) - k0;  // range of query - key over the tile
    const int64_t vis_lo = 0, vis_hi = mask == AttentionMask::causal ? INT64_MAX : window - 1;
    return {hi >= vis_lo && lo <= vis_hi, lo >= vis_lo && hi <= vis_hi};
  }
  // Whether every row's bounds hold all of keys [k0, k0 + cols) (true without bounds): where the kernels need no
  // bounds mask.
  bool bounds_cover(int64_t q0, int64_t k0, int64_t rows, int64_t cols) const;
  // Visible (query, key) pairs of one head of length T (for FLOP counts).
  double pairs(int64_t T) const {
    if (bounded()) return bounded_pairs(T);
    const auto t = static_cast<double>(T);
    if (mask == AttentionMask::none) return t * t;
    const int64_t w = mask == AttentionMask::causal ? T : std::min(window, T);
    const auto fw = static_cast<double>(w);
    return fw * t - fw * (fw - 1) / 2;  // sum over queries of min(query + 1, w)
  }
  bool bounded() const { return !bound_min.empty(); }
  bool alibi() const { return !alibi_slopes.empty(); }
  bool capped() const { return softcap > 0; }
  // The factor the kernels' exp applies to the score they hold: the raw q.k's `scale`, or under softcap c (they
  // hold tanh(scale q.k / c) there); ALiBi's bias tile is in the same units (slope / exp_scale).
  float exp_scale(float scale) const { return capped() ? softcap : scale; }
  // "causal", "sliding_window 256", "none + alibi", "causal, group 4", "causal + 3 documents", ...
  std::string describe() const;
  // Documents under the bounds: the queries that start one (bound_min[t] == t).
  int64_t documents() const;

 private:
  // The mask's key range of one query: [lo, hi].
  TileCut bounded_tile(int64_t q0, int64_t k0, int64_t rows, int64_t cols) const;
  double bounded_pairs(int64_t T) const;
};

// The bounds of documents packed into one sequence of length T, starting at `starts` (ascending, starts[0] = 0):
// query t sees the keys of its own document.
void set_document_bounds(AttentionVariant& v, int64_t T, const std::vector<int64_t>& starts);
// n documents over T: starts at i T / n - 29 (i >= 1, so their edges fall inside 128-key tiles), n <= T / 32.
std::vector<int64_t> spread_document_starts(int64_t T, int64_t n);

// ALiBi's slopes for `heads` heads: 2^(-8 (h + 1) / heads), h = 0 .. heads - 1 (Press et al., 2022).
std::vector<float> standard_alibi_slopes(int64_t heads);

// Throws nanotrn::Error for a sliding window < 1 (or a window given with another mask), a group < 1, ALiBi
// slopes that are not positive and finite, a softcap that is negative or not finite, or bounds that are not two
// vectors of one length with bound_min[t] <= t <= bound_max[t] (`seq` > 0: of length seq). `heads` (the stacked query
// heads, 0 = not known yet) must then be a multiple of the group and match the number of slopes.
void check_attention_variant(const AttentionVariant& v, int64_t heads = 0, int64_t seq = 0);

}  // namespace nanotrn::neuron
