// Activations and softmax. See activation.h.
#include "ops/activation.h"

#include <algorithm>
#include <cmath>

#include "base/lane_sum.h"
#include "ops/fast_math.h"
#include "ops/op_util.h"

namespace nanotrn::ops {

using detail::recording;
using detail::require_f32;

namespace {

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;
constexpr float kSqrt2OverPi = 0.79788456080286536f;

struct Relu2 {
  float fwd(float x) const { return x > 0.0f ? x * x : 0.0f; }
  float grad(float x) const { return x > 0.0f ? 2.0f * x : 0.0f; }
};
struct LeakyRelu2 {
  float slope;
  float fwd(float x) const {
    const float r = x > 0.0f ? x : slope * x;
    return r * r;
  }
  float grad(float x) const { return x > 0.0f ? 2.0f * x : 2.0f * slope * slope * x; }
};
struct GeluErf {
  float fwd(float x) const { return 0.5f * x * (1.0f + std::erf(x * kInvSqrt2)); }
  float grad(float x) const {
    return 0.5f * (1.0f + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5f * x * x);
  }
};
struct GeluTanh {
  float fwd(float x) const { return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x))); }
  float grad(float x) const {
    const float u = kSqrt2OverPi * (x + 0.044715f * x * x * x);
    const float t = std::tanh(u);
    const float du = kSqrt2OverPi * (1.0f + 3.0f * 0.044715f * x * x);
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * du;
  }
};
struct Sigmoid {
  float fwd(float x) const { return 1.0f / (1.0f + std::exp(-x)); }
  float grad(float x) const {
    const float s = fwd(x);
    return s * (1.0f - s);
  }
};
struct Silu {
  float fwd(float x) const { return x / (1.0f + std::exp(-x)); }
  float grad(float x) const {
    const float s = 1.0f / (1.0f + std::exp(-x));
    return s * (1.0f + x * (1.0f - s));
  }
};
struct Tanh {
  float fwd(float x) const { return std::tanh(x); }
  float grad(float x) const {
    const float t = std::tanh(x);
    return 1.0f - t * t;
  }
};
// The same tanh as the fused cross-entropy's softcap (fast_math.h), so that the head's capped logits and the training
// loss's are one function; it vectorises where libm's tanhf does not (the CORE scorer runs the head through this op).
struct Softcap {
  float cap, inv_cap;
  float fwd(float x) const { return cap * fast_tanh(x * inv_cap); }
  float grad(float x) const {
    const float t = fast_tanh(x * inv_cap);
    return 1.0f - t * t;
  }
};

struct Clamp {
  float lo, hi;
  float fwd(float x) const { return std::min(std::max(x, lo), hi); }
  float grad(float x) const { return lo <= x && x <= hi ? 1.0f : 0.0f; }
};

template <typename F>
Tensor unary(Ctx& ctx, const Tensor& x_in, F f, const char* name) {
  require_f32(x_in, name, "x");
  Tensor x = x_in.contiguous();
  Tensor out = ctx.empty(x.shape());
  const float* px = x.data<float>();
  float* py = out.data<float>();
  const int64_t n = x.numel();
#pragma omp parallel for if (n > 32768) schedule(static)
  for (int64_t i = 0; i < n; i++) py[i] = f.fwd(px[i]);
  if (recording(ctx, {x_in})) {
    Engine* engine = &ctx.engine;
    ctx.tape->record(name, {x_in}, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
      Tensor g = go[0].contiguous();
      Tensor dx = Tensor::empty(x.shape(), DType::f32, engine->allocator());
      const float* pg = g.data<float>();
      const float* xs = x.data<float>();
      float* pd = dx.data<float>();
#pragma omp parallel for if (n > 32768) schedule(static)
      for (int64_t i = 0; i < n; i++) pd[i] = pg[i] * f.grad(xs[i]);
      gi[0] = dx;
    });
  }
  return out;
}

}  // namespace

Tensor relu2(Ctx& ctx, const Tensor& x) { return unary(ctx, x, Relu2{}, "relu2"); }
Tensor leaky_relu2(Ctx& ctx, const Tensor& x, float slope) { return unary(ctx, x, LeakyRelu2{slope}, "leaky_relu2"); }
Tensor gelu(Ctx& ctx, const Tensor& x, bool tanh_approximation) {
  return tanh_approximation ? unary(ctx, x, GeluTanh{}, "gelu_tanh") : unary(ctx, x, GeluErf{}, "gelu");
}
Tensor silu(Ctx& ctx, const Tensor& x) { return unary(ctx, x, Silu{}, "silu"); }
Tensor sigmoid(Ctx& ctx, const Tensor& x) { return unary(ctx, x, Sigmoid{}, "sigmoid"); }
Tensor tanh(Ctx& ctx, const Tensor& x) { return unary(ctx, x, Tanh{}, "tanh"); }
Tensor tanh_softcap(Ctx& ctx, const Tensor& x, float cap) {
  check(cap > 0.0f, "tanh_softcap: cap must be > 0, got " + std::to_string(cap));
  return unary(ctx, x, Softcap{cap, 1.0f / cap}, "tanh_softcap");
}

Tensor clamp(Ctx& ctx, const Tensor& x, float lo, float hi) {
  check(lo <= hi, "clamp: lo (" + std::to_string(lo) + ") must be <= hi (" + std::to_string(hi) + ")");
  return unary(ctx, x, Clamp{lo, hi}, "clamp");
}

Tensor softmax(Ctx& ctx, const Tensor& x_in) {
  require_f32(x_in, "softmax", "x");
  check(x_in.dim() >= 1, "softmax: needs at least one dimension");
  Tensor x = x_in.contiguous();
  const int64_t n = x.size(-1), rows = n == 0 ? 0 : x.numel() / n;
  Tensor out = ctx.empty(x.shape());
  const float* px = x.data<float>();
  float* py = out.data<float>();
#pragma omp parallel for if (x.numel() > 32768) schedule(static)
  for (int64_t r = 0; r < rows; r++) {
    const float* xr = px + r * n;
    float* yr = py + r * n;
    const float m = lane_max(xr, n);
    float s = 0.0f;
    for (int64_t i = 0; i < n; i++) {
      yr[i] = std::exp(xr[i] - m);
      s += yr[i];
    }
    const float inv = 1.0f / s;
    for (int64_t i = 0; i < n; i++) yr[i] *= inv;
  }
  if (recording(ctx, {x_in})) {
    Engine* engine = &ctx.engine;
    Tensor y = out;
    ctx.tape->record("softmax", {x_in}, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
      Tensor g = go[0].contiguous();
      Tensor dx = Tensor::empty(y.shape(), DType::f32, engine->allocator());
      const float* pg = g.data<float>();
      const float* pyv = y.data<float>();
      float* pd = dx.data<float>();
#pragma omp parallel for if (y.numel() > 32768) schedule(static)
      for (int64_t r = 0; r < rows; r++) {
        double dot = 0.0;
        for (int64_t i = 0; i < n; i++) dot += static_cast<double>(pg[r * n + i]) * pyv[r * n + i];
        const float d = static_cast<float>(dot);
        for (int64_t i = 0; i < n; i++) pd[r * n + i] = pyv[r * n + i] * (pg[r * n + i] - d);
      }
      gi[0] = dx;
    });
  }
  return out;
}

}  // namespace nanotrn::ops
