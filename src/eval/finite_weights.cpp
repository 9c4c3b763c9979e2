// Non-finite weights. See finite_weights.h.
#include "eval/finite_weights.h"

#include <cmath>

#include "base/error.h"

namespace nanotrn {

void check_finite_weights(const model::Gpt& gpt, const std::string& source) {
  for (const model::Parameter& p : gpt.parameters()) {
    const Tensor v = p.value.contiguous();
    const std::vector<float> values = v.to_vector();
    for (size_t i = 0; i < values.size(); i++) {
      if (std::isfinite(values[i])) continue;
      throw Error(source + ": weight '" + p.name + "' " + shape_str(v.shape()) + " holds " + std::to_string(values[i]) +
                  " at element " + std::to_string(i) +
                  "; a model with a non-finite weight has no meaningful output (the run diverged, or the file was "
                  "damaged)");
    }
  }
}

}  // namespace nanotrn
