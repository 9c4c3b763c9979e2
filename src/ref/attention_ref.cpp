// Dense fp64 attention reference: see attention_ref.h.
// Each step is the definition, written out; rows run on OpenMP threads and the dot products as OpenMP simd
// reductions (fp64 summed in another order: well below any bound it is compared against), and every output element
// is written by one thread in a fixed order, so results do not depend on the thread count.
// Not here: tiling or any shortcut.
#include "ref/attention_ref.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace nanotrn::ref {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

struct Dims {
  int64_t B, Tq, Tk, H, Hkv, D;
  int64_t qi(int64_t b, int64_t i, int64_t h) const { return ((b * Tq + i) * H + h) * D; }
  int64_t ki(int64_t b, int64_t j, int64_t g) const { return ((b * Tk + j) * Hkv + g) * D; }
};

double scale_of(const AttentionSpec& mods, int64_t D) {
  return mods.scale != 0 ? mods.scale : 1.0 / std::sqrt(static_cast<double>(D));
}

bool visible(const AttentionSpec& mods, int64_t b, int64_t Tk, int64_t i, int64_t pq, int64_t pk) {
  if (!mods.bound_min.empty() &&
      (pk < mods.bound_min[static_cast<size_t>(i)] || pk > mods.bound_max[static_cast<size_t>(i)]))
    return false;
  if (mods.causal && pk > pq) return false;
  if (mods.window > 0 && pq - pk >= mods.window) return false;
  if (!mods.segment_ids.empty() &&
      mods.segment_ids[static_cast<size_t>(b * Tk + pq)] != mods.segment_ids[static_cast<size_t>(b * Tk + pk)])
    return false;
  return true;
}

// Scores of (b, h) after the modifiers: s [Tq * Tk] (-inf where masked), and tanh values t (softcap) for the chain
// rule.
void scores(const Dims& d, const AttentionSpec& mods, const std::vector<double>& q, const std::vector<double>& k,
            int64_t b, int64_t h, std::vector<double>& s, std::vector<double>& t) {
  const int64_t g = h / (d.H / d.Hkv), off = d.Tk - d.Tq;
  const double scale = scale_of(mods, d.D), cap = mods.softcap;
  s.assign(static_cast<size_t>(d.Tq * d.Tk), 0.0);
  t.assign(static_cast<size_t>(d.Tq * d.Tk), 0.0);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < d.Tq; ++i)
    for (int64_t j = 0; j < d.Tk; ++j) {
      const double *qi = q.data() + d.qi(b, i, h), *kj = k.data() + d.ki(b, j, g);
      double dot = 0.0;
#pragma omp simd reduction(+ : dot)
      for (int64_t c = 0; c < d.D; ++c) dot += qi[c] * kj[c];
      double x = scale * dot;
      const size_t ij = static_cast<size_t>(i * d.Tk + j);
      if (cap > 0.0) {
        t[ij] = std::tanh(x / cap);
        x = cap * t[ij];
      }
      const int64_t pq = i + off;
      if (!mods.alibi_slopes.empty())
        x -= mods.alibi_slopes[static_cast<size_t>(h)] * static_cast<double>(std::llabs(pq - j));
      s[ij] = visible(mods, b, d.Tk, i, pq, j) ? x : kNegInf;
    }
}

// Row-wise softmax in place, its denominator also holding exp(sink) when sink is finite (an attention sink: one more
// logit whose value vector is 0); returns the logsumexp of the row's scores alone (-inf and a zero row when nothing
// is visible).
double softmax_row(double* row, int64_t n, double sink = kNegInf) {
  double m = kNegInf;
  for (int64_t j = 0; j < n; ++j) m = std::max(m, row[j]);
  if (m == kNegInf) {
    for (int64_t j = 0; j < n; ++j) row[j] = 0.0;
    return kNegInf;
  }
  const double top = std::max(m, sink);
  double sum = 0.0;
  for (int64_t j = 0; j < n; ++j) sum += std::exp(row[j] - top);
  const double denominator = sum + (sink == kNegInf ? 0.0 : std::exp(sink - top));
  for (int64_t j = 0; j < n; ++j) row[j] = std::exp(row[j] - top) / denominator;
  return top + std::log(sum);
}

}  // namespace

