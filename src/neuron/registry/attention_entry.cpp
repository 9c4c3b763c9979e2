// The fused attention forward kernel's definition (kernels/attention.h): o = softmax(q k^T / sqrt(d)) v of stacked
// heads under the shape's variant; an SPMD launch gives each core whole kv groups.
// Check: |o - ref| <= u |ref| + (2^-8 + (2 T + d + 32) e + 2 delta) A, with A = sum_s p_s |v_s| / sum_s p_s (the
// probability-weighted mean |v|), delta = (d + 10) e max_s scale sum_i |q_i k_si| (the fp32 error of a score and of
// its exp argument; with ALiBi also 4 e (bias + |score|) for the bias's roundings): P is rounded to bf16 for the P V
// matmul (2^-8 relative each, while the row sum adds the unrounded fp32 values), the exp arguments carry delta each,
// the T-term sums and rescales carry fp32 rounding, then the output rounding u. The reference is softmax attention
// in fp64 on the inputs rounded to bf16 (the kernel's compute dtype), with the kernel's fp32 scale 1/sqrt(d).
// Inputs: q, k uniform [-2, 2), v [-1, 1).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "dtype/convert.h"
#include "neuron/kernels/attention.h"
#include "neuron/registry/attention_params.h"
#include "neuron/registry/builtin_kernels.h"
#include "neuron/registry/check_support.h"

namespace nanotrn::neuron {
namespace {

// Softmax attention under the options' variant (mask, ALiBi, kv group) of every stacked head in fp64 on the
// bf16-rounded inputs (see the bound at the top of this file).
CheckOutcome check_attention_forward(const AttentionShape& o, DType dtype, const HostTensors& in,
                                     const HostTensors& outs) {
  CheckOutcome c;
  c.rule = "|o - ref| <= u_out |ref| + (2^-8 + (2 T + d + 32) 2^-24 + 2 delta) A";
  const std::vector<float>& out = outs[0];
  const int64_t t_len = o.seq, d = o.head_dim, group = o.variant.group, kv_heads = o.heads / group;
  const double e = std::ldexp(1.0, -24), u = unit_roundoff(dtype), ub = std::ldexp(1.0, -8);
  const auto scale = static_cast<double>(static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))));
  const auto cap = static_cast<double>(o.variant.softcap);
  // The inputs as the kernel computes on them (bf16), rounded once, as rows [head T + t, d].
  auto rows_of = [&](const std::vector<float>& x, int64_t heads, bool transposed) {
    std::vector<double> r(static_cast<size_t>(heads * t_len * d));
    for (int64_t row = 0; row < heads * t_len; ++row)
      for (int64_t i = 0; i < d; ++i)
        r[static_cast<size_t>(row * d + i)] = static_cast<double>(
            round_to(DType::bf16, x[static_cast<size_t>(transposed ? i * heads * t_len + row : row * d + i)]));
    return r;
  };
  const std::vector<double> q = rows_of(in[0], o.heads, true), k = rows_of(in[1], kv_heads, true),
                            v = rows_of(in[2], kv_heads, false);
  // Each query row's reference and per-element bound on OpenMP threads (row-private scratch), then compared in order.
  const int64_t rows = o.heads * t_len;
  std::vector<double> ref(static_cast<size_t>(rows * d)), bound(ref.size());
#pragma omp parallel
  {
    std::vector<double> s(static_cast<size_t>(t_len)), acc(static_cast<size_t>(d)), abs_acc(static_cast<size_t>(d));
#pragma omp for schedule(dynamic, 16)
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t h = row / t_len, t = row % t_len, kvh = h / group;
      const double slope = o.variant.alibi() ? static_cast<double>(o.variant.alibi_slopes[static_cast<size_t>(h)]) : 0;
      const double* qt = q.data() + row * d;
      double mx = -INFINITY, delta = 0;
      for (int64_t j = 0; j < t_len; ++j) {
        s[static_cast<size_t>(j)] = -INFINITY;  // masked: its exp below is 0
        if (!o.variant.visible(t, j)) continue;
        const double* kj = k.data() + (kvh * t_len + j) * d;
        double dot = 0, m = 0;
#pragma omp simd reduction(+ : dot, m)
        for (int64_t i = 0; i < d; ++i) {
          dot += qt[i] * kj[i];
          m += std::fabs(qt[i] * kj[i]);
        }
        // ALiBi: the kernel adds fl(-fl(slope / scale) |t - j|) to the fp32 score (one rounding each), then scales.
        // Softcap c: the score is c tanh(scale q.k / c) (the kernel's fp32 tanh and its product by c: 4 e c more;
        // an error in q.k passes through with the factor 1 - tanh^2 <= 1).
        const double bias = slope * static_cast<double>(std::llabs(t - j));
        const double capped = cap > 0 ? cap * std::tanh(scale * dot / cap) : scale * dot;
        const double sc = capped - bias;
        s[static_cast<size_t>(j)] = sc;
        mx = std::max(mx, sc);
        delta = std::max(delta, static_cast<double>(d + 10) * e * scale * m + 4 * e * (bias + std::fabs(sc) + cap));
      }
      double l = 0;
      std::fill(acc.begin(), acc.end(), 0.0);
      std::fill(abs_acc.begin(), abs_acc.end(), 0.0);
      for (int64_t j = 0; j < t_len; ++j) {
        const double p = std::exp(s[static_cast<size_t>(j)] - mx);
        if (p == 0) continue;
        l += p;
        const double* vj = v.data() + (kvh * t_len + j) * d;
        for (int64_t i = 0; i < d; ++i) {
          acc[static_cast<size_t>(i)] += p * vj[i];
          abs_acc[static_cast<size_t>(i)] += p * std::fabs(vj[i]);
        }
      }
      const double rel = ub + static_cast<double>(2 * t_len + d + 32) * e + 2 * delta;
      for (int64_t i = 0; i < d; ++i) {
        const double r = acc[static_cast<size_t>(i)] / l, a = abs_acc[static_cast<size_t>(i)] / l;
        ref[static_cast<size_t>(row * d + i)] = r;
        bound[static_cast<size_t>(row * d + i)] = u * std::fabs(r) + rel * a;
      }
    }
  }
  for (size_t i = 0; i < ref.size(); ++i) c.compare(static_cast<double>(out[i]), ref[i], bound[i]);
  return c;
}

}  // namespace

