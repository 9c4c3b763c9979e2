// The ladder's own CORE line. See ladder_core.h.
#include "forecast/ladder_core.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "base/format.h"
#include "forecast/line_fit.h"
#include "sweep/stats.h"

namespace nanotrn::forecast {
namespace {

constexpr double kNoiseP = 0.05;

}  // namespace

LadderCore fit_ladder_core(const std::vector<LadderRun>& runs, const LadderCoreAt& at) {
  std::vector<double> x, y;
  for (const LadderRun& r : runs)
    if (!std::isnan(r.core)) x.push_back(r.val_bpb), y.push_back(r.core);
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  check(x.size() >= 3 && *lo < *hi, "forecast --core: " + std::to_string(x.size()) +
                                        " ladder run(s) with a CORE at distinct val_bpb; a line with a noise estimate "
                                        "needs at least 3");
  const LineFit l = fit_line(x, y, "forecast --core: the ladder's CORE");
  const double n = static_cast<double>(x.size()), df = n - 2;
  LadderCore c;
  c.runs = static_cast<int>(x.size());
  c.intercept = l.intercept;
  c.slope = l.slope;
  const double s = std::sqrt(l.rss / df);
  c.p = s > 0 ? sweep::t_two_sided_p(l.slope / (s / std::sqrt(l.sxx)), df) : 0.0;
  c.above_noise = l.slope < 0 && c.p < kNoiseP;
  c.rms = std::sqrt(l.rss / n);
  double loo = 0;
  for (const double e : leave_one_out_errors(x, y, "forecast --core: the ladder's CORE")) loo += e * e;
  c.loo_rms = std::sqrt(loo / n);
  c.core = l.at(at.bpb);
  const double t = sweep::t_quantile((1 + at.coverage) / 2, df);
  c.low = c.high = c.core;
  for (const double b : {at.bpb, at.bpb_low, at.bpb_high}) {
    const double half = t * s * std::sqrt(1 + 1 / n + (b - l.xbar) * (b - l.xbar) / l.sxx);
    const double mid = l.at(b);
    c.low = std::min(c.low, mid - half);
    c.high = std::max(c.high, mid + half);
  }
  c.beyond = *lo - at.bpb;
  return c;
}

std::string ladder_core_note(const LadderCore& c) {
  return "a line in val_bpb over " + std::to_string(c.runs) + " ladder runs, " +
         format_number("%+.3f CORE per bpb", c.slope) + format_number(" (p = %.2g", c.p) +
         format_number("), leave-one-out RMS %.3f", c.loo_rms);
}

nlohmann::json LadderCore::to_json() const {
  return {{"runs", runs},
          {"intercept", intercept},
          {"slope", slope},
          {"p", p},
          {"above_noise", above_noise},
          {"rms", rms},
          {"loo_rms", loo_rms},
          {"core", core},
          {"interval", {low, high}},
          {"beyond_bpb", beyond}};
}

}  // namespace nanotrn::forecast
