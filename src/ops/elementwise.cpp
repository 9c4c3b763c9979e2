// Element-wise binary and scalar ops. See elementwise.h.
#include "ops/elementwise.h"

#include "ops/op_util.h"
#include "ops/reduce.h"
#include "tensor/strided.h"

namespace nanotrn::ops {

using detail::recording;
using detail::require_f32;

namespace {

enum class Bin { add, sub, mul, div };

// out = a (op) b over the broadcast shape.
template <Bin K>
Tensor binary_forward(const Ctx& ctx, const Tensor& a, const Tensor& b) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  Tensor out = ctx.empty(shape);
  const Shape sa = broadcast_strides(a.shape(), a.strides(), shape);
  const Shape sb = broadcast_strides(b.shape(), b.strides(), shape);
  const Shape so = out.strides();
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* po = out.data<float>();
  const int64_t ia = row_stride(sa), ib = row_stride(sb);
  for_each_row<3>(shape, {&so, &sa, &sb}, [&](int64_t n, const std::array<int64_t, 3>& off) {
    float* y = po + off[0];
    const float* x0 = pa + off[1];
    const float* x1 = pb + off[2];
    auto body = [&](int64_t sx0, int64_t sx1) {
      for (int64_t i = 0; i < n; i++) {
        const float u = x0[i * sx0], v = x1[i * sx1];
        if constexpr (K == Bin::add) y[i] = u + v;
        if constexpr (K == Bin::sub) y[i] = u - v;
        if constexpr (K == Bin::mul) y[i] = u * v;
        if constexpr (K == Bin::div) y[i] = u / v;
      }
    };
    // Specialise the common stride pairs so the compiler vectorises them.
    if (ia == 1 && ib == 1) {
      body(1, 1);
    } else if (ia == 1 && ib == 0) {
      body(1, 0);
    } else if (ia == 0 && ib == 1) {
      body(0, 1);
    } else {
      body(ia, ib);
    }
  });
  return out;
}

template <Bin K>
Tensor binary(Ctx& ctx, const Tensor& a, const Tensor& b, const char* name) {
  require_f32(a, name, "a");
  require_f32(b, name, "b");
  Tensor out = binary_forward<K>(ctx, a, b);
  if (!recording(ctx, {a, b})) return out;
  const Shape shape_a = a.shape(), shape_b = b.shape();
  const bool ga = a.requires_grad(), gb = b.requires_grad();
  // mul and div need the other operand's value in backward.
  Tensor va = (K == Bin::mul || K == Bin::div) && gb ? a : Tensor();
  Tensor vb = (K == Bin::mul || K == Bin::div) ? b : Tensor();
  Engine* engine = &ctx.engine;
  ctx.tape->record(name, {a, b}, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
    Ctx bc{*engine};
    const Tensor& g = go[0];
    if (ga) {
      Tensor d = g;
      if constexpr (K == Bin::mul) d = binary_forward<Bin::mul>(bc, g, vb);
      if constexpr (K == Bin::div) d = binary_forward<Bin::div>(bc, g, vb);
      gi[0] = sum_to_shape(bc, d, shape_a);
    }
    if (gb) {
      Tensor d = g;
      if constexpr (K == Bin::sub) d = scale(bc, g, -1.0f);
      if constexpr (K == Bin::mul) d = binary_forward<Bin::mul>(bc, g, va);
      if constexpr (K == Bin::div) {
        // d/db (a/b) = -a/b^2
        Tensor q = binary_forward<Bin::div>(bc, va, vb);
        q = binary_forward<Bin::div>(bc, q, vb);
        d = scale(bc, binary_forward<Bin::mul>(bc, g, q), -1.0f);
      }
      gi[1] = sum_to_shape(bc, d, shape_b);
    }
  });
  return out;
}

// y = alpha * x + beta (contiguous output).
Tensor affine_forward(const Ctx& ctx, const Tensor& x, float alpha, float beta) {
  Tensor out = ctx.empty(x.shape());
  const Shape sx = x.strides(), so = out.strides();
  const float* px = x.data<float>();
  float* po = out.data<float>();
  const int64_t ix = row_stride(sx);
  for_each_row<2>(x.shape(), {&so, &sx}, [&](int64_t n, const std::array<int64_t, 2>& off) {
    float* y = po + off[0];
    const float* v = px + off[1];
    if (ix == 1) {
      for (int64_t i = 0; i < n; i++) y[i] = alpha * v[i] + beta;
    } else {
      for (int64_t i = 0; i < n; i++) y[i] = alpha * v[i * ix] + beta;
    }
  });
  return out;
}

}  // namespace

Tensor add(Ctx& ctx, const Tensor& a, const Tensor& b) { return binary<Bin::add>(ctx, a, b, "add"); }
Tensor sub(Ctx& ctx, const Tensor& a, const Tensor& b) { return binary<Bin::sub>(ctx, a, b, "sub"); }
Tensor mul(Ctx& ctx, const Tensor& a, const Tensor& b) { return binary<Bin::mul>(ctx, a, b, "mul"); }
Tensor div(Ctx& ctx, const Tensor& a, const Tensor& b) { return binary<Bin::div>(ctx, a, b, "div"); }

Tensor scale(Ctx& ctx, const Tensor& x, float s) {
  require_f32(x, "scale", "x");
  Tensor out = affine_forward(ctx, x, s, 0.0f);
  if (recording(ctx, {x})) {
    Engine* engine = &ctx.engine;
    ctx.tape->record("scale", {x}, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
      Ctx bc{*engine};
      gi[0] = affine_forward(bc, go[0], s, 0.0f);
    });
  }
  return out;
}

Tensor add_scalar(Ctx& ctx, const Tensor& x, float s) {
  require_f32(x, "add_scalar", "x");
  Tensor out = affine_forward(ctx, x, 1.0f, s);
  if (recording(ctx, {x})) {
    ctx.tape->record("add_scalar", {x}, {&out},
                     [](const std::vector<Tensor>& go, std::vector<Tensor>& gi) { gi[0] = go[0]; });
  }
  return out;
}

}  // namespace nanotrn::ops