KernelDefinition<AttentionShape> attention_definition() {
  KernelDefinition<AttentionShape> d;
  d.name = "attention";
  d.description =
      "fused attention o = softmax(q k^T / sqrt(d)) v of stacked heads (causal, dense or sliding window; ALiBi; "
      "GQA) (q_t, k_t [d, heads T], v, o [heads T, d]; T % 128 == 0, d <= 128 or 256/384/512): online softmax over "
      "<= 512-key blocks in PSUM/SBUF, masked blocks skipped, diagonal mask by affine_select, P^T on TensorE; "
      "pipelined: blocks software-pipelined (scores 3 blocks ahead, accumulator 2 behind)";
  set_attention_parts(d);
  d.build = [](KernelBuilder& b, const AttentionShape& s, const KernelContext& c, KernelIo& io) {
    check_attention_shape(s, c.cores);
    const int64_t t = s.seq, hd = s.head_dim, g = s.variant.group, rows = s.heads * t, kv_rows = rows / g;
    const View qt = io.add_input(b.hbm("q_t", hd, rows, c.dtype));
    const View kt = io.add_input(b.hbm("k_t", hd, kv_rows, c.dtype));
    const View v = io.add_input(b.hbm("v", kv_rows, hd, c.dtype));
    const View bounds = s.variant.bounded() ? io.add_input(b.hbm("bounds", t, 2, DType::f32)) : View{};
    const View y = b.hbm("o", rows, hd, c.dtype);
    const auto [lo, hi] = core_share(s.heads / g, c.core, c.cores);  // whole kv groups per core
    const View w = io.add_output(y, b.slice(y, lo * g * t, (hi - lo) * g * t, 0, hd));
    attention_kernel(b, b.slice(qt, 0, hd, lo * g * t, (hi - lo) * g * t), b.slice(kt, 0, hd, lo * t, (hi - lo) * t),
                     b.slice(v, lo * t, (hi - lo) * t, 0, hd), w, bounds, (hi - lo) * g,
                     heads_variant(s.variant, lo * g, hi * g), c.schedule);
  };
  d.inputs = [](const AttentionShape& s, DType t, uint64_t seed) {
    SeededInputs in(seed, t);
    const auto n = static_cast<size_t>(s.heads * s.seq * s.head_dim), nkv = n / static_cast<size_t>(s.variant.group);
    std::vector<float> q = in.uniform(n, -2, 2);
    std::vector<float> k = in.uniform(nkv, -2, 2);
    HostTensors all{q, k, in.uniform(nkv, -1, 1)};
    if (s.variant.bounded()) all.push_back(bounds_tensor(s.variant));
    return all;
  };
  d.check = check_attention_forward;
  // attention-gym's convention: 4 d + 2 FLOPs per visible (query, key) pair (two matmuls and the softmax).
  d.flops = [](const AttentionShape& s) {
    return static_cast<double>(s.heads) * s.variant.pairs(s.seq) * static_cast<double>(4 * s.head_dim + 2);
  };
  d.hbm_bytes = [](const AttentionShape& s, DType t) {  // q, k, v in, o out
    const auto q = static_cast<double>(s.heads * s.seq * s.head_dim * static_cast<int64_t>(dtype_size(t)));
    return 2 * q + 2 * q / static_cast<double>(s.variant.group);
  };
  return d;
}

}  // namespace nanotrn::neuron
