// Shape ops with autograd: reshape, transpose, narrow, concatenation and split.
//
//   Tensor h = ops::reshape(ctx, x, {B, T, H, D});         // a view when x is contiguous
//   Tensor xt = ops::transpose(ctx, x, 1, 2);              // a view (strides swapped)
//   auto [q, k, v] = ops::split(ctx, qkv, {C, C, C}, -1)   // three narrow views of qkv
//   Tensor y = ops::concat(ctx, {a, b}, 0);                // a new contiguous tensor
//
// Views share storage with their input (no copy); their gradients are laid back into the input's shape.
// Not here: the non-recording Tensor methods of the same names (tensor/tensor.h), which these call.
#pragma once

#include <vector>

#include "engine/engine.h"

namespace nanotrn::ops {

Tensor reshape(Ctx& ctx, const Tensor& x, const Shape& shape);
Tensor transpose(Ctx& ctx, const Tensor& x, int64_t d0, int64_t d1);
Tensor narrow(Ctx& ctx, const Tensor& x, int64_t dim, int64_t start, int64_t length);
Tensor contiguous(Ctx& ctx, const Tensor& x);
Tensor concat(Ctx& ctx, const std::vector<Tensor>& xs, int64_t dim);
// Splits along `dim` into pieces of the given sizes (they must add up to x.size(dim)); each piece is a view.
std::vector<Tensor> split(Ctx& ctx, const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim);

}  // namespace nanotrn::ops