std::vector<double> attention_forward_ref(const std::vector<double>& q, const std::vector<double>& k,
                                          const std::vector<double>& v, int64_t B, int64_t Tq, int64_t Tk, int64_t H,
                                          int64_t Hkv, int64_t D, const AttentionSpec& mods, std::vector<double>* lse) {
  const Dims d{B, Tq, Tk, H, Hkv, D};
  std::vector<double> out(static_cast<size_t>(B * Tq * H * D), 0.0), s, t;
  if (lse) lse->assign(static_cast<size_t>(B * H * Tq), kNegInf);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t g = h / (H / Hkv);
      scores(d, mods, q, k, b, h, s, t);
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < Tq; ++i) {
        double* p = s.data() + i * Tk;
        const double l = softmax_row(p, Tk, mods.sinks.empty() ? kNegInf : mods.sinks[static_cast<size_t>(h)]);
        if (lse) (*lse)[static_cast<size_t>((b * H + h) * Tq + i)] = l;
        for (int64_t j = 0; j < Tk; ++j)
          for (int64_t c = 0; c < D; ++c) out[d.qi(b, i, h) + c] += p[j] * v[d.ki(b, j, g) + c];
      }
    }
  return out;
}

AttentionGradsRef attention_backward_ref(const std::vector<double>& dout, const std::vector<double>& q,
                                         const std::vector<double>& k, const std::vector<double>& v, int64_t B,
                                         int64_t Tq, int64_t Tk, int64_t H, int64_t Hkv, int64_t D,
                                         const AttentionSpec& mods) {
  if (!mods.sinks.empty()) std::abort();  // not derived here: finite differences of the forward check sinks
  const Dims d{B, Tq, Tk, H, Hkv, D};
  AttentionGradsRef r;
  r.dq.assign(q.size(), 0.0);
  r.dk.assign(k.size(), 0.0);
  r.dv.assign(v.size(), 0.0);
  const double scale = scale_of(mods, D);
  std::vector<double> s, t, ds(static_cast<size_t>(Tq * Tk));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h) {
      const int64_t g = h / (H / Hkv);
      scores(d, mods, q, k, b, h, s, t);
      // Per query row: P, dP_ij = <dout_i, v_j>, dS_ij = scale P_ij (dP_ij - sum_l P_il dP_il) (times 1 - tanh^2
      // under softcap), and dQ_i = sum_j dS_ij k_j.
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < Tq; ++i) {
        double* p = s.data() + i * Tk;
        double* dsi = ds.data() + i * Tk;
        const double* di = dout.data() + d.qi(b, i, h);
        softmax_row(p, Tk);
        double pdp = 0.0;
        for (int64_t j = 0; j < Tk; ++j) {
          const double* vj = v.data() + d.ki(b, j, g);
          double x = 0.0;
#pragma omp simd reduction(+ : x)
          for (int64_t c = 0; c < D; ++c) x += di[c] * vj[c];
          dsi[j] = x;
          pdp += p[j] * x;
        }
        double* dqi = r.dq.data() + d.qi(b, i, h);
        for (int64_t j = 0; j < Tk; ++j) {
          double x = p[j] * (dsi[j] - pdp);
          if (mods.softcap > 0) {
            const double th = t[static_cast<size_t>(i * Tk + j)];
            x *= 1.0 - th * th;
          }
          dsi[j] = x * scale;
          const double* kj = k.data() + d.ki(b, j, g);
          for (int64_t c = 0; c < D; ++c) dqi[c] += dsi[j] * kj[c];
        }
      }
      // Per key row: dV_j = sum_i P_ij dout_i, dK_j = sum_i dS_ij q_i (key rows in blocks of 32, i ascending for
      // each, so P and dS are read along their rows).
#pragma omp parallel for schedule(dynamic, 1)
      for (int64_t j0 = 0; j0 < Tk; j0 += 32)
        for (int64_t i = 0; i < Tq; ++i) {
          const double *di = dout.data() + d.qi(b, i, h), *qi = q.data() + d.qi(b, i, h);
          for (int64_t j = j0; j < std::min(Tk, j0 + 32); ++j) {
            const double pij = s[static_cast<size_t>(i * Tk + j)], dsij = ds[static_cast<size_t>(i * Tk + j)];
            if (pij == 0.0) continue;
            double* dvj = r.dv.data() + d.ki(b, j, g);
            double* dkj = r.dk.data() + d.ki(b, j, g);
            for (int64_t c = 0; c < D; ++c) {
              dvj[c] += pij * di[c];
              dkj[c] += dsij * qi[c];
            }
          }
        }
    }
  return r;
}

}  // namespace nanotrn::ref
