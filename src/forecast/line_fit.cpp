// Least-squares lines. See line_fit.h.
#include "forecast/line_fit.h"

#include <cmath>

#include "base/error.h"

namespace nanotrn::forecast {

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, const std::string& what) {
  check(x.size() == y.size() && x.size() >= 2, what + ": a line needs at least 2 points");
  const double n = static_cast<double>(x.size());
  LineFit l;
  double ybar = 0;
  for (size_t i = 0; i < x.size(); i++) {
    l.xbar += x[i] / n;
    ybar += y[i] / n;
  }
  double sxy = 0;
  for (size_t i = 0; i < x.size(); i++) {
    l.sxx += (x[i] - l.xbar) * (x[i] - l.xbar);
    sxy += (x[i] - l.xbar) * (y[i] - ybar);
  }
  check(l.sxx > 1e-12 * (1 + l.xbar * l.xbar), what + ": the points' x do not vary");
  l.slope = sxy / l.sxx;
  l.intercept = ybar - l.slope * l.xbar;
  for (size_t i = 0; i < x.size(); i++) l.rss += (y[i] - l.at(x[i])) * (y[i] - l.at(x[i]));
  return l;
}

std::vector<double> leave_one_out_errors(const std::vector<double>& x, const std::vector<double>& y,
                                         const std::string& what) {
  check(x.size() >= 3, what + ": leave-one-out needs at least 3 points");
  std::vector<double> errors;
  for (size_t i = 0; i < x.size(); i++) {
    std::vector<double> xs, ys;
    for (size_t j = 0; j < x.size(); j++) {
      if (j == i) continue;
      xs.push_back(x[j]);
      ys.push_back(y[j]);
    }
    errors.push_back(fit_line(xs, ys, what).at(x[i]) - y[i]);
  }
  return errors;
}

}  // namespace nanotrn::forecast
