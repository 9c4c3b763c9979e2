// A straight line y = intercept + slope x by ordinary least squares, and its leave-one-out errors: the CORE map on the
// published pairs (core_map.h) and the ladder's own CORE line (ladder_core.h) are both this fit.
//
//   LineFit l = fit_line({1.0, 2.0, 3.0}, {0.30, 0.21, 0.09});   // l.at(x), l.slope, l.rss (residual sum of squares)
//   std::vector<double> e = leave_one_out_errors(x, y);          // e[i]: the line without point i, at x[i], minus y[i]
//
// Errors: fewer than 2 points, or (for leave_one_out_errors) fewer than 3, or x that does not vary ("what" names
// the points in the message).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nanotrn::forecast {

struct LineFit {
  double intercept = 0, slope = 0;
  double xbar = 0, sxx = 0;  // the mean of x and the sum of (x - xbar)^2
  double rss = 0;            // the residual sum of squares
  double at(double x) const { return intercept + slope * x; }
};

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, const std::string& what);
std::vector<double> leave_one_out_errors(const std::vector<double>& x, const std::vector<double>& y,
                                         const std::string& what);

}  // namespace nanotrn::forecast
