// `nanotrn report RUN_DIR` (the HTML run report, report/run_report.h) and `nanotrn plot RUN... -o FILE.svg` (one
// curve of one or several runs as SVG, report/svg_chart.h). This file parses flags and prints; the work is in the
// library.
#include <filesystem>
#include <iostream>
#include <memory>

#include "base/error.h"
#include "base/file.h"
#include "cli/commands.h"
#include "report/run_comparison.h"
#include "report/run_metrics.h"
#include "report/run_report.h"
#include "report/svg_chart.h"

namespace nanotrn::cli {

namespace {

// `report A B ...`: the runs side by side, printed (or --json) and written as one page to --out (never over a file).
void compare(const std::vector<std::string>& dirs, const std::string& out, bool json) {
  check(!out.empty(), "report with several runs compares them: give --out FILE.html for the page");
  check(!std::filesystem::exists(out), "--out " + out + " exists; nanotrn does not overwrite it (choose a new name)");
  std::vector<report::RunMetrics> runs;
  for (const std::string& d : dirs) {
    runs.push_back(report::read_run_metrics(d));
    if (!runs.back().torn_tail.empty()) std::cerr << "report: note: " << runs.back().torn_tail << "\n";
  }
  const report::RunComparison c = report::compare_runs(runs);
  const std::string page = report::comparison_html(c, runs);
  write_file_atomic(out, page.data(), page.size());
  if (json) {
    std::cout << nlohmann::json{{"page", out}, {"comparison", report::comparison_json(c)}}.dump(2) << "\n";
    return;
  }
  std::cout << report::comparison_text(c) << "report: " << out << "\n";
}
}  // namespace

void add_report(CLI::App& app) {
  auto o = std::make_shared<report::RunReportOptions>();
  auto dirs = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  auto devices = std::make_shared<std::vector<std::string>>(o->devices);
  auto* cmd = app.add_subcommand("report",
                                 "Write a run folder's self-contained HTML report: curves, CORE, and the recipe priced "
                                 "on Trainium; several run folders: the runs side by side");
  cmd->add_option("run_dirs", *dirs,
                  "Run folder (train --out DIR; the speedrun's is ROOT/speedrun/run); two or more compare the runs "
                  "(figures, the recipe fields that differ, the curves overlaid)")
      ->required();
  cmd->add_option("-o,--out", o->output,
                  "HTML file to write (one run: default RUN_DIR/report.html; several: required, never overwritten)");
  cmd->add_flag("--json", *json, "With several runs: the comparison as JSON");
  cmd->add_option("--device", *devices, "Catalog devices to price the recipe on (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--budget", o->budget, "Budget the predictions walk")->capture_default_str();
  cmd->add_option("--title", o->title, "Page heading");
  cmd->callback([o, dirs, devices, json] {
    if (dirs->size() > 1) {
      compare(*dirs, o->output, *json);
      return;
    }
    check(!*json, "--json goes with several runs (the comparison); one run's report is its HTML page");
    o->devices = *devices;
    const report::RunReportWritten w = report::write_run_report(dirs->front(), *o);
    for (const std::string& note : w.notes) std::cerr << "report: note: " << note << "\n";
    std::cout << "report: " << w.path << "\n";
  });

  struct PlotArgs {
    std::vector<std::string> runs;
    std::string out, y = "loss", x = "step", title;
    double smooth = 0.0;
  };
  auto a = std::make_shared<PlotArgs>();
  auto* plot = app.add_subcommand("plot", "Plot one curve of one or several runs as an SVG file (one line per run)");
  plot->add_option("runs", a->runs, "metrics.jsonl files or run folders (train --out DIR)")->required();
  plot->add_option("-o,--out", a->out, "SVG file to write")->required();
  plot->add_option("--y", a->y,
                   "loss | lr_multiplier | muon_momentum | weight_decay | tokens_per_second | host_tokens_per_second "
                   "| peak_fraction | val_bpb")
      ->capture_default_str();
  plot->add_option("--x", a->x, "step | charged_seconds | tokens | flops (tokens x the recipe's 6N + attention)")
      ->capture_default_str();
  plot->add_option("--smooth", a->smooth,
                   "Exponential moving average weight in [0, 1) (TensorBoard's smoothing, debiased); 0 = raw")
      ->capture_default_str();
  plot->add_option("--title", a->title, "Chart title (default: the metric)");
  plot->callback([a] {
    const report::Metric y = report::parse_metric(a->y);
    const report::XAxis x = report::parse_x_axis(a->x);
    report::LineChart c{.id = report::metric_name(y),
                        .title = a->title.empty()
                                     ? report::metric_name(y) + " of " +
                                           (a->runs.size() == 1 ? a->runs[0] : std::to_string(a->runs.size()) + " runs")
                                     : a->title,
                        .x_label = report::x_axis_label(x),
                        .y_label = report::metric_name(y)};
    size_t points = 0;
    for (const std::string& run : a->runs) {
      const report::RunMetrics m = report::read_run_metrics(run);
      if (!m.torn_tail.empty()) std::cerr << "plot: note: " << m.torn_tail << "\n";
      c.series.push_back({a->runs.size() == 1 ? report::metric_name(y) : report::run_label(m.path),
                          report::smooth(report::metric_points(m, y, x), a->smooth)});
      check(!c.series.back().points.empty(), "plot: " + m.path + " has no " + report::metric_name(y) + " points");
      points += c.series.back().points.size();
    }
    const std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + report::line_chart_svg(c);
    write_file_atomic(a->out, svg.data(), svg.size());
    std::cout << "plot: " << a->out << " (" << c.series.size() << (c.series.size() == 1 ? " curve, " : " curves, ")
              << points << " points)\n";
  });
}

}  // namespace nanotrn::cli
