// A scaling law fitted to a ladder of finished runs, and what it says with its uncertainty.
//
//   std::vector<LadderRun> runs = {{"d1-s50", 3.1e5, 2.0e5, 2.31}, ...};   // N, D, measured val_bpb
//   LawFit f = fit_scaling_law(runs);                 // f.law.at(n, d); f.residuals; f.loo (leave-one-out)
//   Forecast x = forecast_at(f, runs, n, d, {});      // x.central, x.low, x.high (the printed interval)
//
// The law is Chinchilla's form (Hoffmann et al. 2022, "Training Compute-Optimal Large Language Models", eq. 2):
//   L(N, D) = E + A / N^alpha + B / D^beta
// with L the final val_bpb of a run that completed its own schedule, N its non-embedding parameters (the transformer
// blocks' matrices: model/config.h ParamCounts::block_matrices + ve_gates; Kaplan et al. 2020, "Scaling Laws for
// Neural Language Models", found the embedding-free count gives the clean power law at small sizes; nanochat's count,
// which adds the lm_head, fits the validation ladders' runs more closely but leaves too few sizes of the family 4x
// below a small target, since the lm_head is most of a small model: docs/VALIDATION.md "Forecast"), D its training
// tokens. Fitted by
// least squares on L itself (the ladder holds a few dozen runs, none an outlier worth Chinchilla's Huber loss) with
// Levenberg-Marquardt (base/nonlinear_fit.h) over u = (E, log A, alpha, log B, beta), bounded to E in [0, min L],
// alpha and beta in [0.02, 1] (assumed: an exponent above 1, a loss falling faster than 1/N, appears in no published
// fit (Chinchilla 0.34 / 0.28); the first ladder fitted without it ran alpha to the old bound 2, a law whose N term
// vanishes just past the ladder, and forecast larger models too pessimistically: docs/VALIDATION.md "Forecast"); from
// a grid of 27 starts (E at {0, 0.5, 0.8} x min L, alpha and beta in {0.15, 0.4, 0.9}; A and B then by linear least
// squares), the lowest cost kept (E is the least determined parameter at a ladder's scale: a single start in E found a
// local minimum 0.02 bpb off scipy's on the full-size validation ladder). jacobian_rank tells when the ladder cannot
// pin the five.
//
// Uncertainty (forecast_at): the law refitted on `bootstrap` resamples of the runs (drawn with replacement, seeded;
// resamples with fewer than 5 distinct runs are drawn again) gives the spread of the forecast from the ladder's
// finite size: its `coverage` central interval [q_lo, q_hi]; the runs' own scatter about the law (seed noise and
// what the form misses) is s = the leave-one-out RMS error. The interval is
//   [central - sqrt((central - q_lo)^2 + (z s)^2),  central + sqrt((q_hi - central)^2 + (z s)^2)]
// with z the normal quantile of the coverage (1.645 for 90 %). A forecast is as good as the form holds beyond the
// ladder: forecast_at also says how far (N, D and 6ND compute) lie beyond the ladder's largest run.
// Not here: choosing the ladder (ladder.h), running it (sweep/), printing (src/cli/forecast.cpp).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace nanotrn::forecast {

struct LadderRun {
  std::string id;
  double params = 0;                  // N: non-embedding parameters
  double tokens = 0;                  // D: training tokens
  double val_bpb = 0;                 // the law's L: with several seeds per rung, their mean
  std::vector<double> seed_bpb = {};  // each seed's val_bpb (forecast --seeds); the law reads only val_bpb
  // With forecast --core: the CORE each seed's checkpoint scored, and their mean (NaN without; ladder_core.h).
  std::vector<double> seed_core = {};
  double core = std::numeric_limits<double>::quiet_NaN();
};

struct ScalingLaw {
  double E = 0, A = 0, alpha = 0, B = 0, beta = 0;
  double at(double n, double d) const;
  std::string formula() const;  // "1.234 + 56.7 / N^0.312 + 89.0 / D^0.287"
};

struct LawFit {
  ScalingLaw law;
  std::vector<double> residuals;  // law - measured, per run (bpb)
  std::vector<double> loo;        // per run: the law fitted without it, at its (N, D), minus its measurement
  double rms = 0, loo_rms = 0;    // of residuals, of loo
  bool determined = false;        // the Jacobian at the fit has full rank (jacobian_rank, tolerance 1e-6)
  std::vector<double> singular;   // its singular values, largest first (column-scaled)
};

LawFit fit_scaling_law(const std::vector<LadderRun>& runs);

struct ForecastOptions {
  int bootstrap = 200;
  double coverage = 0.90;
  uint64_t seed = 1;
};

struct Forecast {
  double central = 0, low = 0, high = 0;         // val_bpb: the law's value and the interval
  double bootstrap_low = 0, bootstrap_high = 0;  // the coverage interval of the refits alone
  int bootstrap_fits = 0;
  double noise = 0;                                                 // s, the leave-one-out RMS
  double params_beyond = 0, tokens_beyond = 0, compute_beyond = 0;  // target / the ladder's largest
};

Forecast forecast_at(const LawFit& fit, const std::vector<LadderRun>& runs, double n, double d,
                     const ForecastOptions& options);

// The normal quantile z with P(|X| < z) = coverage (a two-sided interval), by bisection on erf.
double normal_two_sided_z(double coverage);

}  // namespace nanotrn::forecast
