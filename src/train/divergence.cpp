// Divergence to uniform guessing. See divergence.h.
#include "train/divergence.h"

#include <cmath>

namespace nanotrn::train {

bool diverged_to_uniform(double best_loss, double loss, int64_t vocab_size) {
  if (vocab_size < 2) return false;
  const double uniform = std::log(static_cast<double>(vocab_size));
  return best_loss <= uniform - kLearnedNats && loss >= uniform;
}

}  // namespace nanotrn::train
