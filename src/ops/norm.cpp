// RMSNorm. See norm.h.
#include "ops/norm.h"

#include <cmath>

#include "base/lane_sum.h"
#include "ops/op_util.h"

namespace nanotrn::ops {

Tensor rms_norm(Ctx& ctx, const Tensor& x_in, float eps) {
  detail::require_f32(x_in, "rms_norm", "x");
  check(x_in.dim() >= 1 && x_in.size(-1) > 0, "rms_norm: needs a non-empty last dimension");
  check(eps >= 0.0f, "rms_norm: eps must be >= 0");
  Tensor x = x_in.contiguous();
  const int64_t C = x.size(-1), rows = x.numel() / C;
  Tensor out = ctx.empty(x.shape());
  Tensor rstd = ctx.empty({rows});  // 1 / rms per row, kept for the backward
  const float* px = x.data<float>();
  float* py = out.data<float>();
  float* pr = rstd.data<float>();
#pragma omp parallel for if (x.numel() > 32768) schedule(static)
  for (int64_t r = 0; r < rows; r++) {
    const float* xr = px + r * C;
    const float ss = lane_dot(xr, xr, C);
    const float inv = 1.0f / std::sqrt(ss / static_cast<float>(C) + eps);
    pr[r] = inv;
    float* yr = py + r * C;
    for (int64_t c = 0; c < C; c++) yr[c] = xr[c] * inv;
  }
  if (detail::recording(ctx, {x_in})) {
    Engine* engine = &ctx.engine;
    Tensor y = out;
    ctx.tape->record("rms_norm", {x_in}, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
      Tensor g = go[0].contiguous();
      Tensor dx = Tensor::empty(y.shape(), DType::f32, engine->allocator());
      const float* pg = g.data<float>();
      const float* yv = y.data<float>();
      const float* rs = rstd.data<float>();
      float* pd = dx.data<float>();
#pragma omp parallel for if (y.numel() > 32768) schedule(static)
      for (int64_t r = 0; r < rows; r++) {
        const float* gr = pg + r * C;
        const float* yr = yv + r * C;
        const float m = lane_dot(gr, yr, C) / static_cast<float>(C);
        float* dr = pd + r * C;
        for (int64_t c = 0; c < C; c++) dr[c] = (gr[c] - yr[c] * m) * rs[r];
      }
      gi[0] = dx;
    });
  }
  return out;
}

}  // namespace nanotrn::ops
