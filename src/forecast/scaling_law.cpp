// The scaling law, its fit and its interval. See scaling_law.h.
#include "forecast/scaling_law.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "base/error.h"
#include "base/nonlinear_fit.h"
#include "base/rng.h"

namespace nanotrn::forecast {
namespace {

constexpr int kParams = 5;                                 // E, log A, alpha, log B, beta
constexpr double kMinExponent = 0.02, kMaxExponent = 1.0;  // scaling_law.h says why

ScalingLaw law_of(const std::vector<double>& u) { return {u[0], std::exp(u[1]), u[2], std::exp(u[3]), u[4]}; }

std::vector<double> residuals(const std::vector<double>& u, const std::vector<LadderRun>& runs) {
  const ScalingLaw law = law_of(u);
  std::vector<double> r;
  r.reserve(runs.size());
  for (const LadderRun& x : runs) r.push_back(law.at(x.params, x.tokens) - x.val_bpb);
  return r;
}

double min_loss(const std::vector<LadderRun>& runs) {
  double m = std::numeric_limits<double>::infinity();
  for (const LadderRun& r : runs) m = std::min(m, r.val_bpb);
  return m;
}

FitProblem problem_of(const std::vector<LadderRun>& runs, std::vector<double> start) {
  FitProblem p;
  p.start = std::move(start);
  p.lower = {0.0, -30.0, kMinExponent, -30.0, kMinExponent};
  p.upper = {min_loss(runs), 60.0, kMaxExponent, 60.0, kMaxExponent};
  p.residuals = [&runs](const std::vector<double>& u) { return residuals(u, runs); };
  p.max_iterations = 500;
  return p;
}

// With E, alpha and beta fixed the law is linear in A and B: their least-squares values (kept positive).
std::vector<double> start_from(const std::vector<LadderRun>& runs, double E, double alpha, double beta) {
  double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0, mean_excess = 0;
  for (const LadderRun& r : runs) {
    const double x1 = std::pow(r.params, -alpha), x2 = std::pow(r.tokens, -beta), y = r.val_bpb - E;
    s11 += x1 * x1;
    s12 += x1 * x2;
    s22 += x2 * x2;
    b1 += x1 * y;
    b2 += x2 * y;
    mean_excess += y / static_cast<double>(runs.size());
  }
  double A = 0, B = 0;
  const double det = s11 * s22 - s12 * s12;
  if (std::abs(det) > 1e-300) {
    A = (b1 * s22 - b2 * s12) / det;
    B = (s11 * b2 - s12 * b1) / det;
  }
  const double mean_params = runs.front().params, mean_tokens = runs.front().tokens;
  if (!(A > 0)) A = 0.5 * std::max(mean_excess, 1e-3) * std::pow(mean_params, alpha);
  if (!(B > 0)) B = 0.5 * std::max(mean_excess, 1e-3) * std::pow(mean_tokens, beta);
  return {E, std::log(A), alpha, std::log(B), beta};
}

FitResult best_fit(const std::vector<LadderRun>& runs) {
  FitResult best;
  best.cost = std::numeric_limits<double>::infinity();
  for (double e : {0.0, 0.5, 0.8})
    for (double alpha : {0.15, 0.4, 0.9})
      for (double beta : {0.15, 0.4, 0.9}) {
        const FitResult f = levenberg_marquardt(problem_of(runs, start_from(runs, e * min_loss(runs), alpha, beta)));
        if (f.cost < best.cost) best = f;
      }
  return best;
}

// The fit without the grid of starts, from `u` (leave-one-out and bootstrap refits start at the full fit).
std::vector<double> refit(const std::vector<LadderRun>& runs, const std::vector<double>& u) {
  return levenberg_marquardt(problem_of(runs, u)).u;
}

double rms_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return v.empty() ? 0.0 : std::sqrt(s / static_cast<double>(v.size()));
}

std::vector<double> fit_parameters(const LawFit& f) {
  return {f.law.E, std::log(f.law.A), f.law.alpha, std::log(f.law.B), f.law.beta};
}

// A resample of the runs with replacement holding at least kParams distinct runs.
std::vector<LadderRun> resample(const std::vector<LadderRun>& runs, uint64_t seed, uint64_t draw) {
  const size_t n = runs.size();
  for (uint64_t attempt = 0;; attempt++) {
    std::vector<LadderRun> out;
    std::set<size_t> distinct;
    for (size_t k = 0; k < n; k++) {
      const size_t i = random_u32(seed, draw * 1000 + attempt, k) % n;
      out.push_back(runs[i]);
      distinct.insert(i);
    }
    if (distinct.size() >= static_cast<size_t>(kParams) || attempt >= 999) return out;
  }
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(pos);
  const double frac = pos - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - frac) + v[i + 1] * frac : v.back();
}

}  // namespace

