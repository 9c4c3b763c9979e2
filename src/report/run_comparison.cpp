// Runs side by side. See run_comparison.h.
#include "report/run_comparison.h"

#include <cmath>
#include <limits>
#include <map>

#include "base/error.h"
#include "base/format.h"
#include "recipe/recipe_diff.h"
#include "report/page.h"
#include "report/svg_chart.h"

namespace nanotrn::report {
namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

double number_or_nan(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : kUnknown;
}

// The run's figures: the summary's when it finished, else its last step record's.
RunFigures figures_of(const RunMetrics& m) {
  RunFigures f;
  f.path = m.path;
  f.finished = m.summary.is_object();
  if (f.finished) {
    f.val_bpb = number_or_nan(m.summary, "val_bpb");
    f.last_loss = number_or_nan(m.summary, "last_loss");
    f.charged_seconds = number_or_nan(m.summary, "charged_seconds");
    f.wall_seconds = number_or_nan(m.summary, "wall_seconds");
    f.steps = m.summary.value("steps", int64_t{0});
    f.tokens = m.summary.value("tokens", int64_t{0});
    return f;
  }
  f.val_bpb = m.evals.empty() ? kUnknown : m.evals.back().val_bpb;
  f.wall_seconds = kUnknown;
  if (!m.steps.empty()) {
    f.last_loss = m.steps.back().loss;
    f.charged_seconds = m.steps.back().charged_seconds;
    f.steps = m.steps.back().step;
    f.tokens = m.steps.back().tokens;
  } else {
    f.last_loss = f.charged_seconds = kUnknown;
  }
  return f;
}

std::string figure_text(double v, const char* format) { return std::isfinite(v) ? format_number(format, v) : "-"; }

}  // namespace

RunComparison compare_runs(const std::vector<RunMetrics>& runs) {
  check(runs.size() >= 2, "report: comparing runs needs at least two (give two or more run folders)");
  RunComparison c;
  std::vector<nlohmann::json> recipes;
  std::map<std::string, int> seen;
  for (const RunMetrics& m : runs) {
    nlohmann::json r = m.recipe;
    if (r.is_object()) {
      r.erase("name");
      r.erase("description");
    }
    recipes.push_back(std::move(r));
    seen[run_label(m.path)]++;
  }
  c.fields = recipe::differing_fields(recipes);
  for (size_t i = 0; i < runs.size(); i++) {
    RunFigures f = figures_of(runs[i]);
    const std::string label = run_label(runs[i].path);
    f.label = seen[label] > 1 ? label + " (" + std::to_string(i + 1) + ")" : label;
    const std::map<std::string, nlohmann::json> flat = recipe::flatten_fields(recipes[i]);
    for (const std::string& field : c.fields) {
      const auto it = flat.find(field);
      f.values.push_back(it == flat.end() ? "absent" : it->second.dump());
    }
    c.runs.push_back(std::move(f));
  }
  return c;
}

std::string comparison_text(const RunComparison& c) {
  std::vector<std::pair<std::string, std::vector<std::string>>> rows = {
      {"val_bpb", {}}, {"last loss", {}}, {"steps", {}}, {"tokens", {}}, {"charged s", {}}, {"wall s", {}}};
  for (const RunFigures& f : c.runs) {
    rows[0].second.push_back(figure_text(f.val_bpb, "%.4f") + (f.finished ? "" : " (unfinished)"));
    rows[1].second.push_back(figure_text(f.last_loss, "%.4f"));
    rows[2].second.push_back(format_count(f.steps));
    rows[3].second.push_back(format_count(f.tokens));
    rows[4].second.push_back(figure_text(f.charged_seconds, "%.1f"));
    rows[5].second.push_back(figure_text(f.wall_seconds, "%.1f"));
  }
  for (size_t k = 0; k < c.fields.size(); k++) {
    std::vector<std::string> v;
    for (const RunFigures& f : c.runs) v.push_back(f.values[k]);
    rows.emplace_back(c.fields[k], std::move(v));
  }
  size_t label_width = 10, col = 12;
  for (const auto& [label, values] : rows) {
    label_width = std::max(label_width, label.size());
    for (const std::string& v : values) col = std::max(col, v.size());
  }
  for (const RunFigures& f : c.runs) col = std::max(col, f.label.size());
  const auto pad = [](const std::string& s, size_t w) { return s + std::string(w > s.size() ? w - s.size() : 0, ' '); };
  std::string s = pad("run", label_width);
  for (const RunFigures& f : c.runs) s += "  " + pad(f.label, col);
  s += "\n";
  for (const auto& [label, values] : rows) {
    s += pad(label, label_width);
    for (const std::string& v : values) s += "  " + pad(v, col);
    s += "\n";
  }
  if (c.fields.empty()) s += "(the runs' recipes are the same)\n";
  return s;
}

