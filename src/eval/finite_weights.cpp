// Non-finite weights. See finite_weights.h.
#include "eval/finite_weights.h"

#include <cmath>

#include "base/error.h"

namespace nanotrn {

std::string NonFiniteWeight::describe() const {
  return "weight '" + name + "' " + shape + " holds " + std::to_string(value) + " at element " +
         std::to_string(element);
}

std::optional<NonFiniteWeight> first_non_finite_weight(const model::Gpt& gpt) {
  for (const model::Parameter& p : gpt.parameters()) {
    const Tensor v = p.value.contiguous();  // the parameters are: no copy
    const float* w = v.data<float>();
    for (int64_t i = 0, n = v.numel(); i < n; i++) {
      if (!std::isfinite(w[i])) return NonFiniteWeight{p.name, shape_str(v.shape()), i, w[i]};
    }
  }
  return std::nullopt;
}

void check_finite_weights(const model::Gpt& gpt, const std::string& source) {
  if (const std::optional<NonFiniteWeight> bad = first_non_finite_weight(gpt)) {
    throw Error(source + ": " + bad->describe() +
                "; a model with a non-finite weight has no meaningful output (the run diverged, or the file was "
                "damaged)");
  }
}

}  // namespace nanotrn
