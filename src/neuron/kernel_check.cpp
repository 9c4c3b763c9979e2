// Host references for `kernel run --check` (see kernel_check.h). Not here: building or running kernels.
#include "neuron/kernel_check.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "base/error.h"
#include "dtype/convert.h"

namespace nanotrn::neuron {
namespace {

void compare(CheckOutcome& c, double got, double ref, double bound) {
  const double err = std::fabs(got - ref);
  c.max_abs_error = std::max(c.max_abs_error, err);
  c.max_bound = std::max(c.max_bound, bound);
  if (!(err <= bound)) ++c.failures;
}

// Softmax attention under the options' variant (mask, ALiBi, kv group) of every stacked head in fp64 on the
// bf16-rounded inputs (see kernel_check.h).
void check_attention(CheckOutcome& c, const KernelRunOptions& o, const std::vector<std::vector<float>>& in,
                     const std::vector<float>& out) {
  const int64_t t_len = o.seq, d = o.head_dim, group = o.variant.group, kv_heads = o.heads / group;
  const double e = std::ldexp(1.0, -24), u = unit_roundoff(o.dtype), ub = std::ldexp(1.0, -8);
  const auto scale = static_cast<double>(static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))));
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
  std::vector<double> s(static_cast<size_t>(t_len)), mag(static_cast<size_t>(t_len));
  for (int64_t h = 0; h < o.heads; ++h) {
    const int64_t kvh = h / group;
    const double slope = o.variant.alibi() ? static_cast<double>(o.variant.alibi_slopes[static_cast<size_t>(h)]) : 0;
    for (int64_t t = 0; t < t_len; ++t) {
      const double* qt = q.data() + (h * t_len + t) * d;
      double mx = -INFINITY, delta = 0;
      for (int64_t j = 0; j < t_len; ++j) {
        if (!o.variant.visible(t, j)) continue;
        const double* kj = k.data() + (kvh * t_len + j) * d;
        double dot = 0, m = 0;
        for (int64_t i = 0; i < d; ++i) {
          dot += qt[i] * kj[i];
          m += std::fabs(qt[i] * kj[i]);
        }
        // ALiBi: the kernel adds fl(-fl(slope / scale) |t - j|) to the fp32 score (one rounding each), then scales.
        const double bias = slope * static_cast<double>(std::llabs(t - j));
        const double sc = scale * dot - bias;
        s[static_cast<size_t>(j)] = sc;
        mx = std::max(mx, sc);
        delta = std::max(delta, static_cast<double>(d + 10) * e * scale * m + 4 * e * (bias + std::fabs(sc)));
      }
      double l = 0;
      for (int64_t j = 0; j < t_len; ++j)
        l += (mag[static_cast<size_t>(j)] = o.variant.visible(t, j) ? std::exp(s[static_cast<size_t>(j)] - mx) : 0.0);
      const double rel = ub + static_cast<double>(2 * t_len + d + 32) * e + 2 * delta;
      for (int64_t i = 0; i < d; ++i) {
        double ref = 0, a = 0;
        for (int64_t j = 0; j < t_len; ++j) {
          const double vv = v[static_cast<size_t>((kvh * t_len + j) * d + i)], p = mag[static_cast<size_t>(j)];
          ref += p * vv;
          a += p * std::fabs(vv);
        }
        ref /= l;
        a /= l;
        compare(c, static_cast<double>(out[static_cast<size_t>((h * t_len + t) * d + i)]), ref,
                u * std::fabs(ref) + rel * a);
      }
    }
  }
}

}  // namespace

double unit_roundoff(DType t) {
  switch (t) {
    case DType::f32:
    case DType::i32:
      return std::ldexp(1.0, -24);
    case DType::f16:
      return std::ldexp(1.0, -11);
    case DType::bf16:
      return std::ldexp(1.0, -8);
    case DType::f8e4m3:
      return std::ldexp(1.0, -4);
    case DType::f8e5m2:
      return std::ldexp(1.0, -3);
  }
  return 0;
}

