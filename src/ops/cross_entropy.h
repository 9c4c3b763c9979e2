// The fused head: linear projection to the vocabulary, tanh softcap, softmax cross-entropy, computed in row chunks.
//
//   CrossEntropyOptions ce{.softcap = 15.0f};
//   Tensor loss = ops::linear_cross_entropy(ctx, x, lm_head, targets, ce);   // x [N, C], lm_head [V, C], targets i32
//   [N] Tensor nll  = ops::linear_cross_entropy_per_token(ctx, x, lm_head, targets, ce);  // [N] nats, no autograd
//
// loss = mean over targets != ignore_index of (logsumexp(z) - z[target]) with z = softcap(x lm_head^T) (z = logits
// when softcap == 0); 0 when every target is ignored. x and targets may carry leading dimensions ([B, T, C] / [B, T]).
// Memory: the [N, V] logits are never materialised: each chunk of rows computes its logits, its loss and, when
// gradients are needed, d logits, which it folds at once into dx (chunk rows) and d lm_head (accumulated); the
// backward only scales those by the incoming gradient. Peak extra memory is chunk_rows x V floats plus dx and
// d lm_head. With ctx.matmul_dtype == bf16 the three GEMMs take bf16 inputs (fp32 accumulation); the softmax is fp32.
#pragma once

#include "engine/engine.h"

namespace nanotrn::ops {

struct CrossEntropyOptions {
  float softcap = 0.0f;       // 0 = off
  int32_t ignore_index = -1;  // targets equal to this contribute nothing
  int64_t chunk_rows = 0;     // 0 = automatic (about 16 MiB of logits per chunk, at least 128 rows)
};

Tensor linear_cross_entropy(Ctx& ctx, const Tensor& x, const Tensor& w, const Tensor& targets,
                            const CrossEntropyOptions& options = {});
Tensor linear_cross_entropy_per_token(Ctx& ctx, const Tensor& x, const Tensor& w, const Tensor& targets,
                                      const CrossEntropyOptions& options = {});

}  // namespace nanotrn::ops
