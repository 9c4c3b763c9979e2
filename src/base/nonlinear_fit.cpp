// Nonlinear least squares. See nonlinear_fit.h.
#include "base/nonlinear_fit.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/error.h"

namespace nanotrn {
namespace {

double half_sum_squares(const std::vector<double>& r) {
  double s = 0;
  for (const double x : r) s += x * x;
  return 0.5 * s;
}

std::vector<double> clamped(const FitProblem& p, std::vector<double> u) {
  for (size_t i = 0; i < u.size(); i++) {
    if (!p.lower.empty()) u[i] = std::max(u[i], p.lower[i]);
    if (!p.upper.empty()) u[i] = std::min(u[i], p.upper[i]);
  }
  return u;
}

// The damped normal equations (J^T J + lambda diag(J^T J)) delta = -J^T r over the free parameters; a fixed one
// (fixed[i]) does not move.
std::vector<double> damped_step(const std::vector<std::vector<double>>& J, const std::vector<double>& r, double lambda,
                                const std::vector<bool>& fixed) {
  const size_t n = J.empty() ? 0 : J[0].size();
  std::vector<std::vector<double>> a(n, std::vector<double>(n, 0.0));
  std::vector<double> g(n, 0.0);
  for (size_t k = 0; k < J.size(); k++) {
    for (size_t i = 0; i < n; i++) {
      if (fixed[i]) continue;
      g[i] -= J[k][i] * r[k];
      for (size_t j = 0; j < n; j++)
        if (!fixed[j]) a[i][j] += J[k][i] * J[k][j];
    }
  }
  for (size_t i = 0; i < n; i++) a[i][i] = fixed[i] ? 1.0 : a[i][i] + lambda * std::max(a[i][i], 1e-12);
  return solve_linear(a, g);
}

// The step with the parameters that sit on a bound and would step past it held there (an active set: clamping the
// whole step instead bends the free parameters' part of it, and the fit stalls short of a minimum on the bound).
std::vector<double> bounded_step(const FitProblem& p, const std::vector<double>& u,
                                 const std::vector<std::vector<double>>& J, const std::vector<double>& r,
                                 double lambda) {
  std::vector<bool> fixed(u.size(), false);
  for (;;) {
    const std::vector<double> step = damped_step(J, r, lambda, fixed);
    bool more = false;
    for (size_t i = 0; i < u.size(); i++) {
      const bool at_lower = !p.lower.empty() && u[i] <= p.lower[i] && step[i] < 0;
      const bool at_upper = !p.upper.empty() && u[i] >= p.upper[i] && step[i] > 0;
      if (!fixed[i] && (at_lower || at_upper)) fixed[i] = more = true;
    }
    if (!more) return step;
  }
}

}  // namespace

std::vector<std::vector<double>> numeric_jacobian(const FitProblem& p, const std::vector<double>& u,
                                                  const std::vector<double>& r0) {
  std::vector<std::vector<double>> J(r0.size(), std::vector<double>(u.size(), 0.0));
  for (size_t j = 0; j < u.size(); j++) {
    std::vector<double> v = u;
    const double h = 1e-6 * std::max(1.0, std::abs(u[j]));
    v[j] += h;
    const std::vector<double> r = p.residuals(v);
    check(r.size() == r0.size(), "numeric_jacobian: the residual count changed");
    for (size_t i = 0; i < r.size(); i++) J[i][j] = (r[i] - r0[i]) / h;
  }
  return J;
}

FitResult levenberg_marquardt(const FitProblem& p) {
  check(!p.start.empty(), "levenberg_marquardt: no parameters");
  FitResult f;
  f.u = clamped(p, p.start);
  f.r = p.residuals(f.u);
  f.cost = half_sum_squares(f.r);
  double lambda = 1e-3;
  for (f.iterations = 0; f.iterations < p.max_iterations; f.iterations++) {
    const std::vector<std::vector<double>> J = numeric_jacobian(p, f.u, f.r);
    bool improved = false;
    for (int tries = 0; tries < 30 && !improved; tries++) {
      std::vector<double> step;
      try {
        step = bounded_step(p, f.u, J, f.r, lambda);
      } catch (const Error&) {
        lambda *= 10;
        continue;
      }
      std::vector<double> trial = f.u;
      for (size_t i = 0; i < trial.size(); i++) trial[i] += step[i];
      trial = clamped(p, trial);
      const std::vector<double> r = p.residuals(trial);
      const double c = half_sum_squares(r);
      if (std::isfinite(c) && c < f.cost) {
        double moved = 0;
        for (size_t i = 0; i < trial.size(); i++) moved = std::max(moved, std::abs(trial[i] - f.u[i]));
        const double gain = (f.cost - c) / std::max(f.cost, 1e-300);
        f.u = trial;
        f.r = r;
        f.cost = c;
        lambda = std::max(lambda / 10, 1e-12);
        improved = true;
        if (gain < 1e-14 || moved < 1e-12) {
          f.jacobian = numeric_jacobian(p, f.u, f.r);
          return f;
        }
      } else {
        lambda *= 10;
      }
    }
    if (!improved) break;
  }
  f.jacobian = numeric_jacobian(p, f.u, f.r);
  return f;
}

std::vector<double> solve_linear(std::vector<std::vector<double>> a, std::vector<double> b) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; c++) {
    size_t piv = c;
    for (size_t r = c + 1; r < n; r++)
      if (std::abs(a[r][c]) > std::abs(a[piv][c])) piv = r;
    check(std::abs(a[piv][c]) > 1e-300, "solve_linear: singular system");
    std::swap(a[c], a[piv]);
    std::swap(b[c], b[piv]);
    for (size_t r = c + 1; r < n; r++) {
      const double f = a[r][c] / a[c][c];
      for (size_t k = c; k < n; k++) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n, 0.0);
  for (size_t i = n; i-- > 0;) {
    double s = b[i];
    for (size_t k = i + 1; k < n; k++) s -= a[i][k] * x[k];
    x[i] = s / a[i][i];
  }
  return x;
}

