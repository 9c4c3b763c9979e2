// SVG line and bar charts. See svg_chart.h.
#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/error.h"

namespace nanotrn::report {
namespace {

// Okabe-Ito colours (distinguishable with colour-vision deficiency).
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"};

std::string num(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string tick_label(double v, double step) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e5 || a < 1e-3) return num("%.3g", v);
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", std::min(decimals, 6), v);
  return b;
}

}  // namespace

namespace {
// The root element of every chart (the page contract's <svg class="plot" data-plot="ID">), its title and background.
std::string svg_open(const std::string& id, const std::string& title, int width, int height) {
  const std::string w = std::to_string(width), h = std::to_string(height);
  return "<svg class=\"plot\" data-plot=\"" + xml_escape(id) + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w +
         "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h + "\" role=\"img\">\n<title>" + xml_escape(title) +
         "</title>\n<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h + "\" fill=\"#ffffff\"/>\n";
}
}  // namespace

std::string xml_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  check(std::isfinite(lo) && std::isfinite(hi) && lo <= hi && target >= 1, "nice_ticks: needs finite lo <= hi");
  const double size = std::max(std::fabs(lo), std::fabs(hi));
  if (hi - lo <= size * 1e-9) {  // one value (to plotting precision): a range around it
    const double pad = size == 0 ? 1.0 : size * 0.1;
    lo -= pad;
    hi += pad;
  }
  check(std::isfinite(hi - lo),
        "cannot plot values from " + num("%g", lo) + " to " + num("%g", hi) + ": the range overflows a double");
  const double raw = (hi - lo) / target, mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / mag;
  const double step = (r <= 1.5 ? 1.0 : r <= 3.5 ? 2.0 : r <= 7.5 ? 5.0 : 10.0) * mag;
  const double first = std::floor(lo / step), last = std::ceil(hi / step);
  const double count = last - first;
  check(count >= 1 && count <= 100 * target,
        "nice_ticks: " + num("%g", count) + " ticks for [" + num("%g", lo) + ", " + num("%g", hi) + "]");
  std::vector<double> t;
  for (int64_t i = 0; i <= static_cast<int64_t>(count); i++) {
    const double v = (first + static_cast<double>(i)) * step;
    t.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  }
  return t;
}

// The legend below the plot, never on the lines: entries left to right, wrapping at the chart's width (about 6.5 px
// per character at 11 px); returns the rows' SVG and sets `rows`.
std::string legend_svg(const std::vector<Series>& series, double left, double width, double y, int* rows) {
  std::string s;
  double x = left;
  *rows = series.empty() ? 0 : 1;
  for (size_t i = 0; i < series.size(); i++) {
    const double w = 24 + 6.5 * static_cast<double>(series[i].name.size());
    if (x > left && x + w > left + width) {
      x = left;
      (*rows)++;
    }
    const double ly = y + 16 * static_cast<double>(*rows - 1);
    const char* colour = kColours[i % (sizeof kColours / sizeof kColours[0])];
    s += "<rect class=\"legend\" x=\"" + num("%.1f", x) + "\" y=\"" + num("%.1f", ly - 5) +
         "\" width=\"12\" height=\"3\" fill=\"" + colour + "\"/><text x=\"" + num("%.1f", x + 16) + "\" y=\"" +
         num("%.1f", ly) + "\" font-size=\"11\">" + xml_escape(series[i].name) + "</text>\n";
    x += w;
  }
  return s;
}