std::vector<std::vector<float>> make_check_inputs(const KernelRunOptions& o) {
  std::mt19937 g(static_cast<std::mt19937::result_type>(o.seed));
  auto fill = [&](size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = round_to(o.dtype, d(g));
    return v;
  };
  const auto rc = static_cast<size_t>(o.rows * o.cols);
  if (o.kernel == "matmul")
    return {fill(static_cast<size_t>(o.k * o.m), -1, 1), fill(static_cast<size_t>(o.k * o.n), -1, 1)};
  if (o.kernel == "transpose") return {fill(rc, -1, 1)};
  if (o.kernel == "vector_add") return {fill(rc, -1, 1), fill(rc, -1, 1)};
  if (o.kernel == "softmax") return {fill(rc, -4, 4)};
  if (o.kernel == "rmsnorm") return {fill(rc, -1, 1), fill(static_cast<size_t>(o.cols), 0.5f, 1.5f)};
  if (o.kernel == "attention") {
    const auto n = static_cast<size_t>(o.heads * o.seq * o.head_dim), nkv = n / static_cast<size_t>(o.variant.group);
    std::vector<float> q = fill(n, -2, 2), k = fill(nkv, -2, 2);
    return {q, k, fill(nkv, -1, 1)};
  }
  throw Error("no host reference for kernel '" + o.kernel + "'");
}

CheckOutcome check_against_host(const KernelRunOptions& o, const std::vector<std::vector<float>>& in,
                                const std::vector<float>& out) {
  CheckOutcome c;
  const double e = std::ldexp(1.0, -24), u = unit_roundoff(o.dtype);
  const int64_t rows = o.rows, cols = o.cols;
  auto at = [](const std::vector<float>& v, int64_t i) { return static_cast<double>(v[static_cast<size_t>(i)]); };
  if (o.kernel == "matmul") {
    c.rule = "|c - ref| <= (K + 2) 2^-24 sum_k |a b|";
    for (int64_t i = 0; i < o.m; ++i)
      for (int64_t j = 0; j < o.n; ++j) {
        double ref = 0, mag = 0;
        for (int64_t kk = 0; kk < o.k; ++kk) {
          const double prod = at(in[0], kk * o.m + i) * at(in[1], kk * o.n + j);
          ref += prod;
          mag += std::fabs(prod);
        }
        compare(c, at(out, i * o.n + j), ref, static_cast<double>(o.k + 2) * e * mag);
      }
  } else if (o.kernel == "transpose") {
    c.rule = "exact: y == x^T";
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) compare(c, at(out, j * rows + i), at(in[0], i * cols + j), 0.0);
  } else if (o.kernel == "vector_add") {
    c.rule = "|out - (a + b)| <= u_out |a + b| (one rounding)";
    for (int64_t i = 0; i < rows * cols; ++i) {
      const double ref = at(in[0], i) + at(in[1], i);
      compare(c, at(out, i), ref, u * std::fabs(ref));
    }
  } else if (o.kernel == "softmax") {
    c.rule = "|y - ref| <= ref ((C + 8 + 2 spread) 2^-24 + u_out)";
    for (int64_t i = 0; i < rows; ++i) {
      double mx = -INFINITY, mn = INFINITY, sum = 0;
      for (int64_t j = 0; j < cols; ++j) {
        mx = std::max(mx, at(in[0], i * cols + j));
        mn = std::min(mn, at(in[0], i * cols + j));
      }
      for (int64_t j = 0; j < cols; ++j) sum += std::exp(at(in[0], i * cols + j) - mx);
      const double rel = (static_cast<double>(cols) + 8 + 2 * (mx - mn)) * e + u;
      for (int64_t j = 0; j < cols; ++j) {
        const double ref = std::exp(at(in[0], i * cols + j) - mx) / sum;
        compare(c, at(out, i * cols + j), ref, ref * rel);
      }
    }
  } else if (o.kernel == "rmsnorm") {
    c.rule = "|y - ref| <= |ref| ((D + 12) 2^-24 + 2 u + u^2)";
    const double rel = (static_cast<double>(cols) + 12) * e + 2 * u + u * u;
    for (int64_t i = 0; i < rows; ++i) {
      double ss = 0;
      for (int64_t j = 0; j < cols; ++j) ss += at(in[0], i * cols + j) * at(in[0], i * cols + j);
      const double rstd = 1.0 / std::sqrt(ss / static_cast<double>(cols) + static_cast<double>(o.eps));
      for (int64_t j = 0; j < cols; ++j) {
        const double ref = at(in[0], i * cols + j) * rstd * at(in[1], j);
        compare(c, at(out, i * cols + j), ref, std::fabs(ref) * rel);
      }
    }
  } else if (o.kernel == "attention") {
    c.rule = "|o - ref| <= u_out |ref| + (2^-8 + (2 T + d + 32) 2^-24 + 2 delta) A";
    check_attention(c, o, in, out);
  } else {
    throw Error("no host reference for kernel '" + o.kernel + "'");
  }
  return c;
}

}  // namespace nanotrn::neuron
