// The document-bounds mask of the attention tile kernels (see attention_bounds.h).
#include "neuron/kernels/attention_bounds.h"

#include <string>

#include "base/error.h"
#include "neuron/kernels/schedule.h"

namespace nanotrn::neuron {

void add_bounds_mask(KernelBuilder& b, const View& scores, const View& keys, const View& tmp, const View& bmin,
                     const View& bmax, int64_t k0) {
  constexpr float kHuge = 1e30f;  // times a whole number of keys >= 1 outside: exp(scale (S - huge)) = 0
  b.iota(keys, k0, 0, 1);
  b.tensor_scalar(tmp, keys, AluOp::subtract, bmin);
  b.tensor_scalar(tmp, tmp, AluOp::min, 0.0f, AluOp::multiply, kHuge);
  b.tensor_tensor(scores, scores, tmp, AluOp::add);
  b.tensor_scalar(tmp, keys, AluOp::subtract, bmax);
  b.tensor_scalar(tmp, tmp, AluOp::max, 0.0f, AluOp::multiply, -kHuge);
  b.tensor_tensor(scores, scores, tmp, AluOp::add);
}

void check_bounds_tensor(const KernelBuilder& b, const char* kernel, const View& bounds, int64_t T,
                         std::source_location loc) {
  check_hbm_operands(b, kernel, {bounds}, loc);
  check(bounds.np == T && bounds.nf == 2 && dtype_of(b, bounds) != DType::i32,
        std::string("[shape] ") + kernel + ": document bounds need a float HBM tensor [T, 2] = [" + std::to_string(T) +
            ", 2] (bound_min, bound_max); got [" + std::to_string(bounds.np) + ", " + std::to_string(bounds.nf) + "]",
        loc);
}

}  // namespace nanotrn::neuron
