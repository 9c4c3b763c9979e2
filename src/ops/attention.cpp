// Attention op: argument checks, the saved state, and the tape entry around the flash kernels. See attention.h.
#include "ops/attention.h"

#include <cmath>

#include "ops/attention_kernels.h"
#include "ops/op_util.h"

namespace nanotrn::ops {

std::vector<float> alibi_slopes(int64_t H) {
  check(H > 0, "alibi_slopes: H must be > 0");
  auto pow2_slopes = [](int64_t n) {
    std::vector<float> s(static_cast<size_t>(n));
    for (int64_t h = 0; h < n; h++) s[h] = static_cast<float>(std::pow(2.0, -8.0 * static_cast<double>(h + 1) / n));
    return s;
  };
  int64_t p = 1;
  while (p * 2 <= H) p *= 2;
  std::vector<float> s = pow2_slopes(p);
  if (p < H) {
    const std::vector<float> extra = pow2_slopes(2 * p);
    for (int64_t i = 0; static_cast<int64_t>(s.size()) < H; i += 2) s.push_back(extra[i]);
  }
  return s;
}

namespace {

// Per (b, h, i): w = sigmoid(lse - sink_h), the share of the softmax the visible keys keep beside the sink (0 for a
// row with no visible key). Threaded, element by element.
std::vector<float> sink_weights(const Tensor& lse, const Tensor& sinks) {
  const int64_t B = lse.size(0), H = lse.size(1), Tq = lse.size(2);
  const float* l = lse.data<float>();
  const std::vector<float> s = sinks.contiguous().to_vector();
  std::vector<float> w(static_cast<size_t>(B * H * Tq));
#pragma omp parallel for if (B * H * Tq > 32768) schedule(static)
  for (int64_t r = 0; r < B * H * Tq; ++r) {
    const float x = l[r] - s[static_cast<size_t>((r / Tq) % H)];
    w[static_cast<size_t>(r)] = std::isinf(l[r]) ? 0.0f : 1.0f / (1.0f + std::exp(-x));
  }
  return w;
}

// out [B, Tq, H, D] times w [B, H, Tq] per row (threaded: each element its own product, so any thread count gives
// the same bits).
Tensor scale_rows(const std::shared_ptr<CachingAllocator>& alloc, const Tensor& out, const std::vector<float>& w) {
  const int64_t B = out.size(0), Tq = out.size(1), H = out.size(2), D = out.size(3);
  Tensor y = Tensor::empty(out.shape(), DType::f32, alloc);
  const float* o = out.data<float>();
  float* py = y.data<float>();
#pragma omp parallel for collapse(2) if (out.numel() > 32768) schedule(static)
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < Tq; ++i)
      for (int64_t h = 0; h < H; ++h) {
        const float wi = w[static_cast<size_t>((b * H + h) * Tq + i)];
        const int64_t at = ((b * Tq + i) * H + h) * D;
        for (int64_t c = 0; c < D; ++c) py[at + c] = o[at + c] * wi;
      }
  return y;
}

// The attention output with sinks (AttentionOptions::sinks) from the kernels' out and lse, and its tape entry.
Tensor with_sinks(Ctx& ctx, const std::vector<Tensor>& inputs, const Tensor& out, const Tensor& lse,
                  const AttentionMods& mods, const std::shared_ptr<std::vector<float>>& slopes, const Tensor& seg) {
  const Tensor& sinks = inputs[3];
  const int64_t B = out.size(0), Tq = out.size(1), H = out.size(2), D = out.size(3);
  check(sinks.dtype() == DType::f32 && sinks.shape() == Shape({H}),
        "attention: sinks must be f32 [H] = " + shape_str({H}) + ", got " + shape_str(sinks.shape()));
  const std::vector<float> w = sink_weights(lse, sinks);
  Tensor y = scale_rows(ctx.engine.allocator(), out, w);
  if (!detail::recording(ctx, inputs)) return y;
  const Tensor q = inputs[0].contiguous(), k = inputs[1].contiguous(), v = inputs[2].contiguous();
  const int64_t Tk = k.size(1), Hkv = k.size(2);
  Engine* engine = &ctx.engine;
  ctx.tape->record("attention", inputs, {&y}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
    // y = out w: dout = dy w; dw = <dy, out>; w = sigmoid(lse - sink) gives dlse = dw w (1 - w) = -dsink.
    const Tensor g = go[0].contiguous();
    const auto& alloc = engine->allocator();
    const Tensor dout = scale_rows(alloc, g, w);
    std::vector<float> dlse(w.size(), 0.0f);
    std::vector<double> dsink(static_cast<size_t>(H), 0.0);
    const float *pg = g.data<float>(), *po = out.data<float>();
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < Tq; ++i)
        for (int64_t h = 0; h < H; ++h) {
          const size_t r = static_cast<size_t>((b * H + h) * Tq + i);
          const int64_t at = ((b * Tq + i) * H + h) * D;
          double dw = 0.0;
          for (int64_t c = 0; c < D; ++c) dw += static_cast<double>(pg[at + c]) * po[at + c];
          dlse[r] = static_cast<float>(dw * w[r] * (1.0 - w[r]));
          dsink[static_cast<size_t>(h)] -= dlse[r];
        }
    Tensor dq = Tensor::empty(q.shape(), DType::f32, alloc), dk = Tensor::empty(k.shape(), DType::f32, alloc),
           dv = Tensor::empty(v.shape(), DType::f32, alloc);
    AttentionMods m = mods;
    m.alibi_slopes = slopes->empty() ? nullptr : slopes->data();
    m.segment_ids = seg.defined() ? seg.data<int32_t>() : nullptr;
    attention_backward(dq.data<float>(), dk.data<float>(), dv.data<float>(), dout.data<float>(), q.data<float>(),
                       k.data<float>(), v.data<float>(), out.data<float>(), lse.data<float>(), B, Tq, Tk, H, Hkv, D, m,
                       dlse.data());
    std::vector<float> ds(dsink.begin(), dsink.end());
    gi[0] = dq;
    gi[1] = dk;
    gi[2] = dv;
    gi[3] = Tensor::from_vector({H}, ds, alloc);
  });
  return y;
}

}  // namespace