std::string comparison_html(const RunComparison& c, const std::vector<RunMetrics>& runs) {
  std::string body = "<h2>Figures</h2><table><tr><th>run</th>";
  for (const RunFigures& f : c.runs) body += "<th>" + xml_escape(f.label) + "</th>";
  body += "</tr>";
  const auto row = [&](const std::string& label, const std::string& key, auto value, const char* format) {
    body += "<tr><th>" + label + "</th>";
    for (size_t i = 0; i < c.runs.size(); i++) {
      const double v = value(c.runs[i]);
      body += std::isfinite(v) ? keyed_cell("run" + std::to_string(i) + "." + key, v, format_number(format, v))
                               : plain_cell("-");
    }
    body += "</tr>";
  };
  row(
      "val_bpb", "val_bpb", [](const RunFigures& f) { return f.val_bpb; }, "%.4f");
  row(
      "last loss", "last_loss", [](const RunFigures& f) { return f.last_loss; }, "%.4f");
  row(
      "steps", "steps", [](const RunFigures& f) { return static_cast<double>(f.steps); }, "%.0f");
  row(
      "tokens", "tokens", [](const RunFigures& f) { return static_cast<double>(f.tokens); }, "%.0f");
  row(
      "charged s", "charged_seconds", [](const RunFigures& f) { return f.charged_seconds; }, "%.1f");
  row(
      "wall s", "wall_seconds", [](const RunFigures& f) { return f.wall_seconds; }, "%.1f");
  body += "</table><h2>Recipe fields that differ</h2>";
  if (c.fields.empty()) body += "<p>The runs' recipes are the same.</p>";
  if (!c.fields.empty()) {
    body += "<table><tr><th>field</th>";
    for (const RunFigures& f : c.runs) body += "<th>" + xml_escape(f.label) + "</th>";
    body += "</tr>";
    for (size_t k = 0; k < c.fields.size(); k++) {
      body += "<tr><th>" + xml_escape(c.fields[k]) + "</th>";
      for (const RunFigures& f : c.runs) body += plain_cell(f.values[k]);
      body += "</tr>";
    }
    body += "</table>";
  }
  body += "<h2>Curves</h2>";
  const auto chart = [&](const std::string& id, const std::string& title, Metric y, XAxis x) {
    LineChart ch{.id = id, .title = title, .x_label = x_axis_label(x), .y_label = metric_name(y)};
    for (size_t i = 0; i < runs.size(); i++) ch.series.push_back({c.runs[i].label, metric_points(runs[i], y, x)});
    body += line_chart_svg(ch);
  };
  chart("loss_vs_step", "training loss", Metric::loss, XAxis::step);
  chart("loss_vs_tokens", "training loss", Metric::loss, XAxis::tokens);
  chart("val_bpb_vs_time", "val_bpb", Metric::val_bpb, XAxis::charged_seconds);
  std::string paths;
  for (const RunFigures& f : c.runs) paths += (paths.empty() ? "" : ", ") + f.path;
  return html_page("nanotrn run comparison", paths, body);
}

nlohmann::json comparison_json(const RunComparison& c) {
  nlohmann::json runs = nlohmann::json::array();
  for (const RunFigures& f : c.runs) {
    const auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
    nlohmann::json differs = nlohmann::json::object();
    for (size_t k = 0; k < c.fields.size(); k++) differs[c.fields[k]] = f.values[k];
    runs.push_back({{"label", f.label},
                    {"path", f.path},
                    {"finished", f.finished},
                    {"val_bpb", num(f.val_bpb)},
                    {"last_loss", num(f.last_loss)},
                    {"steps", f.steps},
                    {"tokens", f.tokens},
                    {"charged_seconds", num(f.charged_seconds)},
                    {"wall_seconds", num(f.wall_seconds)},
                    {"fields", differs}});
  }
  return {{"fields", c.fields}, {"runs", runs}};
}

}  // namespace nanotrn::report
