// SVG charts: the ticks cover the data at 1-2-5 steps; every finite point is in the page with its data value (what
// the report tests compare with metrics.jsonl) and inside the plot area; non-finite points are left out and counted;
// text is escaped.
#include <cmath>
#include <random>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "report/svg_chart.h"

namespace nanotrn::report {
namespace {

std::vector<std::pair<double, double>> pairs(const std::string& attr) {
  std::vector<std::pair<double, double>> v;
  std::istringstream in(attr);
  for (std::string item; in >> item;) {
    const size_t c = item.find(',');
    v.emplace_back(std::stod(item.substr(0, c)), std::stod(item.substr(c + 1)));
  }
  return v;
}

std::string attribute(const std::string& svg, const std::string& name) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(svg, m, std::regex(" " + name + "=\"([^\"]*)\""))) << name;
  return m[1];
}

TEST(SvgChart, TicksCoverTheRangeAtOneTwoFiveSteps) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mag(-6, 6), u(0, 1);
  for (int i = 0; i < 2000; i++) {
    const double scale = std::pow(10.0, mag(rng)), a = (u(rng) - 0.5) * scale, b = a + u(rng) * scale;
    const std::vector<double> t = nice_ticks(a, b, 5);
    ASSERT_GE(t.size(), 2u);
    EXPECT_LE(t.front(), a);
    EXPECT_GE(t.back(), b);
    EXPECT_LE(t.size(), 13u) << a << " " << b;
    const double step = t[1] - t[0], m = std::pow(10.0, std::floor(std::log10(step) + 1e-9)), r = step / m;
    EXPECT_TRUE(std::fabs(r - 1) < 1e-6 || std::fabs(r - 2) < 1e-6 || std::fabs(r - 5) < 1e-6) << step;
  }
  const std::vector<double> flat = nice_ticks(3, 3);
  EXPECT_LT(flat.front(), 3.0);
  EXPECT_GT(flat.back(), 3.0);
}

TEST(SvgChart, EveryFinitePointIsInThePageWithItsValueAndInsideThePlot) {
  LineChart c{.id = "loss_vs_step", .title = "loss <&> \"q\"", .x_label = "step", .y_label = "nats"};
  Series s{.name = "train", .points = {}};
  for (int i = 1; i <= 50; i++) s.points.emplace_back(i, 9.0 / std::sqrt(static_cast<double>(i)) + 1e-7 * i);
  s.points.emplace_back(51, NAN);
  s.points.emplace_back(INFINITY, 1.0);
  c.series.push_back(s);
  const int w = 600, h = 320;
  const std::string svg = line_chart_svg(c, w, h);
  EXPECT_NE(svg.find("<svg class=\"plot\" data-plot=\"loss_vs_step\""), std::string::npos);
  EXPECT_NE(svg.find("loss &lt;&amp;&gt; &quot;q&quot;"), std::string::npos);
  EXPECT_NE(svg.find("2 non-finite point(s) not drawn"), std::string::npos);
  const auto data = pairs(attribute(svg, "data-points"));
  ASSERT_EQ(data.size(), 50u);
  for (size_t i = 0; i < data.size(); i++) {
    EXPECT_EQ(data[i].first, s.points[i].first);
    EXPECT_NEAR(data[i].second, s.points[i].second, 1e-8 * std::fabs(s.points[i].second));
  }
  const auto px = pairs(attribute(svg, "points"));
  ASSERT_EQ(px.size(), 50u);
  for (size_t i = 0; i < px.size(); i++) {
    EXPECT_GT(px[i].first, 0.0);
    EXPECT_LT(px[i].first, w);
    EXPECT_GT(px[i].second, 0.0);
    EXPECT_LT(px[i].second, h);
    if (i > 0) {
      EXPECT_GT(px[i].first, px[i - 1].first);    // x grows to the right
      EXPECT_GT(px[i].second, px[i - 1].second);  // a falling loss goes down the page (SVG y grows downwards)
    }
  }
}

TEST(SvgChart, AChartWithNoFinitePointSaysNoData) {
  LineChart c{.id = "empty", .title = "t", .x_label = "x", .y_label = "y"};
  c.series.push_back({"s", {{1, NAN}}});
  const std::string svg = line_chart_svg(c);
  EXPECT_NE(svg.find(">no data<"), std::string::npos);
  EXPECT_EQ(attribute(svg, "data-points"), "");
}

TEST(SvgChart, BarsCarryTheirExactValues) {
  BarChart b{.id = "core_tasks", .title = "CORE", .value_label = "centered"};
  b.bars = {{"hella<swag>", 0.125}, {"arc", -0.0625}, {"piqa", 1.0 / 3.0}};
  const std::string svg = bar_chart_svg(b);
  EXPECT_NE(svg.find("data-label=\"hella&lt;swag&gt;\" data-value=\"0.125\""), std::string::npos);
  EXPECT_NE(svg.find("data-label=\"arc\" data-value=\"-0.0625\""), std::string::npos);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, std::regex("data-label=\"piqa\" data-value=\"([^\"]*)\"")));
  EXPECT_EQ(std::stod(m[1]), 1.0 / 3.0);
}

}  // namespace
}  // namespace nanotrn::report
