// Rotary embedding. See rotary.h.
#include "ops/rotary.h"

#include <cmath>
#include <memory>
#include <vector>

#include "ops/op_util.h"

namespace nanotrn::ops {

namespace {

// Applies the rotation (sign = +1) or its inverse (sign = -1) to x [B, T, H, D] into y.
void rotate(const float* x, float* y, int64_t B, int64_t H, const RotaryTable& tab, float sign) {
  const int64_t T = tab.positions, D = tab.head_dim, R = tab.rotary_dims, half = R / 2;
#pragma omp parallel for collapse(2) if (B * T * H * D > 32768) schedule(static)
  for (int64_t b = 0; b < B; b++) {
    for (int64_t t = 0; t < T; t++) {
      const float* c = tab.cos.data() + t * half;
      const float* s = tab.sin.data() + t * half;
      for (int64_t h = 0; h < H; h++) {
        const int64_t base = ((b * T + t) * H + h) * D;
        const float* xr = x + base;
        float* yr = y + base;
        for (int64_t j = 0; j < half; j++) {
          const float x1 = xr[j], x2 = xr[j + half], sn = sign * s[j];
          yr[j] = x1 * c[j] + x2 * sn;
          yr[j + half] = -x1 * sn + x2 * c[j];
        }
        for (int64_t j = R; j < D; j++) yr[j] = xr[j];
      }
    }
  }
}

}  // namespace

RotaryTable rotary_table(int64_t positions, int64_t head_dim, const RotaryOptions& o) {
  check(positions >= 0, "rotary: negative positions " + std::to_string(positions));
  check(o.base > 0.0, "rotary: base must be > 0");
  check(o.fraction > 0.0 && o.fraction <= 1.0, "rotary: fraction must be in (0, 1], got " + std::to_string(o.fraction));
  const int64_t T = positions, D = head_dim;
  const int64_t R = static_cast<int64_t>(std::llround(o.fraction * static_cast<double>(D)));
  check(R >= 2 && R % 2 == 0, "rotary: fraction " + std::to_string(o.fraction) + " of head dim " + std::to_string(D) +
                                  " gives " + std::to_string(R) + " rotary channels; it must be even and >= 2");
  const int64_t half = R / 2;
  check(o.inv_freq.empty() || static_cast<int64_t>(o.inv_freq.size()) == half,
        "rotary: " + std::to_string(o.inv_freq.size()) + " frequencies for " + std::to_string(half) + " channel pairs");
  std::vector<double> inv_freq = o.inv_freq;
  if (inv_freq.empty())
    for (int64_t j = 0; j < half; j++)
      inv_freq.push_back(std::pow(o.base, -2.0 * static_cast<double>(j) / static_cast<double>(R)));
  RotaryTable tab{.positions = T, .head_dim = D, .rotary_dims = R, .cos = {}, .sin = {}};
  tab.cos.resize(static_cast<size_t>(T * half));
  tab.sin.resize(static_cast<size_t>(T * half));
  for (int64_t t = 0; t < T; t++) {
    for (int64_t j = 0; j < half; j++) {
      const double angle = static_cast<double>(t + o.position_offset) * inv_freq[static_cast<size_t>(j)];
      tab.cos[static_cast<size_t>(t * half + j)] = static_cast<float>(o.magnitude * std::cos(angle));
      tab.sin[static_cast<size_t>(t * half + j)] = static_cast<float>(o.magnitude * std::sin(angle));
    }
  }
  return tab;
}

Tensor rotary(Ctx& ctx, const Tensor& x, const RotaryOptions& o) {
  check(x.dim() == 4, "rotary: x must be [B, T, H, D], got " + shape_str(x.shape()));
  return rotary(ctx, x, std::make_shared<const RotaryTable>(rotary_table(x.size(1), x.size(3), o)));
}

Tensor rotary(Ctx& ctx, const Tensor& x_in, std::shared_ptr<const RotaryTable> table) {
  detail::require_f32(x_in, "rotary", "x");
  check(table != nullptr, "rotary: no table");
  check(x_in.dim() == 4 && x_in.size(1) == table->positions && x_in.size(3) == table->head_dim,
        "rotary: x must be [B, T, H, D] with the table's T " + std::to_string(table->positions) + " and D " +
            std::to_string(table->head_dim) + ", got " + shape_str(x_in.shape()));
  Tensor x = x_in.contiguous();
  const int64_t B = x.size(0), H = x.size(2);
  Tensor out = ctx.empty(x.shape());
  rotate(x.data<float>(), out.data<float>(), B, H, *table, 1.0f);
  if (detail::recording(ctx, {x_in})) {
    Engine* engine = &ctx.engine;
    ctx.tape->record("rotary", {x_in}, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
      Tensor g = go[0].contiguous();
      Tensor dx = Tensor::empty(g.shape(), DType::f32, engine->allocator());
      rotate(g.data<float>(), dx.data<float>(), B, H, *table, -1.0f);
      gi[0] = dx;
    });
  }
  return out;
}

}  // namespace nanotrn::ops
