// RMSNorm without a learnable weight (the baseline's norm), forward and backward.
//
//   Tensor y = ops::rms_norm(ctx, x);           // over the last dimension: y = x / sqrt(mean(x^2) + eps)
//
// eps defaults to 2^-23 = 1.1920929e-07, the fp32 machine epsilon that PyTorch's F.rms_norm uses when eps=None
// (recipe-spec §2.2). The backward is dx = (dy - y * mean(dy * y)) / rms.
#pragma once

#include "engine/engine.h"

namespace nanotrn::ops {

constexpr float kRmsNormDefaultEps = 1.1920928955078125e-07f;

Tensor rms_norm(Ctx& ctx, const Tensor& x, float eps = kRmsNormDefaultEps);

}  // namespace nanotrn::ops
