// Element-wise binary and scalar ops. See elementwise.h.
#include "ops/elementwise.h"

#include "base/lane_sum.h"
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

Tensor scaled_add(Ctx& ctx, const Tensor& x_in, const Tensor& a, const Tensor& z_in, const Tensor& b) {
  for (const auto& [t, name] : {std::pair{&x_in, "x"}, {&a, "a"}, {&z_in, "z"}, {&b, "b"}})
    require_f32(*t, "scaled_add", name);
  check(a.numel() == 1 && b.numel() == 1, "scaled_add: a and b must hold one element each, got shapes " +
                                              shape_str(a.shape()) + " and " + shape_str(b.shape()));
  check(x_in.shape() == z_in.shape(),
        "scaled_add: x and z must have one shape, got " + shape_str(x_in.shape()) + " and " + shape_str(z_in.shape()));
  const Tensor x = x_in.contiguous(), z = z_in.contiguous();
  const float av = a.item(), bv = b.item();
  const int64_t n = x.numel();
  Tensor out = ctx.empty(x.shape());
  const float* px = x.data<float>();
  const float* pz = z.data<float>();
  float* po = out.data<float>();
#pragma omp parallel for if (n > 32768) schedule(static)
  for (int64_t i = 0; i < n; i++) po[i] = av * px[i] + bv * pz[i];
  if (recording(ctx, {x_in, a, z_in, b})) {
    Engine* engine = &ctx.engine;
    ctx.tape->record("scaled_add", {x_in, a, z_in, b}, {&out},
                     [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
                       const Tensor g = go[0].contiguous();
                       const float* pg = g.data<float>();
                       Tensor dx = Tensor::empty(x.shape(), DType::f32, engine->allocator());
                       Tensor dz = Tensor::empty(x.shape(), DType::f32, engine->allocator());
                       float* pdx = dx.data<float>();
                       float* pdz = dz.data<float>();
#pragma omp parallel for if (n > 32768) schedule(static)
                       for (int64_t i = 0; i < n; i++) pdx[i] = av * pg[i], pdz[i] = bv * pg[i];
                       gi[0] = dx;
                       gi[1] = Tensor::full(a.shape(), static_cast<float>(chunked_dot(pg, x.data<float>(), n)));
                       gi[2] = dz;
                       gi[3] = Tensor::full(b.shape(), static_cast<float>(chunked_dot(pg, z.data<float>(), n)));
                     });
  }
  return out;
}

}  // namespace nanotrn::ops
