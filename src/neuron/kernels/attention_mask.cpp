// Parsing and checking of the attention tile kernels' masks (see attention_mask.h).
#include "neuron/kernels/attention_mask.h"

#include <cmath>
#include <cstdio>

#include "base/error.h"

namespace nanotrn::neuron {

AttentionMask parse_attention_mask(const std::string& name) {
  if (name == "causal") return AttentionMask::causal;
  if (name == "none" || name == "dense") return AttentionMask::none;
  if (name == "sliding_window" || name == "window") return AttentionMask::sliding_window;
  throw Error("unknown attention mask '" + name + "' (causal, none, sliding_window)");
}

std::string AttentionVariant::describe() const {
  std::string s = mask == AttentionMask::sliding_window ? "sliding_window " + std::to_string(window)
                                                        : std::string(attention_mask_name(mask));
  if (alibi()) s += " + alibi";
  if (capped()) {
    char cap[32];
    std::snprintf(cap, sizeof cap, " + softcap %g", static_cast<double>(softcap));
    s += cap;
  }
  if (bounded()) s += " + " + std::to_string(documents()) + " documents";
  if (group > 1) s += ", group " + std::to_string(group);
  return s;
}

int64_t AttentionVariant::documents() const {
  int64_t n = 0;
  for (size_t t = 0; t < bound_min.size(); ++t) n += bound_min[t] == static_cast<int32_t>(t);
  return n;
}

TileCut AttentionVariant::bounded_tile(int64_t q0, int64_t k0, int64_t rows, int64_t cols) const {
  const auto T = static_cast<int64_t>(bound_min.size());
  TileCut c{false, true};
  for (int64_t q = q0; q < q0 + rows && q < T; ++q) {
    const auto [mlo, mhi] = mask_keys(q);
    const int64_t lo = std::max<int64_t>(mlo, bound_min[static_cast<size_t>(q)]);
    const int64_t hi = std::min<int64_t>(mhi, bound_max[static_cast<size_t>(q)]);
    c.any = c.any || (lo <= hi && lo <= k0 + cols - 1 && hi >= k0);
    c.all = c.all && lo <= k0 && hi >= k0 + cols - 1;
  }
  return c;
}

bool AttentionVariant::bounds_cover(int64_t q0, int64_t k0, int64_t rows, int64_t cols) const {
  for (int64_t q = q0; bounded() && q < q0 + rows && q < static_cast<int64_t>(bound_min.size()); ++q)
    if (bound_min[static_cast<size_t>(q)] > k0 || bound_max[static_cast<size_t>(q)] < k0 + cols - 1) return false;
  return true;
}

double AttentionVariant::bounded_pairs(int64_t T) const {
  double n = 0;
  for (int64_t q = 0; q < T; ++q) {
    const auto [mlo, mhi] = mask_keys(q);
    n += static_cast<double>(std::max<int64_t>(0, std::min<int64_t>(mhi, bound_max[static_cast<size_t>(q)]) -
                                                      std::max<int64_t>(mlo, bound_min[static_cast<size_t>(q)]) + 1));
  }
  return n;
}

void set_document_bounds(AttentionVariant& v, int64_t T, const std::vector<int64_t>& starts) {
  check(!starts.empty() && starts[0] == 0, "document starts must begin with 0");
  for (size_t i = 1; i < starts.size(); ++i)
    check(starts[i] > starts[i - 1] && starts[i] < T,
          "document starts must rise inside [0, T); got " + std::to_string(starts[i]) + " after " +
              std::to_string(starts[i - 1]) + " (T " + std::to_string(T) + ")");
  v.bound_min.assign(static_cast<size_t>(T), 0);
  v.bound_max.assign(static_cast<size_t>(T), 0);
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t end = i + 1 < starts.size() ? starts[i + 1] : T;
    for (int64_t t = starts[i]; t < end; ++t) {
      v.bound_min[static_cast<size_t>(t)] = static_cast<int32_t>(starts[i]);
      v.bound_max[static_cast<size_t>(t)] = static_cast<int32_t>(end - 1);
    }
  }
}

std::vector<int64_t> spread_document_starts(int64_t T, int64_t n) {
  check(n >= 1 && n <= T / 32, "documents: 1 to T / 32 = " + std::to_string(T / 32) + "; got " + std::to_string(n));
  std::vector<int64_t> s{0};
  for (int64_t i = 1; i < n; ++i) s.push_back(i * T / n - 29);
  return s;
}

std::vector<float> standard_alibi_slopes(int64_t heads) {
  check(heads >= 1, "standard_alibi_slopes needs heads >= 1; got " + std::to_string(heads));
  std::vector<float> s(static_cast<size_t>(heads));
  for (int64_t h = 0; h < heads; ++h)
    s[static_cast<size_t>(h)] =
        static_cast<float>(std::exp2(-8.0 * static_cast<double>(h + 1) / static_cast<double>(heads)));
  return s;
}

void check_attention_variant(const AttentionVariant& v, int64_t heads, int64_t seq) {
  if (v.mask == AttentionMask::sliding_window)
    check(v.window >= 1, "a sliding_window mask needs a window >= 1; got " + std::to_string(v.window));
  else
    check(v.window == 0, std::string("a window is only for the sliding_window mask (mask ") +
                             attention_mask_name(v.mask) + ", window " + std::to_string(v.window) + ")");
  check(v.group >= 1, "the kv group (query heads per kv head) must be >= 1; got " + std::to_string(v.group));
  check(std::isfinite(v.softcap) && v.softcap >= 0,
        "the softcap must be 0 (off) or positive and finite; got " + std::to_string(v.softcap));
  check(v.bound_min.size() == v.bound_max.size(), "document bounds need bound_min and bound_max of one length; got " +
                                                      std::to_string(v.bound_min.size()) + " and " +
                                                      std::to_string(v.bound_max.size()));
  check(seq == 0 || !v.bounded() || static_cast<int64_t>(v.bound_min.size()) == seq,
        "document bounds need one (bound_min, bound_max) per position: " + std::to_string(v.bound_min.size()) +
            " for T " + std::to_string(seq));
  for (size_t t = 0; t < v.bound_min.size(); ++t)
    check(v.bound_min[t] <= static_cast<int64_t>(t) && static_cast<int64_t>(t) <= v.bound_max[t],
          "document bounds must let each query see itself: bound_min[" + std::to_string(t) +
              "] = " + std::to_string(v.bound_min[t]) + ", bound_max = " + std::to_string(v.bound_max[t]));
  for (float s : v.alibi_slopes)
    check(std::isfinite(s) && s > 0, "ALiBi slopes must be positive and finite; got " + std::to_string(s));
  if (heads == 0) return;
  check(heads % v.group == 0, "the stacked query heads (" + std::to_string(heads) +
                                  ") must be a multiple of the kv group (" + std::to_string(v.group) + ")");
  check(!v.alibi() || static_cast<int64_t>(v.alibi_slopes.size()) == heads,
        "ALiBi needs one slope per stacked query head: " + std::to_string(v.alibi_slopes.size()) + " slopes for " +
            std::to_string(heads) + " heads");
}

}  // namespace nanotrn::neuron
