// Fused linear + softcap + cross-entropy. See cross_entropy.h.
#include "ops/cross_entropy.h"

#include <algorithm>
#include <cmath>

#include "base/lane_sum.h"
#include "dtype/convert.h"
#include "ops/fast_math.h"
#include "ops/op_util.h"

namespace nanotrn::ops {

namespace {

struct Prepared {
  Tensor x2, w, tgt;  // x as [N, C] contiguous, w [V, C], targets [N]
  Tensor xg, wg;      // GEMM operands (bf16 copies in bf16 mode, else x2 / w)
  int64_t N = 0, C = 0, V = 0, chunk = 0;
  int64_t count = 0;  // non-ignored targets
};

Prepared prepare(const Ctx& ctx, const Tensor& x, const Tensor& w, const Tensor& targets,
                 const CrossEntropyOptions& o) {
  detail::require_f32(x, "linear_cross_entropy", "x");
  detail::require_f32(w, "linear_cross_entropy", "w");
  check(targets.defined() && targets.dtype() == DType::i32, "linear_cross_entropy: targets must be i32");
  check(w.dim() == 2, "linear_cross_entropy: w must be [V, C], got " + shape_str(w.shape()));
  check(x.dim() >= 1 && x.size(-1) == w.size(1),
        "linear_cross_entropy: x " + shape_str(x.shape()) + " does not match w " + shape_str(w.shape()));
  check(targets.numel() * x.size(-1) == x.numel(),
        "linear_cross_entropy: " + std::to_string(targets.numel()) + " targets for x of shape " + shape_str(x.shape()));
  check(o.softcap >= 0.0f, "linear_cross_entropy: softcap must be >= 0");
  check(o.chunk_rows >= 0, "linear_cross_entropy: chunk_rows must be >= 0");
  Prepared p;
  p.C = x.size(-1);
  p.V = w.size(0);
  p.N = targets.numel();
  p.x2 = x.contiguous().view({p.N, p.C});
  p.w = w.contiguous();
  p.tgt = targets.contiguous().view({p.N});
  const int32_t* t = p.tgt.data<int32_t>();
  for (int64_t i = 0; i < p.N; i++) {
    if (t[i] == o.ignore_index) continue;
    check(t[i] >= 0 && t[i] < p.V, "linear_cross_entropy: target " + std::to_string(t[i]) + " at position " +
                                       std::to_string(i) + " is outside the vocabulary [0, " + std::to_string(p.V) +
                                       ")");
    p.count++;
  }
  p.chunk = o.chunk_rows > 0 ? o.chunk_rows : std::max<int64_t>(128, (int64_t{4} << 20) / std::max<int64_t>(1, p.V));
  p.chunk = std::max<int64_t>(1, std::min(p.chunk, p.N));
  const DType dt = ctx.matmul_dtype;
  p.xg = dt == DType::f32 ? p.x2 : p.x2.to(dt);
  p.wg = dt == DType::f32 ? p.w : p.w.to(dt);
  return p;
}

// C = op(A) op(B) (+ beta C) for contiguous row-major operands of the prepared GEMM dtype.
void gemm(Ctx& ctx, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const Tensor& a, const Tensor& b, float beta,
          float* c, int64_t a_offset_rows = 0, int64_t b_offset_rows = 0) {
  const GemmDims d{ta, tb, m, n, k, a.size(1), b.size(1), n};
  if (a.dtype() == DType::bf16) {
    ctx.engine.gemm().bf16(d, 1.0f, a.data<uint16_t>() + a_offset_rows * a.size(1),
                           b.data<uint16_t>() + b_offset_rows * b.size(1), beta, c);
  } else {
    ctx.engine.gemm().f32(d, 1.0f, a.data<float>() + a_offset_rows * a.size(1),
                          b.data<float>() + b_offset_rows * b.size(1), beta, c);
  }
}

// Runs every chunk. Writes per-row nll (if nll != nullptr) and, when dx/dw are defined, their unscaled gradients
// (of the mean loss). Returns the summed nll in double.
double run(Ctx& ctx, const Prepared& p, const CrossEntropyOptions& o, float* nll, const Tensor& dx, const Tensor& dw) {
  const int64_t V = p.V, C = p.C;
  Tensor logits = ctx.empty({p.chunk, V});
  Tensor dlg;  // d logits in the GEMM dtype (bf16 mode)
  const bool grads = dx.defined() || dw.defined();
  const float inv_count = p.count > 0 ? 1.0f / static_cast<float>(p.count) : 0.0f;
  const float cap = o.softcap;
  const int32_t* tg = p.tgt.data<int32_t>();
  double total = 0.0;
  for (int64_t r0 = 0; r0 < p.N; r0 += p.chunk) {
    const int64_t R = std::min(p.chunk, p.N - r0);
    float* L = logits.data<float>();
    gemm(ctx, false, true, R, V, C, p.xg, p.wg, 0.0f, L, r0, 0);
#pragma omp parallel for reduction(+ : total) schedule(static)
    for (int64_t r = 0; r < R; r++) {
      float* z = L + r * V;
      const int32_t t = tg[r0 + r];
      if (cap > 0.0f) {
        const float inv_cap = 1.0f / cap;
#pragma omp simd
        for (int64_t j = 0; j < V; j++) z[j] = cap * fast_tanh(z[j] * inv_cap);
      }
      const float m = lane_max(z, V);
      double s = 0.0;
#pragma omp simd reduction(+ : s)
      for (int64_t j = 0; j < V; j++) s += static_cast<double>(fast_exp(z[j] - m));
      const double lse = static_cast<double>(m) + std::log(s);
      const bool ignored = t == o.ignore_index;
      const double row_nll = ignored ? 0.0 : lse - static_cast<double>(z[t]);
      if (nll) nll[r0 + r] = static_cast<float>(row_nll);
      total += row_nll;
      if (!grads) continue;
      if (ignored) {
        for (int64_t j = 0; j < V; j++) z[j] = 0.0f;
        continue;
      }
      const float lse_f = static_cast<float>(lse);
      const float inv_cap = cap > 0.0f ? 1.0f / cap : 0.0f;
      const float ut = z[t] * inv_cap;
#pragma omp simd
      for (int64_t j = 0; j < V; j++) {
        const float prob = fast_exp(z[j] - lse_f);
        const float u = z[j] * inv_cap;  // tanh(logit / cap); 0 without a cap, so the factor below is 1
        z[j] = prob * inv_count * (1.0f - u * u);
      }
      z[t] -= inv_count * (1.0f - ut * ut);  // the one-hot term of d loss / d z
    }
    if (!grads) continue;
    Tensor dl = logits.narrow(0, 0, R);
    if (p.xg.dtype() == DType::bf16) {
      if (!dlg.defined()) dlg = ctx.empty({p.chunk, V}, DType::bf16);
      convert(L, DType::f32, dlg.data<uint16_t>(), DType::bf16, static_cast<size_t>(R * V));
      dl = dlg;
    }
    if (dx.defined()) gemm(ctx, false, false, R, C, V, dl, p.wg, 0.0f, dx.data<float>() + r0 * C);
    if (dw.defined()) gemm(ctx, true, false, V, C, R, dl, p.xg, r0 == 0 ? 0.0f : 1.0f, dw.data<float>(), 0, r0);
  }
  return total;
}

}  // namespace

Tensor linear_cross_entropy(Ctx& ctx, const Tensor& x, const Tensor& w, const Tensor& targets,
                            const CrossEntropyOptions& o) {
  Prepared p = prepare(ctx, x, w, targets, o);
  const bool rec = detail::recording(ctx, {x, w});
  Tensor dx = rec && x.requires_grad() ? ctx.empty(x.shape()) : Tensor();
  Tensor dw = rec && w.requires_grad() ? ctx.empty(w.shape()) : Tensor();
  if (dw.defined() && p.N == 0) dw.zero();
  const double total = run(ctx, p, o, nullptr, dx.defined() ? dx.view({p.N, p.C}) : Tensor(), dw);
  Tensor loss = ctx.empty({});
  loss.data<float>()[0] = p.count > 0 ? static_cast<float>(total / static_cast<double>(p.count)) : 0.0f;
  if (rec) {
    Engine* engine = &ctx.engine;
    ctx.tape->record("linear_cross_entropy", {x, w, targets}, {&loss},
                     [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
                       const float g = go[0].item();
                       auto scaled = [&](const Tensor& t) {
                         Tensor s = Tensor::empty(t.shape(), DType::f32, engine->allocator());
                         const float* src = t.data<float>();
                         float* dst = s.data<float>();
                         const int64_t n = t.numel();
#pragma omp parallel for if (n > 65536) schedule(static)
                         for (int64_t i = 0; i < n; i++) dst[i] = src[i] * g;
                         return s;
                       };
                       if (dx.defined()) gi[0] = scaled(dx);
                       if (dw.defined()) gi[1] = scaled(dw);
                     });
  }
  return loss;
}

Tensor linear_cross_entropy_per_token(Ctx& ctx, const Tensor& x, const Tensor& w, const Tensor& targets,
                                      const CrossEntropyOptions& o) {
  Prepared p = prepare(ctx, x, w, targets, o);
  Tensor nll = ctx.empty(targets.shape());
  run(ctx, p, o, nll.data<float>(), Tensor(), Tensor());
  return nll;
}

}  // namespace nanotrn::ops
