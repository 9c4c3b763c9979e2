// A sweep's leaderboard. See leaderboard.h.
#include "sweep/leaderboard.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/error.h"
#include "base/format.h"
#include "report/page.h"
#include "report/run_metrics.h"
#include "report/svg_chart.h"

namespace nanotrn::sweep {
namespace {

using nlohmann::json;

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string fmt(double v, const char* f) { return std::isfinite(v) ? format_number(f, v) : std::string("-"); }

// One variant's row from its records: its highest rung with a done trial, the values there, the counts.
VariantRow row_of(const SweepPlan& plan, const Variant& v, const std::map<std::string, TrialRecord>& records) {
  VariantRow row;
  row.id = v.id;
  row.overrides = describe(v);
  row.rung = -1;
  for (int r = rung_count(plan) - 1; r >= 0 && row.rung < 0; r--) {
    for (const Trial& t : rung_trials(plan, r, {v.id})) {
      auto it = records.find(t.id);
      if (it != records.end() && it->second.status == "done") row.rung = r;
    }
  }
  std::vector<double> core;
  for (int r = 0; r < rung_count(plan); r++) {
    for (const Trial& t : rung_trials(plan, r, {v.id})) {
      auto it = records.find(t.id);
      if (it == records.end()) continue;
      const TrialRecord& rec = it->second;
      if (rec.status == "failed") row.failed++;
      if (rec.status == "skipped") row.skipped++;
      if (rec.status != "done" && row.note.empty()) row.note = rec.status + ": " + rec.reason;
      if (rec.prediction.is_object() && rec.prediction.value("fits", false)) {
        row.steps = rec.prediction.value("steps", int64_t{0});
        row.mfu = rec.prediction.value("mfu", 0.0);
      }
      if (r != row.rung || rec.status != "done") continue;
      row.done++;
      row.runs.push_back(rec.run);
      if (rec.metrics.value("val_bpb", json()).is_number()) row.val_bpb.push_back(rec.metrics.at("val_bpb"));
      if (rec.metrics.value("core", json()).is_number()) core.push_back(rec.metrics.at("core"));
    }
  }
  row.bpb = summarize(row.val_bpb);
  if (!core.empty()) row.core = summarize(core);
  if (row.rung >= 0 && row.rung < rung_count(plan) - 1) row.note = "stopped at rung " + std::to_string(row.rung);
  return row;
}

bool ranks_before(const VariantRow& a, const VariantRow& b) {
  if (a.rung != b.rung) return a.rung > b.rung;  // reached further first; no result (-1) last
  const double ma = a.val_bpb.empty() ? INFINITY : a.bpb.mean, mb = b.val_bpb.empty() ? INFINITY : b.bpb.mean;
  if (ma != mb) return ma < mb;
  return a.id < b.id;
}

std::string table_row(const VariantRow& r, size_t rank) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%4zu  %-6s %8s %8s %9s %9s %7s %8lld %6s  %s%s\n", rank, r.id.c_str(),
                fmt(r.bpb.mean, "%.4f").c_str(), fmt(r.bpb.sd, "%.4f").c_str(), fmt(r.diff, "%+.4f").c_str(),
                fmt(r.welch.p, "%.3g").c_str(), r.core ? fmt(r.core->mean, "%.4f").c_str() : "-",
                static_cast<long long>(r.steps), fmt(100 * r.mfu, "%.1f%%").c_str(), r.overrides.c_str(),
                r.note.empty() ? "" : ("  [" + r.note + "]").c_str());
  return buf;
}

std::string html_row(const VariantRow& r, size_t rank, const std::string& baseline) {
  auto td = [](const std::string& s) { return "<td>" + report::xml_escape(s) + "</td>"; };
  std::string h = "<tr data-variant=\"" + report::xml_escape(r.id) + "\"" +
                  (r.id == baseline ? " class=\"baseline\"" : "") + ">" + td(std::to_string(rank)) + td(r.id) +
                  td(r.overrides) + td(std::to_string(r.done)) + td(fmt(r.bpb.mean, "%.4f")) +
                  td(fmt(r.bpb.sd, "%.4f")) + td(fmt(r.diff, "%+.4f")) + td(fmt(r.welch.p, "%.3g")) +
                  td(r.core ? fmt(r.core->mean, "%.4f") : "-") + td(std::to_string(r.steps)) +
                  td(fmt(100 * r.mfu, "%.1f%%")) + td(r.note) + "</tr>\n";
  return h;
}

