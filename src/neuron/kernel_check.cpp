// Host references for `kernel run --check` (see kernel_check.h). Not here: building or running kernels.
#include "neuron/kernel_check.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "base/error.h"
#include "dtype/convert.h"

namespace nanotrn::neuron {
namespace {

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

void compare(CheckOutcome& c, double got, double ref, double bound) {
  const double err = std::fabs(got - ref);
  c.max_abs_error = std::max(c.max_abs_error, err);
  c.max_bound = std::max(c.max_bound, bound);
  if (!(err <= bound)) ++c.failures;
}

}  // namespace

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
  if (o.kernel == "softmax") return {fill(rc, -4, 4)};
  if (o.kernel == "rmsnorm") return {fill(rc, -1, 1), fill(static_cast<size_t>(o.cols), 0.5f, 1.5f)};
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
  } else {
    throw Error("no host reference for kernel '" + o.kernel + "'");
  }
  return c;
}

}  // namespace nanotrn::neuron
