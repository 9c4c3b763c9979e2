// Sum and mean reductions, forward and backward.
//
//   Tensor total = ops::sum(ctx, x);                 // all elements -> shape {}
//   Tensor rows  = ops::sum(ctx, x, {-1}, true);     // [B, T, C] -> [B, T, 1]
//   Tensor m     = ops::mean(ctx, x, {0, 1});        // [B, T, C] -> [C]
//
// Accumulation is in double, so a sum's rounding error does not grow with the number of terms.
// Not here: max/argmax (sampling code keeps its own), norms.
#pragma once

#include <vector>

#include "engine/engine.h"

namespace nanotrn::ops {

Tensor sum(Ctx& ctx, const Tensor& x);
Tensor mean(Ctx& ctx, const Tensor& x);
// Over the listed dimensions (negative counts from the end); keepdim leaves them as size 1.
Tensor sum(Ctx& ctx, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim = false);
Tensor mean(Ctx& ctx, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim = false);

// Sums `x` down to `shape` (the inverse of broadcasting `shape` up to x's shape); no autograd. Returns x itself
// (contiguous) when the shapes already match. Used by the backward of broadcasting ops.
Tensor sum_to_shape(const Ctx& ctx, const Tensor& x, const Shape& shape);
// Broadcasts `x` up to `shape` as a new contiguous tensor; no autograd.
Tensor expand_to_shape(const Ctx& ctx, const Tensor& x, const Shape& shape);

}  // namespace nanotrn::ops
