// The attention backward kernel's host check (see attention_backward_check.h).
#include "neuron/registry/attention_backward_check.h"

#include <algorithm>
#include <cmath>

#include "dtype/convert.h"
#include "neuron/registry/attention_params.h"
#include "neuron/registry/check_support.h"
#include "ref/attention_ref.h"

namespace nanotrn::neuron {
namespace {

constexpr double kSecondOrder = 1.25;

// The reference's modifiers for kv head `kv` (its group's query heads are the reference's H = group heads, so
// their ALiBi slopes are theirs).
ref::AttentionSpec mods_of(const AttentionShape& o, int64_t kv) {
  ref::AttentionSpec m;
  m.causal = o.variant.mask != AttentionMask::none;
  m.window = o.variant.mask == AttentionMask::sliding_window ? o.variant.window : 0;
  m.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(o.head_dim)));  // the kernel's fp32 scale
  m.softcap = o.variant.softcap;
  m.bound_min.assign(o.variant.bound_min.begin(), o.variant.bound_min.end());
  m.bound_max.assign(o.variant.bound_max.begin(), o.variant.bound_max.end());
  if (o.variant.alibi()) {
    const auto first = o.variant.alibi_slopes.begin() + kv * o.variant.group;
    m.alibi_slopes.assign(first, first + o.variant.group);
  }
  return m;
}

// Kernel layout [heads T, d] (head-major) <-> the reference's [1, T, group, d] of one kv head's query heads.
std::vector<double> group_rows(const std::vector<double>& x, const AttentionShape& o, int64_t kv) {
  const int64_t T = o.seq, d = o.head_dim, g = o.variant.group;
  std::vector<double> r(static_cast<size_t>(g * T * d));
  for (int64_t h = 0; h < g; ++h)
    for (int64_t t = 0; t < T; ++t) std::copy_n(x.data() + ((kv * g + h) * T + t) * d, d, r.data() + (t * g + h) * d);
  return r;
}
// Writes the group's heads as kernel rows from head `head0` of x on.
template <typename V>
void ungroup_rows(const std::vector<double>& r, const AttentionShape& o, int64_t head0, V& x) {
  const int64_t T = o.seq, d = o.head_dim, g = o.variant.group;
  for (int64_t h = 0; h < g; ++h)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t i = 0; i < d; ++i)
        x[static_cast<size_t>(((head0 + h) * T + t) * d + i)] =
            static_cast<typename V::value_type>(r[static_cast<size_t>((t * g + h) * d + i)]);
}
std::vector<double> kv_rows(const std::vector<double>& x, const AttentionShape& o, int64_t kv) {
  const int64_t n = o.seq * o.head_dim;
  return {x.begin() + kv * n, x.begin() + (kv + 1) * n};
}

std::vector<double> widen(const std::vector<float>& v, DType t) {
  std::vector<double> w(v.size());
  for (size_t i = 0; i < v.size(); ++i) w[i] = static_cast<double>(round_to(t, v[i]));
  return w;
}

}  // namespace

HostTensors make_attention_backward_inputs(const AttentionShape& o, DType dtype, uint64_t seed) {
  SeededInputs in(seed, dtype);
  const int64_t group = o.variant.group;
  const auto n = static_cast<size_t>(o.heads * o.seq * o.head_dim), nkv = n / static_cast<size_t>(group);
  std::vector<float> q = in.uniform(n, -2, 2);
  std::vector<float> k = in.uniform(nkv, -2, 2);
  std::vector<float> v = in.uniform(nkv, -1, 1);
  std::vector<float> dout = in.uniform(n, -1, 1);
  const std::vector<double> qw = widen(q, DType::bf16), kw = widen(k, DType::bf16), vw = widen(v, DType::bf16);
  std::vector<float> of(n), lf(static_cast<size_t>(o.heads * o.seq));
  for (int64_t kv = 0; kv < o.heads / group; ++kv) {
    std::vector<double> lse;  // [1, group, T]
    const std::vector<double> out =
        ref::attention_forward_ref(group_rows(qw, o, kv), kv_rows(kw, o, kv), kv_rows(vw, o, kv), 1, o.seq, o.seq,
                                   group, 1, o.head_dim, mods_of(o, kv), &lse);
    ungroup_rows(out, o, kv * group, of);
    for (size_t i = 0; i < lse.size(); ++i)
      lf[static_cast<size_t>(kv * group * o.seq) + i] = static_cast<float>(lse[i]);
  }
  for (float& x : of) x = round_to(dtype, x);
  HostTensors all{q, k, v, of, dout, lf};
  if (o.variant.bounded()) all.push_back(bounds_tensor(o.variant));
  return all;
}