std::string curves_svg(const Leaderboard& lb, const std::string& dir, int curves) {
  report::LineChart c{.id = "sweep_loss",
                      .title = "training loss of the best variants (first seed)",
                      .x_label = "step",
                      .y_label = "loss (nats/token)"};
  int n = 0;
  for (const VariantRow& r : lb.rows) {
    if (n >= curves || r.runs.empty()) continue;
    try {
      const report::RunMetrics m = report::read_run_metrics(dir + "/" + r.runs.front() + "/metrics.jsonl");
      c.series.push_back({r.id, report::metric_points(m, report::Metric::loss, report::XAxis::step)});
      n++;
    } catch (const Error&) {
      // a run folder without readable metrics: the table still has the variant
    }
  }
  return report::line_chart_svg(c, 760, 380);
}

}  // namespace

Leaderboard make_leaderboard(const SweepPlan& plan, const std::map<std::string, TrialRecord>& records) {
  Leaderboard lb;
  lb.baseline = plan.baseline;
  lb.device = plan.device;
  lb.clock = plan.clock;
  lb.last_rung = rung_count(plan) - 1;
  for (const Variant& v : plan.variants) lb.rows.push_back(row_of(plan, v, records));
  const auto base =
      std::find_if(lb.rows.begin(), lb.rows.end(), [&](const VariantRow& r) { return r.id == plan.baseline; });
  for (VariantRow& r : lb.rows) {
    const bool comparable = base != lb.rows.end() && base->rung == r.rung && !base->val_bpb.empty();
    r.diff = comparable && !r.val_bpb.empty() ? r.bpb.mean - base->bpb.mean : NAN;
    r.welch = comparable ? welch_t_test(r.val_bpb, base->val_bpb) : Welch{NAN, NAN, NAN};
  }
  std::stable_sort(lb.rows.begin(), lb.rows.end(), ranks_before);
  return lb;
}

json Leaderboard::to_json() const {
  json rows_json = json::array();
  for (const VariantRow& r : rows) {
    json j = {{"variant", r.id},       {"overrides", r.overrides}, {"rung", r.rung},
              {"val_bpb", r.val_bpb},  {"mean", num(r.bpb.mean)},  {"sd", num(r.bpb.sd)},
              {"n", r.bpb.n},          {"diff", num(r.diff)},      {"t", num(r.welch.t)},
              {"df", num(r.welch.df)}, {"p", num(r.welch.p)},      {"steps", r.steps},
              {"mfu", r.mfu},          {"done", r.done},           {"failed", r.failed},
              {"skipped", r.skipped},  {"note", r.note},           {"runs", r.runs}};
    if (r.core) j["core"] = {{"mean", num(r.core->mean)}, {"sd", num(r.core->sd)}, {"n", r.core->n}};
    rows_json.push_back(std::move(j));
  }
  return {{"baseline", baseline}, {"device", device}, {"clock", clock}, {"rows", rows_json}};
}

std::string leaderboard_text(const Leaderboard& lb) {
  std::string s = "leaderboard (val_bpb over seeds; diff and Welch p against the baseline '" + lb.baseline +
                  "'; steps and MFU on " + lb.device + ", modelled; trained under the " + lb.clock + " clock)\n";
  s += "rank  variant  mean      sd      diff         p    CORE    steps    MFU  overrides\n";
  for (size_t i = 0; i < lb.rows.size(); i++) s += table_row(lb.rows[i], i + 1);
  return s;
}

std::string leaderboard_html(const Leaderboard& lb, const SweepPlan& plan, const std::string& dir, int curves) {
  std::string h =
      "<style>tr.baseline{background:#eef}</style>\n<p>Recipe " + report::xml_escape(plan.recipe) + "; " +
      std::to_string(plan.variants.size()) + " variants x " + std::to_string(plan.seeds) +
      " seed(s); trained on this host under the " + report::xml_escape(plan.clock) +
      " clock; steps and MFU priced on " + report::xml_escape(plan.device) +
      " (modelled). val_bpb: mean and sample standard deviation over the seeds; diff and Welch's two-sided p against"
      " the baseline <b>" +
      report::xml_escape(lb.baseline) +
      "</b>.</p>\n<table>\n<tr><th>rank</th><th>variant</th>"
      "<th>overrides</th><th>seeds</th><th>val_bpb mean</th><th>sd</th><th>diff</th><th>p</th><th>CORE</th>"
      "<th>steps on " +
      report::xml_escape(plan.device) + "</th><th>MFU</th><th>note</th></tr>\n";
  for (size_t i = 0; i < lb.rows.size(); i++) h += html_row(lb.rows[i], i + 1, lb.baseline);
  h += "</table>\n<h2>Loss curves</h2>\n" + curves_svg(lb, dir, curves) + "\n";
  return report::html_page("Sweep leaderboard", dir, h);
}

}  // namespace nanotrn::sweep
