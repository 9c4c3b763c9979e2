// Every host op with autograd, in one include. Each op family has its own header:
//   elementwise.h  add, sub, mul, div, scale, add_scalar (broadcasting)
//   reduce.h       sum, mean
//   shape_ops.h    reshape, transpose, narrow, contiguous, concat, split
//   activation.h   relu2, leaky_relu2, gelu, silu, sigmoid, tanh, tanh_softcap, softmax
//   linear.h       matmul (batched, transposes), linear
//   embedding.h    embedding
//   norm.h         rms_norm
//   rotary.h       rotary
//   attention.h    attention (flash-style; causal, window, ALiBi, document mask, softcap; GQA)
//   cross_entropy.h linear_cross_entropy (fused, chunked, softcapped)
// Each has an fp64 reference in ref/ and a gradient check in tests/ops/.
#pragma once

#include "autograd/tape.h"
#include "base/error.h"
#include "ops/activation.h"
#include "ops/attention.h"
#include "ops/cross_entropy.h"
#include "ops/elementwise.h"
#include "ops/embedding.h"
#include "ops/linear.h"
#include "ops/norm.h"
#include "ops/reduce.h"
#include "ops/rotary.h"
#include "ops/shape_ops.h"
