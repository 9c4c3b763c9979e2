// Parsing and checking of the attention tile kernels' masks (see attention_mask.h).
#include "neuron/kernels/attention_mask.h"

#include "base/error.h"

namespace nanotrn::neuron {

AttentionMask parse_attention_mask(const std::string& name) {
  if (name == "causal") return AttentionMask::causal;
  if (name == "none" || name == "dense") return AttentionMask::none;
  if (name == "sliding_window" || name == "window") return AttentionMask::sliding_window;
  throw Error("unknown attention mask '" + name + "' (causal, none, sliding_window)");
}

void check_attention_variant(const AttentionVariant& v) {
  if (v.mask == AttentionMask::sliding_window)
    check(v.window >= 1, "a sliding_window mask needs a window >= 1; got " + std::to_string(v.window));
  else
    check(v.window == 0, std::string("a window is only for the sliding_window mask (mask ") +
                             attention_mask_name(v.mask) + ", window " + std::to_string(v.window) + ")");
}

}  // namespace nanotrn::neuron
