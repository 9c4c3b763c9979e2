// The typed shapes of the shipped tile kernels: what the CLI, the QA grids and the step-time predictor hand to
// run_kernel / time_kernel (kernel_run.h) instead of a vector whose meaning depends on the kernel's name. The
// defaults are `nanotrn kernel run`'s.
//
//   time_kernel("matmul", MatmulShape{.m = 4096, .k = 4096, .n = 4096}, DType::bf16, "v3");
//   time_kernel("attention_bwd", AttentionShape{.seq = 2048, .head_dim = 128, .heads = 8}, DType::bf16, "v3");
//
// kernel          shape           meaning
// matmul          MatmulShape     C[M, N] fp32 = A_T[K, M]^T B[K, N]
// transpose       RowsShape       y[cols, rows] = x[rows, cols]^T
// softmax         RowsShape       row softmax of x[rows, cols]
// rmsnorm         RmsnormShape    x[rows, cols] * rsqrt(mean(x^2) + eps) * gamma[1, cols]
// vector_add      VectorAddShape  a + b over [rows, cols] in SBUF tiles of [tile_rows, tile_cols]
// attention       AttentionShape  `heads` stacked (batch, query head) pairs of length seq, head_dim d, under variant
// attention_bwd   AttentionShape  its backward dq, dk, dv
// Not here: the definitions that read them (builtin_kernels.h).
#pragma once

#include <cstdint>

#include "neuron/kernels/attention_mask.h"

namespace nanotrn::neuron {

struct MatmulShape {
  int64_t m = 4096, k = 4096, n = 4096;
};

struct RowsShape {
  int64_t rows = 4096, cols = 4096;
};

struct RmsnormShape {
  int64_t rows = 4096, cols = 4096;
  float eps = 1e-6f;
};

struct VectorAddShape {
  int64_t rows = 4096, cols = 4096;
  int64_t tile_rows = 128, tile_cols = 512;  // the SBUF tile: 1..128 partitions x 1..cols
};

struct AttentionShape {
  int64_t seq = 1024, head_dim = 128, heads = 1;  // T, d, stacked query heads
  AttentionVariant variant{};                     // mask, ALiBi slopes (one per stacked head), kv group
};

}  // namespace nanotrn::neuron
