// Embedding. See embedding.h.
#include "ops/embedding.h"

#include <algorithm>
#include <cstring>

#include "ops/op_util.h"

namespace nanotrn::ops {

Tensor embedding(Ctx& ctx, const Tensor& ids_in, const Tensor& table_in) {
  check(ids_in.defined() && ids_in.dtype() == DType::i32, "embedding: ids must be an i32 tensor");
  detail::require_f32(table_in, "embedding", "table");
  check(table_in.dim() == 2, "embedding: table must be [V, C], got " + shape_str(table_in.shape()));
  Tensor ids = ids_in.contiguous(), table = table_in.contiguous();
  const int64_t n = ids.numel(), V = table.size(0), C = table.size(1);
  const int32_t* pid = ids.data<int32_t>();
  for (int64_t i = 0; i < n; i++) {
    check(pid[i] >= 0 && pid[i] < V, "embedding: token id " + std::to_string(pid[i]) + " at flat position " +
                                         std::to_string(i) + " is outside the vocabulary [0, " + std::to_string(V) +
                                         ")");
  }
  Shape out_shape = ids.shape();
  out_shape.push_back(C);
  Tensor out = ctx.empty(out_shape);
  const float* pt = table.data<float>();
  float* po = out.data<float>();
#pragma omp parallel for if (n * C > 65536) schedule(static)
  for (int64_t i = 0; i < n; i++) std::memcpy(po + i * C, pt + pid[i] * C, static_cast<size_t>(C) * sizeof(float));

  if (detail::recording(ctx, {table_in})) {
    Engine* engine = &ctx.engine;
    ctx.tape->record("embedding", {ids_in, table_in}, {&out},
                     [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
                       Tensor g = go[0].contiguous();
                       Tensor dt = Tensor::zeros({V, C}, DType::f32, engine->allocator());
                       const float* pg = g.data<float>();
                       float* pd = dt.data<float>();
                       const int32_t* ip = ids.data<int32_t>();
                       // Parallel over column blocks: every thread owns a slice of C, so no two write one element.
                       const int64_t block = 64;
                       const int64_t nblocks = (C + block - 1) / block;
#pragma omp parallel for if (n * C > 65536) schedule(static)
                       for (int64_t cb = 0; cb < nblocks; cb++) {
                         const int64_t c0 = cb * block, c1 = std::min(C, c0 + block);
                         for (int64_t i = 0; i < n; i++) {
                           float* row = pd + ip[i] * C;
                           const float* gr = pg + i * C;
                           for (int64_t c = c0; c < c1; c++) row[c] += gr[c];
                         }
                       }
                       gi[1] = dt;
                     });
  }
  return out;
}

}  // namespace nanotrn::ops
