// Charts as inline SVG text, written by nanotrn (no plotting library, no script: docs/DEPENDENCIES.md says why).
// The HTML run report (html_report.h) and `nanotrn plot` use them.
//
//   LineChart c{.id = "loss_vs_step", .title = "training loss", .x_label = "step", .y_label = "nats/token"};
//   c.series.push_back({.name = "train", .points = {{1, 9.1}, {10, 7.3}}});
//   std::string svg = line_chart_svg(c);                 // <svg class="plot" data-plot="loss_vs_step" ...>
//   BarChart b{.id = "core", .title = "CORE per task", .value_label = "centered"};  b.bars = {{"hellaswag", 0.12}};
//   std::string svg2 = bar_chart_svg(b);
//
// The page contract the report tests read (tests/report/): the root is <svg class="plot" data-plot="ID">; each
// series is <polyline class="series" data-series="NAME" data-points="x,y x,y ..."> with the data values (%.9g, not
// pixels) and a circle per point when a series has at most kMarkerPoints points (a lone point also shows its value);
// the legend sits below the plot (<rect class="legend">, one per series), never over the lines; each bar is
// <rect class="bar" data-label="L" data-value="V">. Non-finite points are left out (and counted in the caption);
// a chart with no finite point draws its axes and the words "no data". Axis ticks are 1-2-5 steps (nice_ticks).
// Not here: page layout (html_report.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nanotrn::report {

inline constexpr size_t kMarkerPoints = 60;

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y) data values
};

struct LineChart {
  std::string id, title, x_label, y_label;
  std::vector<Series> series = {};
  bool y_from_zero = false;  // include 0 in the y range (throughput, shares)
  bool scatter = false;      // points only (a marker each, whatever their count), no line joining them
};

struct Bar {
  std::string label;
  double value = 0;
};

struct BarChart {
  std::string id, title, value_label;
  std::vector<Bar> bars = {};
};

std::string line_chart_svg(const LineChart& chart, int width = 600, int height = 320);
// Horizontal bars, one row each; negative values extend left of the zero line.
std::string bar_chart_svg(const BarChart& chart, int width = 600);

// Ticks covering [lo, hi] at a 1, 2 or 5 x 10^k spacing, about `target` of them; lo == hi gets a unit range.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);
// Escapes & < > " ' for text and attribute values.
std::string xml_escape(const std::string& s);

}  // namespace nanotrn::report