Tensor attention(Ctx& ctx, const Tensor& q_in, const Tensor& k_in, const Tensor& v_in, const AttentionOptions& o) {
  detail::require_f32(q_in, "attention", "q");
  detail::require_f32(k_in, "attention", "k");
  detail::require_f32(v_in, "attention", "v");
  check(q_in.dim() == 4 && k_in.dim() == 4 && v_in.dim() == 4,
        "attention: q, k, v must be [B, T, heads, D], got " + shape_str(q_in.shape()) + ", " + shape_str(k_in.shape()) +
            ", " + shape_str(v_in.shape()));
  check(k_in.shape() == v_in.shape(),
        "attention: k " + shape_str(k_in.shape()) + " and v " + shape_str(v_in.shape()) + " differ");
  const int64_t B = q_in.size(0), Tq = q_in.size(1), H = q_in.size(2), D = q_in.size(3);
  const int64_t Tk = k_in.size(1), Hkv = k_in.size(2);
  check(k_in.size(0) == B && k_in.size(3) == D, "attention: q " + shape_str(q_in.shape()) + " and k " +
                                                    shape_str(k_in.shape()) + " disagree on batch or head dim");
  check(o.alibi_slopes.empty() || static_cast<int64_t>(o.alibi_slopes.size()) == H,
        "attention: " + std::to_string(o.alibi_slopes.size()) + " ALiBi slopes for " + std::to_string(H) + " heads");
  Tensor seg;
  if (o.segment_ids.defined()) {
    check(o.segment_ids.dtype() == DType::i32 && o.segment_ids.shape() == Shape({B, Tk}),
          "attention: segment_ids must be i32 [B, Tk] = " + shape_str({B, Tk}) + ", got " +
              shape_str(o.segment_ids.shape()));
    seg = o.segment_ids.contiguous();
  }
  Tensor q = q_in.contiguous(), k = k_in.contiguous(), v = v_in.contiguous();
  auto slopes = std::make_shared<std::vector<float>>(o.alibi_slopes);
  AttentionMods mods;
  mods.causal = o.causal;
  mods.window = o.window;
  mods.softcap = o.softcap;
  mods.scale = o.scale;
  mods.alibi_slopes = slopes->empty() ? nullptr : slopes->data();
  mods.segment_ids = seg.defined() ? seg.data<int32_t>() : nullptr;

  Tensor out = ctx.empty({B, Tq, H, D});
  Tensor lse = ctx.empty({B, H, Tq});
  attention_forward(out.data<float>(), lse.data<float>(), q.data<float>(), k.data<float>(), v.data<float>(), B, Tq, Tk,
                    H, Hkv, D, mods);
  if (o.sinks.defined()) return with_sinks(ctx, {q_in, k_in, v_in, o.sinks}, out, lse, mods, slopes, seg);
  if (detail::recording(ctx, {q_in, k_in, v_in})) {
    Engine* engine = &ctx.engine;
    Tensor y = out;
    ctx.tape->record("attention", {q_in, k_in, v_in}, {&out},
                     [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
                       Tensor g = go[0].contiguous();
                       const auto& alloc = engine->allocator();
                       Tensor dq = Tensor::empty(q.shape(), DType::f32, alloc);
                       Tensor dk = Tensor::empty(k.shape(), DType::f32, alloc);
                       Tensor dv = Tensor::empty(v.shape(), DType::f32, alloc);
                       AttentionMods m = mods;
                       m.alibi_slopes = slopes->empty() ? nullptr : slopes->data();
                       m.segment_ids = seg.defined() ? seg.data<int32_t>() : nullptr;
                       attention_backward(dq.data<float>(), dk.data<float>(), dv.data<float>(), g.data<float>(),
                                          q.data<float>(), k.data<float>(), v.data<float>(), y.data<float>(),
                                          lse.data<float>(), B, Tq, Tk, H, Hkv, D, m);
                       gi[0] = dq;
                       gi[1] = dk;
                       gi[2] = dv;
                     });
  }
  return out;
}

}  // namespace nanotrn::ops