void symmetric_eigen(std::vector<std::vector<double>> a, std::vector<double>& values,
                     std::vector<std::vector<double>>& vectors) {
  const size_t n = a.size();
  vectors.assign(n, std::vector<double>(n, 0.0));
  for (size_t i = 0; i < n; i++) vectors[i][i] = 1.0;
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0;
    for (size_t i = 0; i < n; i++)
      for (size_t j = i + 1; j < n; j++) off += a[i][j] * a[i][j];
    if (off < 1e-30) break;
    for (size_t p = 0; p < n; p++) {
      for (size_t q = p + 1; q < n; q++) {
        if (std::abs(a[p][q]) < 1e-300) continue;
        const double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (size_t k = 0; k < n; k++) {  // A <- A G (columns p, q)
          const double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (size_t k = 0; k < n; k++) {  // A <- G^T A (rows p, q)
          const double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
        for (size_t k = 0; k < n; k++) {
          const double vkp = vectors[k][p], vkq = vectors[k][q];
          vectors[k][p] = c * vkp - s * vkq;
          vectors[k][q] = s * vkp + c * vkq;
        }
      }
    }
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return a[x][x] > a[y][y]; });
  values.clear();
  std::vector<std::vector<double>> sorted(n, std::vector<double>(n, 0.0));
  for (size_t c = 0; c < n; c++) {
    values.push_back(a[order[c]][order[c]]);
    for (size_t k = 0; k < n; k++) sorted[k][c] = vectors[k][order[c]];
  }
  vectors = sorted;
}

Rank jacobian_rank(const std::vector<std::vector<double>>& J, double tolerance) {
  Rank k;
  const size_t m = J.size(), n = m ? J[0].size() : 0;
  k.column_norm.assign(n, 0.0);
  for (size_t j = 0; j < n; j++) {
    for (size_t i = 0; i < m; i++) k.column_norm[j] += J[i][j] * J[i][j];
    k.column_norm[j] = std::sqrt(k.column_norm[j]);
  }
  std::vector<std::vector<double>> g(n, std::vector<double>(n, 0.0));
  for (size_t a = 0; a < n; a++)
    for (size_t b = 0; b < n; b++)
      for (size_t i = 0; i < m; i++) {
        const double na = k.column_norm[a], nb = k.column_norm[b];
        if (na > 0 && nb > 0) g[a][b] += J[i][a] / na * J[i][b] / nb;
      }
  std::vector<double> values;
  std::vector<std::vector<double>> vectors;
  symmetric_eigen(g, values, vectors);
  for (const double v : values) k.singular.push_back(std::sqrt(std::max(v, 0.0)));
  if (n > 0) {
    for (size_t i = 0; i < n; i++) k.weakest.push_back(vectors[i][n - 1]);
  }
  const bool zero_column = std::any_of(k.column_norm.begin(), k.column_norm.end(), [](double x) { return x <= 0; });
  k.full = n > 0 && m >= n && !zero_column && k.singular.back() > tolerance * k.singular.front();
  return k;
}

}  // namespace nanotrn
