// Matrix products with autograd: batched matmul with transposes, and the linear layer.
//
//   Tensor c = ops::matmul(ctx, a, b);                  // a [..., M, K], b [..., K, N] -> [..., M, N]
//   Tensor c = ops::matmul(ctx, a, b, false, true);     // b stored [..., N, K]: a @ b^T
//   Tensor y = ops::linear(ctx, x, w);                  // x [..., in], w [out, in] -> [..., out] (no bias)
//
// Batch dimensions: a and b have the same batch dimensions, or b is 2-D and is shared by every batch entry of a.
// Transposed views are passed to the GEMM as transpose flags (no copy). With ctx.matmul_dtype == bf16 the operands are
// rounded to bf16 (round to nearest even) and multiplied with fp32 accumulation into fp32 (the backward GEMMs too).
// Not here: the GEMM itself (gemm/gemm.h, oneDNN).
#pragma once

#include "engine/engine.h"

namespace nanotrn::ops {

Tensor matmul(Ctx& ctx, const Tensor& a, const Tensor& b, bool trans_a = false, bool trans_b = false);
Tensor linear(Ctx& ctx, const Tensor& x, const Tensor& w);

}  // namespace nanotrn::ops
