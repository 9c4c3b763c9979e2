// The HTML run report: one self-contained page (inline CSS and SVG, no script, no external resource) that opens
// with no network. `nanotrn report RUN_DIR` and `nanotrn speedrun` write it (run_report.h gathers the inputs).
//
//   ReportInputs in;  in.metrics = read_run_metrics(dir + "/metrics.jsonl");  in.predictions = {trn2, trn3};
//   std::string html = run_report_html(in);
//
// Sections: the run (steps, tokens, charged time, final training loss, val_bpb, the unigram baseline, CORE); plots
// of training loss against step and against charged time, validation bpb against step beside the unigram baseline,
// tokens/s on the run's clock and on the host, % of peak (MFU on device clocks), the schedules (lr multiplier, Muon
// momentum and weight decay); CORE per task (bar chart and table) when core.json is given; and per predicted device
// the step time, tokens/s, MFU and steps in the budget beside the host's measured tokens/s, the time per op group,
// the engine busy times and the top kernels with their binding engine (predict/top_kernels.h).
// Every number a test reads carries data-key / data-value (exact, %.17g) beside its rounded text; plots follow the
// contract in svg_chart.h. Keys: run.steps, run.tokens, run.charged_seconds, run.final_loss, run.val_bpb (when
// finite), run.unigram_bpb (when given), run.host_tokens_per_second (when the summary has wall time), core.score,
// core.task.<label>, predict.<device>.{step_s, tokens_per_s, mfu, steps, budget_s} (the last batch phase's step).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "predict/predictor.h"
#include "report/run_metrics.h"

namespace nanotrn::report {

struct ReportInputs {
  std::string title;   // page heading
  std::string source;  // where the run lives, shown under the heading
  RunMetrics metrics;
  double unigram_bpb = 0;   // NaN or <= 0: not computed
  std::string unigram_why;  // why not, shown in its place
  nlohmann::json core;      // core.json (icl/core_eval.h core_json), or null
  std::vector<predict::Prediction> predictions;
  std::string generated_by;                              // version line
  std::vector<std::pair<std::string, double>> stages{};  // a job's stages and their wall seconds (the speedrun)
  std::vector<std::string> samples{};                    // text the trained model wrote (the speedrun)
};

std::string run_report_html(const ReportInputs& in);

}  // namespace nanotrn::report