double ScalingLaw::at(double n, double d) const { return E + A / std::pow(n, alpha) + B / std::pow(d, beta); }

std::string ScalingLaw::formula() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.4f + %.4g / N^%.4f + %.4g / D^%.4f", E, A, alpha, B, beta);
  return buf;
}

LawFit fit_scaling_law(const std::vector<LadderRun>& runs) {
  check(runs.size() > static_cast<size_t>(kParams),
        "scaling law: " + std::to_string(runs.size()) + " runs cannot fit the law's 5 parameters (give at least 6)");
  for (const LadderRun& r : runs)
    check(r.params > 0 && r.tokens > 0 && std::isfinite(r.val_bpb) && r.val_bpb > 0,
          "scaling law: run " + r.id + " has no positive N, D and val_bpb");
  const FitResult best = best_fit(runs);
  LawFit f;
  f.law = law_of(best.u);
  f.residuals = best.r;
  f.rms = rms_of(f.residuals);
  const Rank k = jacobian_rank(best.jacobian, 1e-6);
  f.determined = k.full;
  f.singular = k.singular;
  for (size_t i = 0; i < runs.size(); i++) {
    std::vector<LadderRun> rest = runs;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    f.loo.push_back(law_of(refit(rest, best.u)).at(runs[i].params, runs[i].tokens) - runs[i].val_bpb);
  }
  f.loo_rms = rms_of(f.loo);
  return f;
}

double normal_two_sided_z(double coverage) {
  check(coverage > 0 && coverage < 1, "coverage must be in (0, 1)");
  double lo = 0, hi = 10;
  for (int i = 0; i < 200; i++) {
    const double mid = 0.5 * (lo + hi);
    (std::erf(mid / std::sqrt(2.0)) < coverage ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Forecast forecast_at(const LawFit& fit, const std::vector<LadderRun>& runs, double n, double d,
                     const ForecastOptions& o) {
  check(o.bootstrap >= 20, "forecast: at least 20 bootstrap refits");
  Forecast x;
  x.central = fit.law.at(n, d);
  const std::vector<double> u = fit_parameters(fit);
  std::vector<double> values;
  for (int b = 0; b < o.bootstrap; b++) {
    const double v = law_of(refit(resample(runs, o.seed, static_cast<uint64_t>(b)), u)).at(n, d);
    if (std::isfinite(v)) values.push_back(v);
  }
  check(values.size() >= 20, "forecast: the bootstrap refits failed");
  x.bootstrap_fits = static_cast<int>(values.size());
  const double tail = (1 - o.coverage) / 2;
  x.bootstrap_low = std::min(quantile(values, tail), x.central);
  x.bootstrap_high = std::max(quantile(values, 1 - tail), x.central);
  x.noise = fit.loo_rms;
  const double zs = normal_two_sided_z(o.coverage) * x.noise;
  x.low = x.central - std::hypot(x.central - x.bootstrap_low, zs);
  x.high = x.central + std::hypot(x.bootstrap_high - x.central, zs);
  double max_n = 0, max_d = 0, max_c = 0;
  for (const LadderRun& r : runs) {
    max_n = std::max(max_n, r.params);
    max_d = std::max(max_d, r.tokens);
    max_c = std::max(max_c, 6 * r.params * r.tokens);
  }
  x.params_beyond = n / max_n;
  x.tokens_beyond = d / max_d;
  x.compute_beyond = 6 * n * d / max_c;
  return x;
}

}  // namespace nanotrn::forecast
