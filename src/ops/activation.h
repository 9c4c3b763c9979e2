// Activations and the softmax, forward and backward (the backward reads the saved input).
//
//   Tensor h = ops::relu2(ctx, x);                 // relu(x)^2, the baseline MLP activation
//   Tensor h = ops::leaky_relu2(ctx, x, 0.5f);     // leaky_relu(x, slope)^2: x^2 for x > 0, (slope*x)^2 otherwise
//   Tensor z = ops::tanh_softcap(ctx, logits, 15); // cap * tanh(x / cap)
//   Tensor p = ops::softmax(ctx, scores);          // over the last dimension
//   Tensor c = ops::clamp(ctx, x, -7, 7);          // gpt-oss's clamped SwiGLU
//
// All compute in fp32 with the math library's expf/tanhf/erff; inputs of any strides, outputs contiguous.
// Not here: fused uses of these inside attention or the cross-entropy (those ops apply them inline).
#pragma once

#include "engine/engine.h"

namespace nanotrn::ops {

Tensor relu2(Ctx& ctx, const Tensor& x);
Tensor leaky_relu2(Ctx& ctx, const Tensor& x, float slope);
// GELU: exact, 0.5 x (1 + erf(x / sqrt 2)); with `tanh_approximation`, 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))).
Tensor gelu(Ctx& ctx, const Tensor& x, bool tanh_approximation = false);
Tensor silu(Ctx& ctx, const Tensor& x);  // x * sigmoid(x)
Tensor sigmoid(Ctx& ctx, const Tensor& x);
Tensor tanh(Ctx& ctx, const Tensor& x);
Tensor tanh_softcap(Ctx& ctx, const Tensor& x, float cap);  // cap > 0
Tensor softmax(Ctx& ctx, const Tensor& x);                  // over the last dimension
// min(max(x, lo), hi) (lo <= hi; +-infinity for one side); the gradient passes where lo <= x <= hi, as torch.clamp's.
Tensor clamp(Ctx& ctx, const Tensor& x, float lo, float hi);

}  // namespace nanotrn::ops
