// The forecast's page. See forecast_page.h.
#include "forecast/forecast_page.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/format.h"
#include "report/page.h"
#include "report/svg_chart.h"

namespace nanotrn::forecast {
namespace {

using report::keyed_cell;
using report::plain_cell;
using report::table_row;
using report::xml_escape;

// forecast --core: CORE from the ladder's own line, or that the ladder's CORE does not fall detectably with val_bpb.
std::string ladder_core_row(const ForecastResult& r) {
  const LadderCore& c = *r.ladder_core;
  const std::string fit = ladder_core_note(c);
  const std::string label = "CORE from the ladder (" + r.request.core_bundle + ")";
  if (!c.above_noise)
    return table_row(label, plain_cell("not forecast: it does not fall detectably with val_bpb (" + fit + ")"));
  return table_row(label, keyed_cell("ladder_core.core", c.core,
                                     format_number("%.3f", c.core) + format_number(" [%.3f, ", c.low) +
                                         format_number("%.3f] ", c.high) + "(" + fit + ")"));
}

std::string summary_table(const ForecastResult& r) {
  std::string t = "<table>\n";
  t += table_row("val_bpb (forecast)",
                 keyed_cell("forecast.val_bpb", r.at.central, format_number("%.4f", r.at.central)));
  t += table_row(format_number("%.0f %% interval, low", 100 * r.request.coverage),
                 keyed_cell("forecast.low", r.low, format_number("%.4f", r.low)));
  t += table_row(format_number("%.0f %% interval, high", 100 * r.request.coverage),
                 keyed_cell("forecast.high", r.high, format_number("%.4f", r.high)));
  t += table_row("target", plain_cell(r.target.device + " (" + r.target.stack + "), " + std::to_string(r.target.steps) +
                                      " steps"));
  t += table_row("N (non-embedding parameters)",
                 keyed_cell("forecast.params", r.target.params, format_count(std::llround(r.target.params))));
  t += table_row("D (training tokens)",
                 keyed_cell("forecast.tokens", static_cast<double>(r.target.tokens),
                            format_count(r.target.tokens) + " (band " + format_count(r.target.tokens_low) + " - " +
                                format_count(r.target.tokens_high) + ")"));
  if (r.target.epochs.known)
    t += table_row("epochs of data.train", plain_cell(format_number("%.2f", r.target.epochs.epochs)));
  t += table_row("beyond the ladder", plain_cell(format_number("N %.1fx", r.at.params_beyond) +
                                                 format_number(", D %.1fx", r.at.tokens_beyond) +
                                                 format_number(", compute %.3gx", r.at.compute_beyond)));
  t += table_row("law", plain_cell("L(N, D) = " + r.fit.law.formula()));
  t += table_row("fit RMS error (bpb)", keyed_cell("law.rms", r.fit.rms, format_number("%.4f", r.fit.rms)));
  t += table_row("leave-one-out RMS error (bpb)",
                 keyed_cell("law.loo_rms", r.fit.loo_rms, format_number("%.4f", r.fit.loo_rms)));
  const CoreMap& m = builtin_core_map();
  t += table_row("CORE", plain_cell(r.core ? format_number("%.3f", *r.core) + format_number(" +/- %.3f", m.loo_rms) +
                                                 " if this val_bpb were on " + m.dataset
                                           : "n/a: the forecast val_bpb is outside the published pairs' range " +
                                                 format_number("[%.3f, ", m.lo) + format_number("%.3f]", m.hi) + " (" +
                                                 m.dataset + ")"));
  if (r.ladder_core) t += ladder_core_row(r);
  return t + "</table>\n";
}

std::string ladder_table(const ForecastResult& r) {
  std::string t =
      "<table>\n<tr><th>run</th><th>depth</th><th>model_dim</th><th>N</th><th>steps</th><th>D</th>"
      "<th>val_bpb</th><th>law - measured</th><th>leave-one-out</th></tr>\n";
  for (size_t i = 0; i < r.runs.size(); i++) {
    const LadderRun& x = r.runs[i];
    const auto rung =
        std::find_if(r.ladder.rungs.begin(), r.ladder.rungs.end(), [&](const LadderRung& g) { return g.id == x.id; });
    t += "<tr><td>" + xml_escape(x.id) + "</td><td>" + std::to_string(rung->depth) + "</td><td>" +
         std::to_string(rung->model_dim) + "</td><td>" + format_count(std::llround(x.params)) + "</td><td>" +
         std::to_string(rung->steps) + "</td><td>" + format_count(std::llround(x.tokens)) + "</td>" +
         keyed_cell("ladder." + x.id + ".val_bpb", x.val_bpb, format_number("%.4f", x.val_bpb)) + "<td>" +
         format_number("%+.4f", r.fit.residuals[i]) + "</td><td>" + format_number("%+.4f", r.fit.loo[i]) +
         "</td></tr>\n";
  }
  return t + "</table>\n";
}

std::vector<std::pair<double, double>> law_curve(const ScalingLaw& law, double n, double d_lo, double d_hi) {
  std::vector<std::pair<double, double>> points;
  for (int k = 0; k <= 40; k++) {
    const double x = std::log10(d_lo) + (std::log10(d_hi) - std::log10(d_lo)) * k / 40.0;
    points.emplace_back(x, law.at(n, std::pow(10.0, x)));
  }
  return points;
}

std::string chart(const ForecastResult& r) {
  report::LineChart c{.id = "forecast",
                      .title = "val_bpb against training tokens: the ladder, the law, the forecast",
                      .x_label = "log10(training tokens)",
                      .y_label = "val_bpb"};
  std::map<double, std::vector<std::pair<double, double>>> by_size;
  double d_lo = r.target.tokens_low > 0 ? static_cast<double>(r.target.tokens_low) : 1;
  for (const LadderRun& x : r.runs) {
    by_size[x.params].emplace_back(std::log10(x.tokens), x.val_bpb);
    d_lo = std::min(d_lo, x.tokens);
  }
  const double d_hi = std::max(static_cast<double>(r.target.tokens_high), static_cast<double>(r.target.tokens));
  for (auto& [n, pts] : by_size) {
    std::sort(pts.begin(), pts.end());
    const std::string name = "N=" + format_count(std::llround(n));
    c.series.push_back({name + " measured", pts});
    c.series.push_back({"law at " + name,
                        law_curve(r.fit.law, n, d_lo, pts.back().first > 0 ? std::pow(10.0, pts.back().first) : d_lo)});
  }
  c.series.push_back({"law at the target N=" + format_count(std::llround(r.target.params)),
                      law_curve(r.fit.law, r.target.params, d_lo, d_hi)});
  const double x = std::log10(static_cast<double>(r.target.tokens));
  c.series.push_back({"forecast", {{x, r.low}, {x, r.at.central}, {x, r.high}}});
  return report::line_chart_svg(c, 900, 480);
}

}  // namespace

std::string forecast_page_html(const ForecastResult& r) {
  std::string h = "<p class=\"note\">Recipe " + xml_escape(r.request.recipe) + " on " + xml_escape(r.target.device) +
                  ": val_bpb forecast from a " + to_string(r.request.ladder) + " ladder of " +
                  std::to_string(r.runs.size()) + " host runs" + xml_escape(seeds_note(r)) +
                  " with Chinchilla's law L(N, D) = E + A/N^alpha + B/D^beta (N non-embedding parameters, D "
                  "training tokens); the interval combines a bootstrap over the ladder's runs with their leave-one-out "
                  "scatter (src/forecast/scaling_law.h).</p>\n";
  h += "<h2>Forecast</h2>\n" + summary_table(r);
  h += "<p class=\"note\">Validation: " + xml_escape(kValidationNote) + ".</p>\n";
  if (!r.warnings.empty()) {
    h += "<h2>Warnings</h2>\n<ul>\n";
    for (const std::string& w : r.warnings) h += "<li>" + xml_escape(w) + "</li>\n";
    h += "</ul>\n";
  }
  h += "<h2>The ladder and the law</h2>\n" + chart(r) + "\n" + ladder_table(r);
  return report::html_page("Forecast: " + r.request.recipe, r.request.out, h);
}

}  // namespace nanotrn::forecast
