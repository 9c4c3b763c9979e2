// Element-wise arithmetic with numpy broadcasting, forward and backward.
//
//   Tensor y = ops::add(ctx, x, bias);     // bias [C] broadcast over x [B, T, C]
//   Tensor z = ops::mul(ctx, y, ops::scale(ctx, g, 0.5f));
//
// Shapes: the output has broadcast_shapes(a, b); the gradient of a broadcast input is the output gradient summed
// over the broadcast dimensions. Inputs may be any strided view; outputs are contiguous f32.
// Not here: activations (ops/activation.h), reductions (ops/reduce.h).
#pragma once

#include "engine/engine.h"

namespace nanotrn::ops {

Tensor add(Ctx& ctx, const Tensor& a, const Tensor& b);
Tensor sub(Ctx& ctx, const Tensor& a, const Tensor& b);
Tensor mul(Ctx& ctx, const Tensor& a, const Tensor& b);
Tensor div(Ctx& ctx, const Tensor& a, const Tensor& b);
// y = s * x
Tensor scale(Ctx& ctx, const Tensor& x, float s);
// y = x + s
Tensor add_scalar(Ctx& ctx, const Tensor& x, float s);
// y = a x + b z, with a and b one-element tensors (the residual stream's per-layer scalars, x <- resid x + x0w x0) and
// x, z of one shape: one pass where mul, mul and add take three, and a backward that gives all four gradients. The
// scalars' gradients are sums over every element in a fixed order (base/lane_sum.h), the same on any thread count.
Tensor scaled_add(Ctx& ctx, const Tensor& x, const Tensor& a, const Tensor& z, const Tensor& b);

}  // namespace nanotrn::ops
