// A model about to be evaluated or sampled must hold only finite weights: one NaN or infinity makes every logit NaN,
// so `eval bpb` would print "val_bpb nan" and greedy `sample` would emit id 0 again and again, both with exit 0.
//
//   check_finite_weights(gpt, "out/run/checkpoint.safetensors");
//
// Throws an Error naming `source`, the first parameter (in the model's order) holding a non-finite value, the
// element's index and the value. Costs one pass over the weights.
#pragma once

#include <string>

#include "model/gpt.h"

namespace nanotrn {

void check_finite_weights(const model::Gpt& gpt, const std::string& source);

}  // namespace nanotrn
