// Reductions. See reduce.h.
#include "ops/reduce.h"

#include <algorithm>

#include "base/lane_sum.h"
#include "ops/op_util.h"
#include "tensor/strided.h"

namespace nanotrn::ops {

using detail::recording;
using detail::require_f32;

namespace {

// Sums x (any strides) into a tensor of `keep_shape` (same rank as x, 1 on reduced dims), accumulating in double.
Tensor reduce_sum(const Ctx& ctx, const Tensor& x, const Shape& keep_shape) {
  Tensor out = ctx.empty(keep_shape);
  const int64_t n_out = out.numel();
  const int64_t n_in = x.numel();
  float* po = out.data<float>();
  const float* px = x.data<float>();
  if (n_out == 1) {
    // Full reduction: per-thread partial sums over rows.
    const Shape sx = x.strides();
    double total = 0.0;
    const int64_t nd = x.dim();
    const int64_t row = nd == 0 ? 1 : x.shape().back();
    const int64_t rows = row == 0 ? 0 : n_in / row;
    const int64_t ix = row_stride(sx);
#pragma omp parallel for reduction(+ : total) if (n_in > 65536) schedule(static)
    for (int64_t r = 0; r < rows; r++) {
      int64_t off = 0, rem = r;
      for (int64_t d = nd - 2; d >= 0; d--) {
        off += (rem % x.shape()[d]) * sx[d];
        rem /= x.shape()[d];
      }
      total += lane_accumulate<double>(row, [&](int64_t i) { return static_cast<double>(px[off + i * ix]); });
    }
    po[0] = static_cast<float>(total);
    return out;
  }
  // General case: walk the output index space; for each output element, sum over the reduced sub-space.
  const int64_t nd = x.dim();
  std::vector<int64_t> red_dims;
  for (int64_t d = 0; d < nd; d++) {
    if (keep_shape[d] == 1 && x.shape()[d] != 1) red_dims.push_back(d);
  }
  int64_t n_red = 1;
  for (int64_t d : red_dims) n_red *= x.shape()[d];
  const Shape& sx = x.strides();
  const Shape out_strides = contiguous_strides(keep_shape);
#pragma omp parallel for if (n_in > 65536) schedule(static)
  for (int64_t o = 0; o < n_out; o++) {
    int64_t base = 0, rem = o;
    for (int64_t d = 0; d < nd; d++) {
      const int64_t i = rem / out_strides[d];
      rem %= out_strides[d];
      base += i * sx[d];
    }
    double s = 0.0;
    for (int64_t r = 0; r < n_red; r++) {
      int64_t off = base, q = r;
      for (size_t k = red_dims.size(); k-- > 0;) {
        const int64_t d = red_dims[k];
        off += (q % x.shape()[d]) * sx[d];
        q /= x.shape()[d];
      }
      s += px[off];
    }
    po[o] = static_cast<float>(s);
  }
  return out;
}

Shape keep_shape_for(const Shape& shape, const std::vector<int64_t>& dims, const char* op) {
  Shape keep = shape;
  for (int64_t d : dims) keep[detail::wrap_dim(d, static_cast<int64_t>(shape.size()), op)] = 1;
  return keep;
}

Shape drop_reduced(const Shape& shape, const std::vector<int64_t>& dims) {
  std::vector<bool> drop(shape.size(), false);
  for (int64_t d : dims) drop[d < 0 ? d + static_cast<int64_t>(shape.size()) : d] = true;
  Shape out;
  for (size_t i = 0; i < shape.size(); i++) {
    if (!drop[i]) out.push_back(shape[i]);
  }
  return out;
}

Tensor sum_impl(Ctx& ctx, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim, float factor,
                const char* name) {
  require_f32(x, name, "x");
  const Shape keep = keep_shape_for(x.shape(), dims, name);
  Tensor out = reduce_sum(ctx, x, keep);
  if (factor != 1.0f) {
    float* p = out.data<float>();
    for (int64_t i = 0; i < out.numel(); i++) p[i] *= factor;
  }
  if (!keepdim) out = out.view(drop_reduced(x.shape(), dims));
  if (recording(ctx, {x})) {
    const Shape in_shape = x.shape();
    Engine* engine = &ctx.engine;
    ctx.tape->record(name, {x}, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
      Ctx bc{*engine};
      Tensor g = go[0].contiguous().view(keep);
      Tensor e = expand_to_shape(bc, g, in_shape);
      if (factor != 1.0f) {
        float* p = e.data<float>();
        const int64_t n = e.numel();
#pragma omp parallel for if (n > 65536)
        for (int64_t i = 0; i < n; i++) p[i] *= factor;
      }
      gi[0] = e;
    });
  }
  return out;
}

std::vector<int64_t> all_dims(const Tensor& x) {
  std::vector<int64_t> d(static_cast<size_t>(x.dim()));
  for (int64_t i = 0; i < x.dim(); i++) d[i] = i;
  return d;
}

}  // namespace

Tensor sum(Ctx& ctx, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  return sum_impl(ctx, x, dims, keepdim, 1.0f, "sum");
}

Tensor mean(Ctx& ctx, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  require_f32(x, "mean", "x");
  const Shape keep = keep_shape_for(x.shape(), dims, "mean");
  const int64_t count = keep.empty() ? 1 : x.numel() / std::max<int64_t>(1, shape_numel(keep));
  check(count > 0, "mean: reduction over an empty dimension");
  return sum_impl(ctx, x, dims, keepdim, 1.0f / static_cast<float>(count), "mean");
}

Tensor sum(Ctx& ctx, const Tensor& x) { return sum(ctx, x, all_dims(x), false); }
Tensor mean(Ctx& ctx, const Tensor& x) { return mean(ctx, x, all_dims(x), false); }

Tensor sum_to_shape(const Ctx& ctx, const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x.contiguous();
  check(shape.size() <= x.shape().size(),
        "sum_to_shape: cannot reduce " + shape_str(x.shape()) + " to " + shape_str(shape));
  const size_t lead = x.shape().size() - shape.size();
  Shape keep(x.shape().size(), 1);
  for (size_t i = 0; i < shape.size(); i++) {
    check(shape[i] == 1 || shape[i] == x.shape()[lead + i],
          "sum_to_shape: cannot reduce " + shape_str(x.shape()) + " to " + shape_str(shape));
    keep[lead + i] = shape[i];
  }
  return reduce_sum(ctx, x, keep).view(shape);
}

Tensor expand_to_shape(const Ctx& ctx, const Tensor& x, const Shape& shape) {
  Tensor out = ctx.empty(shape);
  const Shape sx = broadcast_strides(x.shape(), x.strides(), shape);
  const Shape so = out.strides();
  const float* px = x.data<float>();
  float* po = out.data<float>();
  const int64_t ix = row_stride(sx);
  for_each_row<2>(shape, {&so, &sx}, [&](int64_t n, const std::array<int64_t, 2>& off) {
    for (int64_t i = 0; i < n; i++) po[off[0] + i] = px[off[1] + i * ix];
  });
  return out;
}

}  // namespace nanotrn::ops
