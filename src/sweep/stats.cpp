// Sweep statistics. See stats.h.
#include "sweep/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/error.h"

namespace nanotrn::sweep {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The continued fraction of I_x(a, b) (converges fast for x < (a + 1) / (a + b + 2)), by the modified Lentz method.
double beta_fraction(double x, double a, double b) {
  constexpr double tiny = 1e-300, eps = 1e-16;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::abs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; m++) {
    const double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));  // even step
    d = 1.0 + num * d;
    c = 1.0 + num / c;
    if (std::abs(d) < tiny) d = tiny;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));  // odd step
    d = 1.0 + num * d;
    c = 1.0 + num / c;
    if (std::abs(d) < tiny) d = tiny;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1.0) < eps) return h;
  }
  return h;  // not converged in 10,000 terms: the best estimate (never reached for the t-test's arguments)
}

}  // namespace

double regularized_incomplete_beta(double x, double a, double b) {
  check(a > 0 && b > 0 && x >= 0 && x <= 1, "regularized_incomplete_beta: needs a, b > 0 and x in [0, 1]");
  if (x == 0.0 || x == 1.0) return x;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_fraction(x, a, b) / a;
  return 1.0 - front * beta_fraction(1.0 - x, b, a) / b;
}

Summary summarize(const std::vector<double>& v) {
  Summary s;
  s.n = static_cast<int>(v.size());
  if (v.empty()) return {0, kNaN, kNaN};
  double sum = 0;
  for (const double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  if (v.size() < 2) {
    s.sd = kNaN;
    return s;
  }
  double ss = 0;
  for (const double x : v) ss += (x - s.mean) * (x - s.mean);
  s.sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
  return s;
}

Welch welch_t_test(const std::vector<double>& a, const std::vector<double>& b) {
  const Summary sa = summarize(a), sb = summarize(b);
  if (sa.n < 2 || sb.n < 2) return {kNaN, kNaN, kNaN};
  const double va = sa.sd * sa.sd / sa.n, vb = sb.sd * sb.sd / sb.n;
  if (va + vb <= 0) return {kNaN, kNaN, kNaN};
  Welch w;
  w.t = (sa.mean - sb.mean) / std::sqrt(va + vb);
  w.df = (va + vb) * (va + vb) / (va * va / (sa.n - 1) + vb * vb / (sb.n - 1));
  w.p = t_two_sided_p(w.t, w.df);
  return w;
}

double t_two_sided_p(double t, double df) { return regularized_incomplete_beta(df / (df + t * t), df / 2.0, 0.5); }

double t_quantile(double q, double df) {
  check(q > 0 && q < 1 && df > 0, "t_quantile: needs q in (0, 1) and df > 0");
  // P(T <= x) = 1 - p/2 for x >= 0, p/2 below; increasing in x, so bisection on a bracket that holds the quantile.
  const auto cdf = [df](double x) {
    const double tail = t_two_sided_p(x, df) / 2;
    return x >= 0 ? 1 - tail : tail;
  };
  double lo = -1, hi = 1;
  while (cdf(lo) > q) lo *= 2;
  while (cdf(hi) < q) hi *= 2;
  while (hi - lo > 1e-12 * std::max(1.0, std::abs(lo) + std::abs(hi))) {
    const double mid = (lo + hi) / 2;
    (cdf(mid) < q ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace nanotrn::sweep
