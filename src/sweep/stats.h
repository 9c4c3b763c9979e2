// The statistics a sweep's leaderboard ranks by: sample mean and standard deviation over a variant's seeds, and
// Welch's unequal-variance t-test of a variant against the baseline (what a record claim needs: modded-nanogpt
// accepts a record at p < 0.01 over several runs).
//
//   Summary s = summarize({0.91, 0.93, 0.92});      // s.n == 3, s.mean, s.sd (n - 1 in the denominator)
//   Welch w = welch_t_test(variant, baseline);      // w.t, w.df, w.p (two-sided); p is NaN when undefined
//
// Welch: t = (mean_a - mean_b) / sqrt(va / na + vb / nb) with va, vb the sample variances; Welch-Satterthwaite
// degrees of freedom df = (va/na + vb/nb)^2 / ((va/na)^2 / (na - 1) + (vb/nb)^2 / (nb - 1)); two-sided
// p = I_{df / (df + t^2)}(df / 2, 1 / 2), the regularized incomplete beta function (computed by its continued fraction,
// Lentz's method, after the symmetry that keeps it convergent). Undefined (NaN t, df and p) with fewer than 2 values
// on either side or zero variance on both (scipy.stats.ttest_ind(equal_var=False) also returns NaN there).
// The tests against scipy: tests/sweep/stats_test.cpp.
#pragma once

#include <vector>

namespace nanotrn::sweep {

struct Summary {
  int n = 0;
  double mean = 0, sd = 0;  // sd: NaN for n < 2
};
Summary summarize(const std::vector<double>& values);

struct Welch {
  double t = 0, df = 0, p = 0;
};
Welch welch_t_test(const std::vector<double>& a, const std::vector<double>& b);

// The regularized incomplete beta function I_x(a, b) for a, b > 0 and x in [0, 1].
double regularized_incomplete_beta(double x, double a, double b);

// Student's t with df > 0 degrees of freedom: the two-sided p-value of a statistic t, I_{df / (df + t^2)}(df / 2,
// 1 / 2) (Welch's test above and the forecast's CORE line use it), and the q-quantile for q in (0, 1), found by
// bisection on the distribution function to 1e-12 (the forecast's prediction intervals).
double t_two_sided_p(double t, double df);
double t_quantile(double q, double df);

}  // namespace nanotrn::sweep
