// A model about to be evaluated or sampled must hold only finite weights: one NaN or infinity makes every logit NaN,
// so `eval bpb` would print "val_bpb nan" and greedy `sample` would emit id 0 again and again, both with exit 0.
//
//   check_finite_weights(gpt, "out/run/checkpoint.safetensors");
//   if (auto bad = first_non_finite_weight(gpt)) ... bad->describe() ...   // the trainer, before a checkpoint
//
// check_finite_weights throws an Error naming `source`, the first parameter (in the model's order) holding a
// non-finite value, the element's index and the value. Each costs one pass over the weights, without copies.
#pragma once

#include <optional>
#include <string>

#include "model/gpt.h"

namespace nanotrn {

struct NonFiniteWeight {
  std::string name, shape;
  int64_t element = 0;
  float value = 0;
  std::string describe() const;  // "weight 'blocks.0.attn.q' [256, 256] holds nan at element 17"
};
std::optional<NonFiniteWeight> first_non_finite_weight(const model::Gpt& gpt);

void check_finite_weights(const model::Gpt& gpt, const std::string& source);

}  // namespace nanotrn
