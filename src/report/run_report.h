// `nanotrn report RUN_DIR`: gathers what the HTML report shows for a run folder and writes RUN_DIR/report.html.
//
//   RunReportWritten w = write_run_report("out/run", {});        // trn2 and trn3, the challenge's 30 minutes
//   w.path; w.notes   // e.g. a torn last line of metrics.jsonl, left out
//   ReportInputs in = gather_run_report("out/run", {.devices = {"trn2"}});
//
// From the folder: metrics.jsonl (required; report/run_metrics.h), core.json when present (eval core, speedrun),
// and the unigram baseline of the recipe's own shards (baseline.h) unless the options carry one. Predictions: the run's
// own recipe (its start event) priced on each device (predict/predictor.h) with train.budget = options.budget and no
// step limit, so every device answers "what does this recipe reach in that budget". The file is written atomically.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "predict/predictor.h"
#include "recipe/recipe.h"
#include "report/html_report.h"

namespace nanotrn::report {

struct RunReportOptions {
  std::vector<std::string> devices = {"trn2", "trn3"};  // catalog names (nanotrn devices)
  std::string budget = "30m";                           // the budget the predictions walk
  double unigram_bpb = std::numeric_limits<double>::quiet_NaN();
  std::string output = {};  // default RUN_DIR/report.html
  std::string title = {};   // default "nanotrn run report: <recipe name>"
};

// The recipe priced on each catalog device with train.budget = budget and train.steps = 0.
std::vector<predict::Prediction> predict_on_devices(recipe::Recipe recipe, const std::vector<std::string>& devices,
                                                    const std::string& budget);

ReportInputs gather_run_report(const std::string& run_dir, const RunReportOptions& options);
struct RunReportWritten {
  std::string path;                // the page written
  std::vector<std::string> notes;  // what was left out and why (a torn last metrics line), for the user
};
RunReportWritten write_run_report(const std::string& run_dir, const RunReportOptions& options);

}  // namespace nanotrn::report
