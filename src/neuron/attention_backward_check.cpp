// The attention backward kernel's host check (see attention_backward_check.h).
#include "neuron/attention_backward_check.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "dtype/convert.h"
#include "ref/attention_ref.h"

namespace nanotrn::neuron {
namespace {

constexpr double kSecondOrder = 1.25;

AttentionMods mods_of(const KernelRunOptions& o) {
  AttentionMods m;
  m.causal = o.variant.mask != AttentionMask::none;
  m.window = o.variant.mask == AttentionMask::sliding_window ? o.variant.window : 0;
  m.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(o.head_dim)));  // the kernel's fp32 scale
  return m;
}

std::vector<double> widen(const std::vector<float>& v, DType t) {
  std::vector<double> w(v.size());
  for (size_t i = 0; i < v.size(); ++i) w[i] = static_cast<double>(round_to(t, v[i]));
  return w;
}

}  // namespace

std::vector<std::vector<float>> make_attention_backward_inputs(const KernelRunOptions& o) {
  std::mt19937 g(static_cast<std::mt19937::result_type>(o.seed));
  const auto n = static_cast<size_t>(o.heads * o.seq * o.head_dim);
  auto fill = [&](float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = round_to(o.dtype, d(g));
    return v;
  };
  std::vector<float> q = fill(-2, 2), k = fill(-2, 2), v = fill(-1, 1), dout = fill(-1, 1);
  std::vector<double> lse;
  const std::vector<double> out =
      ref::attention_forward_ref(widen(q, DType::bf16), widen(k, DType::bf16), widen(v, DType::bf16), o.heads, o.seq,
                                 o.seq, 1, 1, o.head_dim, mods_of(o), &lse);
  std::vector<float> of(n), lf(lse.size());
  for (size_t i = 0; i < n; ++i) of[i] = round_to(o.dtype, static_cast<float>(out[i]));
  for (size_t i = 0; i < lse.size(); ++i) lf[i] = static_cast<float>(lse[i]);
  return {q, k, v, of, dout, lf};
}

CheckOutcome check_attention_backward(const KernelRunOptions& o, const std::vector<std::vector<float>>& in,
                                      const std::vector<std::vector<float>>& out) {
  CheckOutcome c;
  c.rule =
      "per element: first-order fp32 / bf16 rounding of P, dS and the T-term sums, x1.25, + u |ref| "
      "(attention_backward_check.h)";
  const int64_t T = o.seq, d = o.head_dim;
  const double e = std::ldexp(1.0, -24), b = std::ldexp(1.0, -8), u = unit_roundoff(o.dtype);
  const AttentionMods mods = mods_of(o);
  const auto scale = static_cast<double>(mods.scale);
  const std::vector<double> q = widen(in[0], DType::bf16), k = widen(in[1], DType::bf16), v = widen(in[2], DType::bf16);
  const std::vector<double> y = widen(in[3], DType::bf16), dy = widen(in[4], DType::bf16);
  const std::vector<double> lse(in[5].begin(), in[5].end());
  const ref::AttentionGradsRef g = ref::attention_backward_ref(dy, q, k, v, o.heads, T, T, 1, 1, d, mods);
  const auto nsum = static_cast<double>(T + 2) * e;
  const auto sz = static_cast<size_t>(T * d);
  std::vector<double> bq(sz), bk(sz), bv(sz);  // per-head error bounds before the output rounding
  for (int64_t h = 0; h < o.heads; ++h) {
    std::fill(bq.begin(), bq.end(), 0.0);
    std::fill(bk.begin(), bk.end(), 0.0);
    std::fill(bv.begin(), bv.end(), 0.0);
    const int64_t base = h * T;
    auto row = [&](const std::vector<double>& x, int64_t r) { return x.data() + (base + r) * d; };
    for (int64_t t = 0; t < T; ++t) {
      const double *qt = row(q, t), *dot = row(dy, t), *ot = row(y, t);
      double dd = 0, dmag = 0;
      for (int64_t i = 0; i < d; ++i) {
        dd += dot[i] * ot[i];
        dmag += std::fabs(dot[i] * ot[i]);
      }
      const double delta = (b + static_cast<double>(d + 3) * e) * dmag;
      const double l = lse[static_cast<size_t>(base + t)];
      for (int64_t s = 0; s < T; ++s) {
        if (!o.variant.visible(t, s)) continue;
        const double *ks = row(k, s), *vs = row(v, s);
        double sc = 0, smag = 0, dp = 0, pmag = 0;
        for (int64_t i = 0; i < d; ++i) {
          sc += qt[i] * ks[i];
          smag += std::fabs(qt[i] * ks[i]);
          dp += dot[i] * vs[i];
          pmag += std::fabs(dot[i] * vs[i]);
        }
        const double sigma = static_cast<double>(d + 2) * e * smag, tau = static_cast<double>(d + 2) * e * pmag;
        const double p = std::exp(scale * sc - l);
        const double eps = b + 3 * e + scale * sigma + e * (2 * std::fabs(scale * sc) + 2 * std::fabs(l));
        const double diff = dp - dd, ds = p * diff;
        const double err_ds = eps * std::fabs(ds) + p * (1 + eps) * (tau + delta + e * std::fabs(diff)) +
                              (b + e) * (1 + eps) * (std::fabs(ds) + p * (tau + delta));
        double* bvs = bv.data() + s * d;
        double* bks = bk.data() + s * d;
        double* bqt = bq.data() + t * d;
        for (int64_t i = 0; i < d; ++i) {
          bvs[i] += (eps + nsum) * p * std::fabs(dot[i]);
          bks[i] += scale * (err_ds + nsum * std::fabs(ds)) * std::fabs(qt[i]);
          bqt[i] += scale * (err_ds + nsum * std::fabs(ds)) * std::fabs(ks[i]);
        }
      }
    }
    const std::vector<double>* refs[3] = {&g.dq, &g.dk, &g.dv};
    const std::vector<double>* bounds[3] = {&bq, &bk, &bv};
    for (size_t which = 0; which < 3; ++which)
      for (size_t i = 0; i < sz; ++i) {
        const double ref = (*refs[which])[static_cast<size_t>(base * d) + i];
        const double got = static_cast<double>(out[which][static_cast<size_t>(base * d) + i]);
        const double bound = kSecondOrder * (*bounds[which])[i] * (1 + e) + u * std::fabs(ref);
        const double err = std::fabs(got - ref);
        c.max_abs_error = std::max(c.max_abs_error, err);
        c.max_bound = std::max(c.max_bound, bound);
        if (!(err <= bound)) ++c.failures;
      }
  }
  return c;
}

double attention_backward_flops(const KernelRunOptions& o) {
  return 2.5 * 4.0 * static_cast<double>(o.head_dim) * static_cast<double>(o.heads) * o.variant.pairs(o.seq);
}

}  // namespace nanotrn::neuron
