// Shape ops. See shape_ops.h.
#include "ops/shape_ops.h"

#include "ops/op_util.h"

namespace nanotrn::ops {

using detail::recording;

Tensor reshape(Ctx& ctx, const Tensor& x, const Shape& shape) {
  check(x.defined(), "reshape: undefined input");
  Tensor out = x.is_contiguous() ? x.view(shape) : x.contiguous().view(shape);
  out.set_autograd(nullptr);
  if (recording(ctx, {x})) {
    const Shape in_shape = x.shape();
    ctx.tape->record("reshape", {x}, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
      gi[0] = go[0].contiguous().view(in_shape);
    });
  }
  return out;
}

Tensor transpose(Ctx& ctx, const Tensor& x, int64_t d0, int64_t d1) {
  check(x.defined(), "transpose: undefined input");
  Tensor out = x.transpose(d0, d1);
  out.set_autograd(nullptr);
  if (recording(ctx, {x})) {
    ctx.tape->record("transpose", {x}, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
      gi[0] = go[0].transpose(d0, d1).contiguous();
    });
  }
  return out;
}

Tensor contiguous(Ctx& ctx, const Tensor& x) {
  check(x.defined(), "contiguous: undefined input");
  if (x.is_contiguous()) return x;
  Tensor out = x.contiguous();
  out.set_autograd(nullptr);
  if (recording(ctx, {x})) {
    ctx.tape->record("contiguous", {x}, {&out},
                     [](const std::vector<Tensor>& go, std::vector<Tensor>& gi) { gi[0] = go[0]; });
  }
  return out;
}

Tensor narrow(Ctx& ctx, const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  check(x.defined(), "narrow: undefined input");
  Tensor out = x.narrow(dim, start, length);
  out.set_autograd(nullptr);
  if (recording(ctx, {x})) {
    const Shape in_shape = x.shape();
    Engine* engine = &ctx.engine;
    ctx.tape->record("narrow", {x}, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
      Tensor g = Tensor::zeros(in_shape, DType::f32, engine->allocator());
      g.narrow(dim, start, length).copy_from(go[0]);
      gi[0] = g;
    });
  }
  return out;
}

Tensor concat(Ctx& ctx, const std::vector<Tensor>& xs, int64_t dim) {
  check(!xs.empty(), "concat: no tensors");
  for (const Tensor& t : xs) detail::require_f32(t, "concat", "xs[i]");
  const int64_t nd = xs[0].dim();
  dim = detail::wrap_dim(dim, nd, "concat");
  Shape shape = xs[0].shape();
  shape[dim] = 0;
  std::vector<int64_t> sizes;
  for (const Tensor& t : xs) {
    check(t.dim() == nd, "concat: tensors of shapes " + shape_str(xs[0].shape()) + " and " + shape_str(t.shape()));
    for (int64_t d = 0; d < nd; d++) {
      check(d == dim || t.shape()[d] == xs[0].shape()[d], "concat: tensors of shapes " + shape_str(xs[0].shape()) +
                                                              " and " + shape_str(t.shape()) +
                                                              " differ outside dimension " + std::to_string(dim));
    }
    shape[dim] += t.shape()[dim];
    sizes.push_back(t.shape()[dim]);
  }
  Tensor out = ctx.empty(shape);
  int64_t at = 0;
  for (const Tensor& t : xs) {
    out.narrow(dim, at, t.shape()[dim]).copy_from(t);
    at += t.shape()[dim];
  }
  if (recording(ctx, xs)) {
    ctx.tape->record("concat", xs, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
      int64_t pos = 0;
      for (size_t i = 0; i < sizes.size(); i++) {
        gi[i] = go[0].narrow(dim, pos, sizes[i]).contiguous();
        pos += sizes[i];
      }
    });
  }
  return out;
}

std::vector<Tensor> split(Ctx& ctx, const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) {
  check(x.defined(), "split: undefined input");
  dim = detail::wrap_dim(dim, x.dim(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    check(s >= 0, "split: negative size");
    total += s;
  }
  check(total == x.shape()[dim], "split: sizes add up to " + std::to_string(total) + " but dimension " +
                                     std::to_string(dim) + " of " + shape_str(x.shape()) + " has " +
                                     std::to_string(x.shape()[dim]));
  std::vector<Tensor> outs;
  int64_t at = 0;
  for (int64_t s : sizes) {
    outs.push_back(x.narrow(dim, at, s));
    outs.back().set_autograd(nullptr);
    at += s;
  }
  if (recording(ctx, {x})) {
    std::vector<Tensor*> ptrs;
    for (Tensor& t : outs) ptrs.push_back(&t);
    const Shape in_shape = x.shape();
    Engine* engine = &ctx.engine;
    ctx.tape->record("split", {x}, ptrs, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
      Tensor g = Tensor::empty(in_shape, DType::f32, engine->allocator());
      int64_t pos = 0;
      for (size_t i = 0; i < sizes.size(); i++) {
        g.narrow(dim, pos, sizes[i]).copy_from(go[i]);
        pos += sizes[i];
      }
      gi[0] = g;
    });
  }
  return outs;
}

}  // namespace nanotrn::ops