std::string line_chart_svg(const LineChart& c, int width, int height) {
  const double left = 64, right = 16, top = 30, bottom = 48;
  const double pw = width - left - right, ph = height - top - bottom;
  int legend_rows = 0;
  const std::string legend = legend_svg(c.series, left, pw, height + 4, &legend_rows);
  height += 16 * legend_rows + 6;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  size_t dropped = 0;
  for (const Series& s : c.series) {
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) {
        dropped++;
        continue;
      }
      x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    }
  }
  const bool empty = !std::isfinite(x0);
  if (empty) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (c.y_from_zero) y0 = std::min(y0, 0.0), y1 = std::max(y1, 0.0);
  const std::vector<double> xt = nice_ticks(x0, x1, 6), yt = nice_ticks(y0, y1, 5);
  const double xa = xt.front(), xb = xt.back(), ya = yt.front(), yb = yt.back();
  auto px = [&](double x) { return left + (x - xa) / (xb - xa) * pw; };
  auto py = [&](double y) { return top + ph - (y - ya) / (yb - ya) * ph; };

  std::string s = svg_open(c.id, c.title, width, height);
  s += "<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" + xml_escape(c.title) + "</text>\n";
  for (double v : yt) {
    const double y = py(v);
    s += "<line x1=\"" + num("%.1f", left) + "\" x2=\"" + num("%.1f", left + pw) + "\" y1=\"" + num("%.1f", y) +
         "\" y2=\"" + num("%.1f", y) + "\" stroke=\"#e0e0e0\"/>";
    s += "<text x=\"" + num("%.1f", left - 6) + "\" y=\"" + num("%.1f", y + 4) +
         "\" font-size=\"11\" text-anchor=\"end\">" + tick_label(v, yt.size() > 1 ? yt[1] - yt[0] : 1) + "</text>\n";
  }
  for (double v : xt) {
    const double x = px(v);
    s += "<line x1=\"" + num("%.1f", x) + "\" x2=\"" + num("%.1f", x) + "\" y1=\"" + num("%.1f", top + ph) +
         "\" y2=\"" + num("%.1f", top + ph + 5) + "\" stroke=\"#444444\"/>";
    s += "<text x=\"" + num("%.1f", x) + "\" y=\"" + num("%.1f", top + ph + 18) +
         "\" font-size=\"11\" text-anchor=\"middle\">" + tick_label(v, xt.size() > 1 ? xt[1] - xt[0] : 1) + "</text>\n";
  }
  s += "<rect x=\"" + num("%.1f", left) + "\" y=\"" + num("%.1f", top) + "\" width=\"" + num("%.1f", pw) +
       "\" height=\"" + num("%.1f", ph) + "\" fill=\"none\" stroke=\"#444444\"/>\n";
  s += "<text x=\"" + num("%.1f", left + pw / 2) + "\" y=\"" + num("%.1f", top + ph + bottom - 14) +
       "\" font-size=\"12\" text-anchor=\"middle\">" + xml_escape(c.x_label) + "</text>\n";
  s += "<text transform=\"translate(14," + num("%.1f", top + ph / 2) +
       ") rotate(-90)\" font-size=\"12\" text-anchor=\"middle\">" + xml_escape(c.y_label) + "</text>\n";
  if (empty) {
    s += "<text x=\"" + num("%.1f", left + pw / 2) + "\" y=\"" + num("%.1f", top + ph / 2) +
         "\" font-size=\"14\" text-anchor=\"middle\" fill=\"#888888\">no data</text>\n";
  }
  for (size_t i = 0; i < c.series.size(); i++) {
    const Series& se = c.series[i];
    const char* colour = kColours[i % (sizeof kColours / sizeof kColours[0])];
    std::string data, pixels, markers;
    size_t finite = 0;
    for (const auto& [x, y] : se.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      finite++;
      // Separator appended on its own: GCC 12 warns (-Wstringop-overflow, a false positive) on const char* +
      // string&& here when the unity build inlines it.
      if (!data.empty()) {  // both are empty until the first finite point
        data += ' ';
        pixels += ' ';
      }
      data += num("%.9g", x) + "," + num("%.9g", y);
      pixels += num("%.2f", px(x)) + "," + num("%.2f", py(y));
    }
    if (finite <= kMarkerPoints || c.scatter) {
      for (const auto& [x, y] : se.points) {
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        markers += "<circle cx=\"" + num("%.2f", px(x)) + "\" cy=\"" + num("%.2f", py(y)) + "\" r=\"2.5\" fill=\"" +
                   colour + "\"/>";
      }
    }
    s += "<polyline class=\"series\" data-series=\"" + xml_escape(se.name) + "\" data-points=\"" + data +
         "\" points=\"" + pixels + "\" fill=\"none\" stroke=\"" + (c.scatter ? "none" : colour) +
         "\" stroke-width=\"1.8\"/>\n";
    if (!markers.empty()) s += markers + "\n";
    if (finite == 1) {  // a lone point (one evaluation): its value beside it, since no line shows it
      for (const auto& [x, y] : se.points) {
        if (!std::isfinite(x) || !std::isfinite(y)) continue;
        s += "<text class=\"point-label\" x=\"" + num("%.2f", px(x) - 6) + "\" y=\"" + num("%.2f", py(y) - 6) +
             "\" font-size=\"11\" text-anchor=\"end\" fill=\"" + colour + "\">" + num("%.4g", y) + "</text>\n";
      }
    }
  }
  s += legend;
  if (dropped > 0) {
    s += "<text x=\"" + num("%.1f", left + pw) + "\" y=\"18\" font-size=\"11\" text-anchor=\"end\" fill=\"#a00000\">" +
         std::to_string(dropped) + " non-finite point(s) not drawn</text>\n";
  }
  s += "</svg>\n";
  return s;
}

