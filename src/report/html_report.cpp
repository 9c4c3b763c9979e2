// The HTML run report page. See html_report.h.
#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "base/format.h"
#include "recipe/recipe.h"
#include "recipe/recipe_diff.h"
#include "report/page.h"
#include "report/svg_chart.h"

namespace nanotrn::report {
namespace {

std::string run_section(const ReportInputs& in, double host_tps) {
  const RunMetrics& m = in.metrics;
  std::string s = "<h2>Run</h2>\n<table>\n";
  const nlohmann::json& sum = m.summary;
  if (sum.is_object()) {
    const int64_t steps = sum["steps"].get<int64_t>(), tokens = sum["tokens"].get<int64_t>();
    const double charged = sum["charged_seconds"].get<double>();
    s += table_row("steps", keyed_cell("run.steps", static_cast<double>(steps), format_count(steps)));
    s += table_row("training tokens", keyed_cell("run.tokens", static_cast<double>(tokens), format_count(tokens)));
    s += table_row("charged time", keyed_cell("run.charged_seconds", charged, format_number("%.1f s", charged)));
    if (sum.contains("stop_reason") && sum["stop_reason"].is_string()) {
      s += table_row("stopped by", plain_cell(sum["stop_reason"].get<std::string>()));
    }
  } else {
    s += table_row("status", plain_cell("no summary event: the run has not finished (or was killed)"));
  }
  if (!m.steps.empty()) {
    const StepRecord& last = m.steps.back();
    s += table_row("final training loss (step " + std::to_string(last.step) + ")",
                   keyed_cell("run.final_loss", last.loss, format_number("%.4f nats/token", last.loss)));
  }
  if (sum.is_object() && sum.contains("val_bpb") && sum["val_bpb"].is_number()) {
    const double v = sum["val_bpb"].get<double>();
    s += table_row("val_bpb", keyed_cell("run.val_bpb", v, format_number("%.4f", v)));
  }
  if (std::isfinite(in.unigram_bpb) && in.unigram_bpb > 0) {
    s += table_row("unigram baseline bpb (same tokenizer)",
                   keyed_cell("run.unigram_bpb", in.unigram_bpb, format_number("%.4f", in.unigram_bpb)));
  } else if (!in.unigram_why.empty()) {
    s += table_row("unigram baseline bpb", plain_cell("not computed: " + in.unigram_why));
  }
  if (in.core.is_object() && in.core.contains("core")) {
    const double c = in.core["core"].get<double>();
    s += table_row("CORE (mean centered accuracy, " + std::to_string(in.core["tasks"].size()) + " tasks)",
                   keyed_cell("core.score", c, format_number("%.4f", c)));
  }
  if (std::isfinite(host_tps)) {
    s += table_row("host tokens/s (measured, wall time of the charged region)",
                   keyed_cell("run.host_tokens_per_second", host_tps, format_number("%.0f", host_tps)));
  }
  s += "</table>\n";
  return s;
}

// What was run: the model's size and shape, the settings that differ from nanotrn's defaults (the resolved
// overrides, whatever recipe they came from), and the run's own header (host, threads, GEMM path, data, budget).
std::string what_was_run_section(const RunMetrics& m) {
  std::string s = "<h2>What was run</h2>\n<table>\n";
  if (m.params > 0) {
    s += table_row("parameters", keyed_cell("run.params", static_cast<double>(m.params), format_count(m.params)));
  }
  if (!m.shape.empty()) s += table_row("shape", plain_cell(m.shape));
  const nlohmann::json defaults = recipe::recipe_to_json(recipe::Recipe{});
  const std::map<std::string, nlohmann::json> flat = recipe::flatten_fields(m.recipe);
  std::string differs;
  for (const std::string& f : recipe::differing_fields({defaults, m.recipe})) {
    if (f == "name" || f == "description") continue;
    const auto it = flat.find(f);
    differs += (differs.empty() ? "" : "; ") + f + " = " + (it == flat.end() ? "absent" : it->second.dump());
  }
  s += table_row("settings that differ from nanotrn's defaults", plain_cell(differs.empty() ? "none" : differs));
  s += "</table>\n";
  if (!m.header.empty()) s += "<pre class=\"note\">" + xml_escape(m.header) + "</pre>\n";
  return s;
}

// The stages a job went through with their wall seconds, and the samples the trained model wrote (both shown only
// when the job had them: the speedrun does, a bare `train` run folder does not).
std::string stages_and_samples_section(const ReportInputs& in) {
  std::string s;
  if (!in.stages.empty()) {
    s += "<h2>Stages</h2>\n<table>\n";
    double total = 0;
    for (const auto& [name, seconds] : in.stages) {
      s += table_row(name, keyed_cell("stage." + name, seconds, format_number("%.1f s", seconds)));
      total += seconds;
    }
    s += table_row("total", keyed_cell("stage.total", total, format_number("%.1f s", total))) + "</table>\n";
  }
  if (!in.samples.empty()) {
    s += "<h2>Samples</h2>\n<p class=\"note\">Text the trained model wrote, each from \"The\" (report.md says how it "
         "sampled).</p>\n";
    for (const std::string& t : in.samples) s += "<pre>" + xml_escape(t) + "</pre>\n";
  }
  return s;
}

std::string plots_section(const ReportInputs& in) {
  const RunMetrics& m = in.metrics;
  std::string s = "<h2>Training curves</h2>\n<div class=\"grid\">\n";
  LineChart loss{.id = "loss_vs_step", .title = "training loss", .x_label = "step", .y_label = "nats / token"};
  loss.series.push_back({"train", metric_points(m, Metric::loss, XAxis::step)});
  s += line_chart_svg(loss);
  LineChart lt{.id = "loss_vs_time",
               .title = "training loss against charged time",
               .x_label = "charged seconds",
               .y_label = "nats / token"};
  lt.series.push_back({"train", metric_points(m, Metric::loss, XAxis::charged_seconds)});
  s += line_chart_svg(lt);
  const std::vector<std::pair<double, double>> val = metric_points(m, Metric::val_bpb, XAxis::step);
  if (!val.empty()) {
    LineChart vb{.id = "val_bpb", .title = "validation bits per byte", .x_label = "step", .y_label = "bpb"};
    vb.series.push_back({"val", val});
    if (std::isfinite(in.unigram_bpb) && in.unigram_bpb > 0) {
      const double first = m.steps.empty() ? 0.0 : static_cast<double>(m.steps.front().step);
      vb.series.push_back({"unigram baseline",
                           {{std::min(first, val.front().first), in.unigram_bpb}, {val.back().first, in.unigram_bpb}}});
    }
    s += line_chart_svg(vb);
  }
  LineChart tp{
      .id = "throughput", .title = "throughput", .x_label = "step", .y_label = "tokens / s", .y_from_zero = true};
  tp.series.push_back({"tokens_per_second", metric_points(m, Metric::tokens_per_second, XAxis::step)});
  // The host's rate only when it is another series: under the wall clock the two are the same numbers.
  const std::vector<std::pair<double, double>> host = metric_points(m, Metric::host_tokens_per_second, XAxis::step);
  if (host != tp.series.back().points) tp.series.push_back({"host_tokens_per_second", host});
  s += line_chart_svg(tp);
  if (!m.peak_kind.empty()) {
    LineChart pk{.id = "peak_fraction",
                 .title = m.peak_kind == "mfu" ? "MFU on the run's device clock" : "% of the host's measured peak",
                 .x_label = "step",
                 .y_label = "% of peak",
                 .y_from_zero = true};
    std::vector<std::pair<double, double>> pct = metric_points(m, Metric::peak_fraction, XAxis::step);
    for (auto& [x, y] : pct) y *= 100.0;
    pk.series.push_back({m.peak_kind, pct});
    s += line_chart_svg(pk);
  }
  LineChart sc{.id = "schedules", .title = "schedules", .x_label = "step", .y_label = "value", .y_from_zero = true};
  sc.series.push_back({"lr_multiplier", metric_points(m, Metric::lr_multiplier, XAxis::step)});
  sc.series.push_back({"muon_momentum", metric_points(m, Metric::muon_momentum, XAxis::step)});
  sc.series.push_back({"weight_decay", metric_points(m, Metric::weight_decay, XAxis::step)});
  s += line_chart_svg(sc);
  s += "</div>\n<p class=\"note\">Points are the logged steps (train.log_every and step 1). Tokens/s is on the run's "
       "clock (the modelled device's under <code>--clock</code>) beside the host's measured rate.</p>\n";
  return s;
}

std::string core_section(const nlohmann::json& core) {
  if (!core.is_object() || !core.contains("tasks")) return "";
  BarChart b{.id = "core_tasks", .title = "CORE per task (centered accuracy)", .value_label = "centered accuracy"};
  std::string t = "<table>\n<tr><th>task</th><th>shots</th><th>examples</th><th>accuracy</th><th>centered</th></tr>\n";
  for (const auto& task : core["tasks"]) {
    const std::string label = task.value("label", std::string("?"));
    const double c = task.value("centered", 0.0);
    b.bars.push_back({label, c});
    t += "<tr><td>" + xml_escape(label) + "</td><td>" + std::to_string(task.value("num_fewshot", 0)) + "</td><td>" +
         std::to_string(task.value("examples", 0)) + "</td><td>" + format_number("%.4f", task.value("accuracy", 0.0)) +
         "</td>" + keyed_cell("core.task." + label, c, format_number("%.4f", c)) + "</tr>\n";
  }
  t += "</table>\n";
  return "<h2>CORE</h2>\n<div class=\"grid\">" + bar_chart_svg(b) + "</div>\n" + t;
}

std::string device_section(const predict::Prediction& p, double host_tps) {
  const predict::PhasePrediction& ph = p.phases.back();
  const std::string k = "predict." + p.device + ".";
  std::string s = "<h3>" + xml_escape(p.device) + " (" + xml_escape(p.device_kind) + ", " + std::to_string(p.ranks) +
                  " rank(s), LNC " + std::to_string(p.lnc) + ")</h3>\n<table>\n";
  s += table_row("software stack", plain_cell(xml_escape(p.stack.name) + " (" +
                                              std::string(recipe::to_string(p.stack.execution)) + " execution)"));
  s += table_row("step time (last batch phase)", keyed_cell(k + "step_s", ph.time.step_s,
                                                            format_number("%.4f s", ph.time.step_s) +
                                                                format_number(" (band %.4f", ph.time.step_s_band[0]) +
                                                                format_number("-%.4f s)", ph.time.step_s_band[1])));
  s += table_row("tokens/s", keyed_cell(k + "tokens_per_s", ph.tokens_per_s,
                                        format_number("%.0f", ph.tokens_per_s) +
                                            format_number(" (band %.0f", ph.tokens_per_s_band[0]) +
                                            format_number("-%.0f)", ph.tokens_per_s_band[1])));
  s += table_row("MFU", keyed_cell(k + "mfu", ph.mfu, format_number("%.1f %%", 100.0 * ph.mfu)));
  s += table_row("budget", keyed_cell(k + "budget_s", p.budget_s, format_number("%.0f s", p.budget_s)));
  if (p.compile_s > 0)
    s += table_row("compile before the first step",
                   plain_cell(format_number("%.0f s", p.compile_s) + format_number(" (%.0f s charged)", p.startup_s)));
  s += table_row("steps in the budget",
                 keyed_cell(k + "steps", static_cast<double>(p.walk.steps),
                            std::to_string(p.walk.steps) + " (band " + std::to_string(p.walk_high.steps) + "-" +
                                std::to_string(p.walk_low.steps) + ")"));
  if (std::isfinite(host_tps) && host_tps > 0) {
    s +=
        table_row("speed-up over this host (tokens/s)", plain_cell(format_number("%.1fx", ph.tokens_per_s / host_tps)));
  }
  s += "</table>\n";
  const predict::StepBreakdown sb = predict::step_breakdown(ph.time);
  BarChart g{.id = "predict_" + p.device + "_groups",
             .title = p.device + ": time per op group, one step",
             .value_label = "% of the step"};
  for (const auto& [name, v] : sb.groups) {
    if (v > 0) g.bars.push_back({name, 100.0 * v / ph.time.step_s});
  }
  BarChart e{.id = "predict_" + p.device + "_engines",
             .title = p.device + ": engine busy, one step",
             .value_label = "% of the step (DMA: bytes at peak DMA bandwidth)"};
  for (int i = 0; i < hw::kEngineCount; i++) {
    e.bars.push_back({std::string(hw::engine_name(static_cast<hw::Engine>(i))),
                      100.0 * sb.use.busy_s[static_cast<size_t>(i)] / ph.time.step_s});
  }
  s += "<div class=\"grid\">" + bar_chart_svg(g) + bar_chart_svg(e) + "</div>\n";
  s += "<table>\n<tr><th>kernel</th><th>pass</th><th>shape</th><th>invocations</th><th>time s</th><th>share</th>"
       "<th>bound</th><th>verdict</th></tr>\n";
  const std::vector<predict::KernelLine> lines = predict::last_phase_kernels(p);
  for (size_t i = 0; i < std::min<size_t>(10, lines.size()); i++) {
    const predict::KernelLine& l = lines[i];
    s += "<tr><td>" + xml_escape(l.label + (l.kernel.empty() ? " (roofline)" : "")) + "</td><td>" +
         predict::to_string(l.pass) + "</td><td>" + xml_escape(l.shape) + "</td><td>" + std::to_string(l.invocations) +
         "</td><td>" + format_number("%.6f", l.seconds) + "</td><td>" + format_number("%.1f %%", 100.0 * l.share) +
         "</td><td>" + std::string(hw::bound_name(l.bound)) + "</td><td>" + xml_escape(l.bound.verdict) +
         "</td></tr>\n";
  }
  s += "</table>\n";
  return s;
}

}  // namespace

std::string run_report_html(const ReportInputs& in) {
  const RunMetrics& m = in.metrics;
  double host_tps = NAN;
  if (m.summary.is_object() && m.summary.contains("wall_seconds") && m.summary["wall_seconds"].is_number()) {
    const double wall = m.summary["wall_seconds"].get<double>();
    if (wall > 0) host_tps = static_cast<double>(m.summary["tokens"].get<int64_t>()) / wall;
  }
  std::string h;
  if (m.recipe.is_object()) {
    h += "<p class=\"note\">Recipe <b>" + xml_escape(m.recipe.value("name", std::string("?"))) +
         "</b>: " + xml_escape(m.recipe.value("description", std::string())) + "</p>\n";
  }
  h += run_section(in, host_tps);
  h += what_was_run_section(m);
  h += stages_and_samples_section(in);
  h += plots_section(in);
  h += core_section(in.core);
  if (!in.predictions.empty()) {
    h += "<h2>The same recipe on Trainium (modelled, not measured)</h2>\n<p class=\"note\">nanotrn predict prices the "
         "recipe's training step on each device's software model (src/predict/) as the recipe is: its batch and its "
         "launch section (the layout and stack in each row), not a launch retuned for the device, so a CPU recipe's "
         "small batch is priced as that batch. The budget is the one named in each table. Shares are kernel times "
         "before overlap.</p>\n";
    h += "<table>\n<tr><th>device</th><th>launch</th><th>stack</th><th>step s "
         "(band)</th><th>tokens/s</th><th>MFU</th><th>steps in "
         "budget (band)</th></tr>\n";
    if (std::isfinite(host_tps)) {
      h += "<tr><td>this host (measured)</td><td>-</td><td>-</td><td>-</td><td>" + format_number("%.0f", host_tps) +
           "</td><td>-</td><td>" + (m.summary.is_object() ? std::to_string(m.summary["steps"].get<int64_t>()) : "-") +
           " (its own budget)</td></tr>\n";
    }
    for (const predict::Prediction& p : in.predictions) {
      const predict::PhasePrediction& ph = p.phases.back();
      const std::string launch = std::to_string(p.layout.nodes * p.layout.chips) + " chip(s) x " +
                                 std::to_string(p.layout.ranks_per_chip) + " rank(s), LNC " +
                                 std::to_string(p.layout.lnc);
      h += "<tr><td>" + xml_escape(p.device) + "</td><td>" + xml_escape(launch) + "</td><td>" +
           xml_escape(p.stack.name) + "</td><td>" + format_number("%.4f", ph.time.step_s) +
           format_number(" (%.4f", ph.time.step_s_band[0]) + format_number("-%.4f)", ph.time.step_s_band[1]) +
           "</td><td>" + format_number("%.0f", ph.tokens_per_s) + "</td><td>" +
           format_number("%.1f %%", 100.0 * ph.mfu) + "</td><td>" + format_count(p.walk.steps) + " (" +
           std::to_string(p.walk_high.steps) + "-" + std::to_string(p.walk_low.steps) + ") in " +
           format_number("%.0f s", p.budget_s) + "</td></tr>\n";
    }
    h += "</table>\n";
    for (const predict::Prediction& p : in.predictions) {
      if (!p.phases.empty()) h += device_section(p, host_tps);
    }
  }
  return html_page(in.title, in.source + " \u00b7 " + in.generated_by, h);
}

}  // namespace nanotrn::report
