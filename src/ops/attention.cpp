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