std::string bar_chart_svg(const BarChart& c, int width) {
  const double left = 190, right = 70, top = 30, row = 20;
  const int height = static_cast<int>(top + row * static_cast<double>(std::max<size_t>(c.bars.size(), 1)) + 36);
  const double pw = width - left - right;
  double lo = 0, hi = 0;
  for (const Bar& b : c.bars) {
    if (std::isfinite(b.value)) lo = std::min(lo, b.value), hi = std::max(hi, b.value);
  }
  if (lo == hi) hi = lo + 1;
  auto px = [&](double v) { return left + (v - lo) / (hi - lo) * pw; };
  std::string s = svg_open(c.id, c.title, width, height);
  s += "<text x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" + xml_escape(c.title) + "</text>\n";
  for (size_t i = 0; i < c.bars.size(); i++) {
    const Bar& b = c.bars[i];
    const double y = top + row * static_cast<double>(i);
    const double v = std::isfinite(b.value) ? b.value : 0.0;
    const double a = px(std::min(0.0, v)), z = px(std::max(0.0, v));
    s += "<text x=\"" + num("%.1f", left - 6) + "\" y=\"" + num("%.1f", y + 14) +
         "\" font-size=\"11\" text-anchor=\"end\">" + xml_escape(b.label) + "</text>";
    s += "<rect class=\"bar\" data-label=\"" + xml_escape(b.label) + "\" data-value=\"" + num("%.17g", b.value) +
         "\" x=\"" + num("%.2f", a) + "\" y=\"" + num("%.1f", y + 3) + "\" width=\"" +
         num("%.2f", std::max(z - a, 0.5)) + "\" height=\"" + num("%.1f", row - 6) + "\" fill=\"" + kColours[0] +
         "\"/>";
    s += "<text x=\"" + num("%.1f", std::max(z, px(0)) + 4) + "\" y=\"" + num("%.1f", y + 14) + "\" font-size=\"11\">" +
         num("%.4g", b.value) + "</text>\n";
  }
  const double axis_y = top + row * static_cast<double>(std::max<size_t>(c.bars.size(), 1));
  s += "<line x1=\"" + num("%.1f", px(0)) + "\" x2=\"" + num("%.1f", px(0)) + "\" y1=\"" + num("%.1f", top) +
       "\" y2=\"" + num("%.1f", axis_y) + "\" stroke=\"#444444\"/>\n";
  s += "<text x=\"" + num("%.1f", left + pw / 2) + "\" y=\"" + num("%.1f", axis_y + 24) +
       "\" font-size=\"12\" text-anchor=\"middle\">" + xml_escape(c.value_label) + "</text>\n";
  s += "</svg>\n";
  return s;
}

}  // namespace nanotrn::report
