// Small nonlinear least squares: Levenberg-Marquardt with a forward-difference Jacobian, box bounds, and a rank test
// of the Jacobian at the solution. For fits of a few parameters to a few dozen points (a software stack's profile to
// measured runs, predict/calibration.h; a scaling law to a ladder of runs).
//
//   FitProblem p;
//   p.start = {0.0, -3.0};                                  // the parameters (often logs of positive quantities)
//   p.residuals = [&](const std::vector<double>& u) { ... return r; };   // one residual per point
//   FitResult f = levenberg_marquardt(p);                   // f.u, f.r, f.cost = sum r^2 / 2
//   Rank k = jacobian_rank(f.jacobian, 1e-4);              // k.full, k.singular, k.weakest
//
// Rules: the Jacobian is taken by forward differences of step 1e-6 (max(1, |u|)); a step is accepted when it lowers
// the cost, else the damping grows tenfold; iteration stops when the relative cost change is below 1e-14 over a
// successful step, the step is below 1e-12, or after max_iterations. A parameter on a bound whose step points past it
// is held there and the step solved again for the others (an active set); bounds then clamp every trial point.
// jacobian_rank scales each column to unit length (a parameter that moves no residual has a zero column and is
// rank-deficient by itself), then takes the singular values from the eigenvalues of J^T J (Jacobi rotations): full rank
// when there are at least as many points as parameters and the smallest / largest singular value exceeds the tolerance.
// Not here: what the residuals mean.
#pragma once

#include <functional>
#include <vector>

namespace nanotrn {

struct FitProblem {
  std::vector<double> start;
  std::vector<double> lower, upper;  // empty: unbounded
  std::function<std::vector<double>(const std::vector<double>& u)> residuals;
  int max_iterations = 300;
};

struct FitResult {
  std::vector<double> u, r;
  double cost = 0;  // sum r^2 / 2
  int iterations = 0;
  std::vector<std::vector<double>> jacobian;  // at u: rows = residuals, columns = parameters
};

FitResult levenberg_marquardt(const FitProblem& problem);
std::vector<std::vector<double>> numeric_jacobian(const FitProblem& problem, const std::vector<double>& u,
                                                  const std::vector<double>& r0);

struct Rank {
  bool full = false;
  std::vector<double> singular;     // largest first, of the column-scaled Jacobian
  std::vector<double> weakest;      // the right singular vector of the smallest singular value
  std::vector<double> column_norm;  // before scaling
};
Rank jacobian_rank(const std::vector<std::vector<double>>& jacobian, double tolerance);

// Eigenvalues (descending) and eigenvectors (columns of `vectors`) of a symmetric matrix, by cyclic Jacobi rotations.
void symmetric_eigen(std::vector<std::vector<double>> a, std::vector<double>& values,
                     std::vector<std::vector<double>>& vectors);

// Solves the small dense system A x = b (Gaussian elimination with partial pivoting); Error when singular.
std::vector<double> solve_linear(std::vector<std::vector<double>> a, std::vector<double> b);

}  // namespace nanotrn
