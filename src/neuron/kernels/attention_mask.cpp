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
  if (group > 1) s += ", group " + std::to_string(group);
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

void check_attention_variant(const AttentionVariant& v, int64_t heads) {
  if (v.mask == AttentionMask::sliding_window)
    check(v.window >= 1, "a sliding_window mask needs a window >= 1; got " + std::to_string(v.window));
  else
    check(v.window == 0, std::string("a window is only for the sliding_window mask (mask ") +
                             attention_mask_name(v.mask) + ", window " + std::to_string(v.window) + ")");
  check(v.group >= 1, "the kv group (query heads per kv head) must be >= 1; got " + std::to_string(v.group));
  check(std::isfinite(v.softcap) && v.softcap >= 0,
        "the softcap must be 0 (off) or positive and finite; got " + std::to_string(v.softcap));
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