CheckOutcome check_attention_backward(const AttentionShape& o, DType dtype, const HostTensors& in,
                                      const HostTensors& out) {
  CheckOutcome c;
  c.rule =
      "per element: first-order fp32 / bf16 rounding of P, dS and the T-term sums, x1.25, + u |ref| "
      "(attention_backward_check.h)";
  const int64_t T = o.seq, d = o.head_dim, group = o.variant.group;
  const double e = std::ldexp(1.0, -24), b = std::ldexp(1.0, -8), u = unit_roundoff(dtype);
  const auto scale = static_cast<double>(mods_of(o, 0).scale), cap = static_cast<double>(o.variant.softcap);
  const std::vector<double> q = widen(in[0], DType::bf16), k = widen(in[1], DType::bf16), v = widen(in[2], DType::bf16);
  const std::vector<double> y = widen(in[3], DType::bf16), dy = widen(in[4], DType::bf16);
  const std::vector<double> lse(in[5].begin(), in[5].end());
  // dQ: T terms in fp32 per head; dK, dV: T per query head, then the group's partial sums in fp32.
  const auto nsum_q = static_cast<double>(T + 2) * e, nsum_kv = static_cast<double>(group * (T + 1) + 2) * e;
  const auto sz = static_cast<size_t>(T * d);
  std::vector<double> bk(sz), bv(sz), bq(static_cast<size_t>(group) * sz), dq_ref(static_cast<size_t>(group) * sz);
  std::vector<double> cv(static_cast<size_t>(T * T)), ck(cv.size());  // per (t, s): dV's and dK's bound coefficients
  auto compare = [&](double got, double ref, double first_order) {
    const double bound = kSecondOrder * first_order * (1 + e) + u * std::fabs(ref);
    const double err = std::fabs(got - ref);
    c.max_abs_error = std::max(c.max_abs_error, err);
    c.max_bound = std::max(c.max_bound, bound);
    if (!(err <= bound)) ++c.failures;
  };
  for (int64_t kv = 0; kv < o.heads / group; ++kv) {
    const ref::AttentionGradsRef g =
        ref::attention_backward_ref(group_rows(dy, o, kv), group_rows(q, o, kv), kv_rows(k, o, kv), kv_rows(v, o, kv),
                                    1, T, T, group, 1, d, mods_of(o, kv));
    std::fill(bk.begin(), bk.end(), 0.0);
    std::fill(bv.begin(), bv.end(), 0.0);
    std::fill(bq.begin(), bq.end(), 0.0);
    const double* kb = k.data() + kv * T * d;
    const double* vb = v.data() + kv * T * d;
    for (int64_t r = 0; r < group; ++r) {
      const int64_t h = kv * group + r, base = h * T;
      const double slope = o.variant.alibi() ? static_cast<double>(o.variant.alibi_slopes[static_cast<size_t>(h)]) : 0;
      auto row = [&](const std::vector<double>& x, int64_t t) { return x.data() + (base + t) * d; };
      // Per query row t (OpenMP threads): dQ_t's bound, and the coefficients of dV_s's and dK_s's bounds, summed
      // per key row s afterwards (each bound element summed by one thread in t order, whatever the thread count).
#pragma omp parallel for schedule(dynamic, 16)
      for (int64_t t = 0; t < T; ++t) {
        const double *qt = row(q, t), *dot = row(dy, t), *ot = row(y, t);
        double dd = 0, dmag = 0;
#pragma omp simd reduction(+ : dd, dmag)
        for (int64_t i = 0; i < d; ++i) {
          dd += dot[i] * ot[i];
          dmag += std::fabs(dot[i] * ot[i]);
        }
        const double delta = (b + static_cast<double>(d + 3) * e) * dmag;
        const double l = lse[static_cast<size_t>(base + t)];
        double* bqt = bq.data() + (r * T + t) * d;
        double* cvt = cv.data() + t * T;
        double* ckt = ck.data() + t * T;
        for (int64_t s = 0; s < T; ++s) {
          cvt[s] = ckt[s] = 0;
          if (!o.variant.visible(t, s)) continue;
          const double *ks = kb + s * d, *vs = vb + s * d;
          double sc = 0, smag = 0, dp = 0, pmag = 0;
#pragma omp simd reduction(+ : sc, smag, dp, pmag)
          for (int64_t i = 0; i < d; ++i) {
            sc += qt[i] * ks[i];
            smag += std::fabs(qt[i] * ks[i]);
            dp += dot[i] * vs[i];
            pmag += std::fabs(dot[i] * vs[i]);
          }
          // ALiBi (attention_alibi.h): the kernel adds fl(-fl(slope / scale) |t - s|) to the fp32 score. Softcap c:
          // the score is c th, th = tanh(scale q.k / c), held to |dth| <= (1 - th^2) scale sigma / c + 2 e; the
          // exp argument gains 4 e c (th's rounding and its product by c), and dS the factor w = 1 - th^2, formed
          // in fp32 (square, 1 - x, the product: 3 e) with the error 2 |th| |dth| from th's.
          const double sigma = static_cast<double>(d + 2) * e * smag, tau = static_cast<double>(d + 2) * e * pmag;
          const double th = cap > 0 ? std::tanh(scale * sc / cap) : 0;
          const double w = cap > 0 ? 1 - th * th : 1;
          const double w_err = cap > 0 ? 2 * std::fabs(th) * (w * scale * sigma / cap + 2 * e) + 3 * e : 0;
          const double bias = slope * static_cast<double>(std::llabs(t - s));
          const double arg = (cap > 0 ? cap * th : scale * sc) - bias;
          const double p = std::exp(arg - l);
          const double eps =
              b + 3 * e + scale * sigma + e * (2 * std::fabs(arg) + 2 * std::fabs(l) + 4 * bias + 4 * cap);
          const double diff = dp - dd, ds = p * diff * w;
          const double err_ds =
              eps * std::fabs(ds) +
              p * (1 + eps) *
                  ((tau + delta + e * std::fabs(diff)) * w + std::fabs(diff) * (w_err + (cap > 0 ? e : 0))) +
              (b + e) * (1 + eps) * (std::fabs(ds) + p * (tau + delta) * w);
          cvt[s] = (eps + nsum_kv) * p;
          ckt[s] = scale * (err_ds + nsum_kv * std::fabs(ds));
          const double cq = scale * (err_ds + nsum_q * std::fabs(ds));
          for (int64_t i = 0; i < d; ++i) bqt[i] += cq * std::fabs(ks[i]);
        }
      }
      // Key rows in blocks of 32, so the coefficients are read along their rows (cv[t T + s0 ..]).
#pragma omp parallel for schedule(dynamic, 1)
      for (int64_t s0 = 0; s0 < T; s0 += 32) {
        for (int64_t t = 0; t < T; ++t) {
          const double *qt = row(q, t), *dot = row(dy, t);
          for (int64_t s = s0; s < std::min(T, s0 + 32); ++s) {
            const double cvs = cv[static_cast<size_t>(t * T + s)], cks = ck[static_cast<size_t>(t * T + s)];
            if (cvs == 0 && cks == 0) continue;
            double* bvs = bv.data() + s * d;
            double* bks = bk.data() + s * d;
            for (int64_t i = 0; i < d; ++i) {
              bvs[i] += cvs * std::fabs(dot[i]);
              bks[i] += cks * std::fabs(qt[i]);
            }
          }
        }
      }
    }
    ungroup_rows(g.dq, o, 0, dq_ref);
    for (size_t i = 0; i < static_cast<size_t>(group) * sz; ++i) {
      const auto at = static_cast<size_t>(kv * group * T * d) + i;
      compare(static_cast<double>(out[0][at]), dq_ref[i], bq[i]);
    }
    for (size_t i = 0; i < sz; ++i) {
      const auto at = static_cast<size_t>(kv * T * d) + i;
      compare(static_cast<double>(out[1][at]), g.dk[i], bk[i]);
      compare(static_cast<double>(out[2][at]), g.dv[i], bv[i]);
    }
  }
  return c;
}

double attention_backward_flops(const AttentionShape& o) {
  return 2.5 * static_cast<double>(4 * o.head_dim + 2) * static_cast<double>(o.heads) * o.variant.pairs(o.seq);
}

}  // namespace nanotrn::neuron
