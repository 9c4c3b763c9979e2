// `nanotrn report RUN_DIR` (the HTML run report, report/run_report.h) and `nanotrn plot METRICS -o FILE.svg` (one
// curve of a run as SVG, report/svg_chart.h). This file parses flags and prints; the work is in the library.
#include <iostream>
#include <memory>

#include "base/error.h"
#include "base/file.h"
#include "cli/commands.h"
#include "report/run_metrics.h"
#include "report/run_report.h"
#include "report/svg_chart.h"

namespace nanotrn::cli {

void add_report(CLI::App& app) {
  auto o = std::make_shared<report::RunReportOptions>();
  auto dir = std::make_shared<std::string>();
  auto devices = std::make_shared<std::vector<std::string>>(o->devices);
  auto* cmd = app.add_subcommand(
      "report", "Write a run folder's self-contained HTML report: curves, CORE, and the recipe priced on Trainium");
  cmd->add_option("run_dir", *dir, "Run folder (train --out DIR; the speedrun's is ROOT/speedrun/run)")->required();
  cmd->add_option("-o,--out", o->output, "HTML file to write (default RUN_DIR/report.html)");
  cmd->add_option("--devices", *devices, "Catalog devices to price the recipe on (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--budget", o->budget, "Budget the predictions walk")->capture_default_str();
  cmd->add_option("--title", o->title, "Page heading");
  cmd->callback([o, dir, devices] {
    o->devices = *devices;
    std::cout << "report: " << report::write_run_report(*dir, *o) << "\n";
  });

  struct PlotArgs {
    std::string metrics, out, y = "loss", x = "step", title;
  };
  auto a = std::make_shared<PlotArgs>();
  auto* plot = app.add_subcommand("plot", "Plot one curve of a run's metrics.jsonl as an SVG file");
  plot->add_option("metrics", a->metrics, "metrics.jsonl of a run")->required();
  plot->add_option("-o,--out", a->out, "SVG file to write")->required();
  plot->add_option("--y", a->y,
                   "loss | lr_multiplier | muon_momentum | weight_decay | tokens_per_second | host_tokens_per_second "
                   "| peak_fraction | val_bpb")
      ->capture_default_str();
  plot->add_option("--x", a->x, "step | charged_seconds")->capture_default_str();
  plot->add_option("--title", a->title, "Chart title (default: the metric)");
  plot->callback([a] {
    const report::Metric y = report::parse_metric(a->y);
    const report::XAxis x = report::parse_x_axis(a->x);
    const report::RunMetrics m = report::read_run_metrics(a->metrics);
    report::LineChart c{.id = report::metric_name(y),
                        .title = a->title.empty() ? report::metric_name(y) + " of " + a->metrics : a->title,
                        .x_label = x == report::XAxis::step ? "step" : "charged seconds",
                        .y_label = report::metric_name(y)};
    c.series.push_back({report::metric_name(y), report::metric_points(m, y, x)});
    check(!c.series[0].points.empty(), "plot: " + a->metrics + " has no " + report::metric_name(y) + " points");
    const std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + report::line_chart_svg(c);
    write_file_atomic(a->out, svg.data(), svg.size());
    std::cout << "plot: " << a->out << " (" << c.series[0].points.size() << " points)\n";
  });
}

}  // namespace nanotrn::cli
