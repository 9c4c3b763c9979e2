// A run's metrics.jsonl (written by train/trainer.cpp), read back for reports and plots.
//
//   RunMetrics m = read_run_metrics("out/run/metrics.jsonl");
//   m.steps[i].loss, m.evals[j].val_bpb, m.recipe (the last "start" event's recipe JSON), m.summary (may be null)
//
// The file: one JSON object per line with an "event" field.
//  * "start": {"recipe": <the resolved recipe>, "step": the step it starts from, "header": the lines the run printed
//    first (host, threads, GEMM path, data, budget, world; absent in older files)}. A resumed run appends a new
//    start; its steps continue the earlier ones.
//  * "step" (every train.log_every steps and step 1): step, loss (training loss of the step, nats/token),
//    lr_multiplier, muon_momentum, weight_decay (Muon's), phase, grad_norm, charged_seconds and tokens (cumulative),
//    ms_per_step, tokens_per_second (on the run's clock: the device's under --clock), host_ms_per_step,
//    host_tokens_per_second, and "mfu" (device clocks) or "fraction_of_peak" (host clock with a measured peak).
//  * "eval": step, charged_seconds, val_bpb.   "nonfinite_loss": step, loss.
//  * "summary": the TrainResult (steps, tokens, charged_seconds, wall_seconds, val_bpb (null when not scored), ...).
// Fields a reader needs are required (an Error "<file>:<line>: ..." names the missing one); a file with no start
// event is an Error. Older files without muon_momentum / weight_decay read as NaN there.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nanotrn::report {

struct StepRecord {
  int64_t step = 0, phase = 0, tokens = 0;
  double loss = 0, lr_multiplier = 0, muon_momentum = 0, weight_decay = 0;
  double charged_seconds = 0, tokens_per_second = 0, host_tokens_per_second = 0;
  double peak_fraction = 0;  // mfu or fraction_of_peak; NaN when neither was logged
};

struct EvalRecord {
  int64_t step = 0;
  double charged_seconds = 0, val_bpb = 0;
};

struct RunMetrics {
  std::string path;
  nlohmann::json recipe;  // of the last start event
  // Model FLOPs per training token of that recipe (model::flops_per_token: 6N + attention, no MTP heads; the count
  // MFU uses); NaN when the recipe does not read (then there is no FLOP axis).
  double flops_per_token = std::numeric_limits<double>::quiet_NaN();
  int64_t params = 0;     // the recipe's parameter count (model::count_params); 0 when the recipe does not read
  std::string shape;      // model::describe_shape of it, with T and the rows; "" when the recipe does not read
  std::string header;     // the run's header as it printed it (the start event's "header": host, threads, GEMM, data)
  std::string peak_kind;  // "mfu", "fraction_of_peak" or "" (none logged)
  std::vector<StepRecord> steps;
  std::vector<EvalRecord> evals;
  nlohmann::json summary;  // null when the run has not finished
  // A last line cut short (no line break, not JSON): what a process killed mid-write leaves. It is left out and named
  // here ("metrics.jsonl: the last line (byte 1234 on) is cut short ..."), not a reason to refuse the whole run.
  std::string torn_tail;
};

RunMetrics parse_run_metrics(std::string_view content, const std::string& name);

// One curve of a run (`nanotrn plot`, the HTML report): a step field, or val_bpb (the eval events, then the summary's
// final score at its step when finite). x is the step or the charged seconds.
enum class Metric {
  loss,
  lr_multiplier,
  muon_momentum,
  weight_decay,
  tokens_per_second,
  host_tokens_per_second,
  peak_fraction,
  val_bpb
};
enum class XAxis { step, charged_seconds, tokens, flops };
Metric parse_metric(const std::string& name);  // the enumerator's name; throws listing them
XAxis parse_x_axis(const std::string& name);   // "step" | "charged_seconds" (or "time") | "tokens" | "flops"
std::string x_axis_label(XAxis x);             // "step", "charged seconds", "tokens", "training FLOPs (6N + attention)"
std::string metric_name(Metric m);
// x by tokens: an evaluation's tokens are those of the step record at its step (the summary's, at the end); by flops,
// those tokens times flops_per_token (an Error naming the file when its recipe gives none).
std::vector<std::pair<double, double>> metric_points(const RunMetrics& m, Metric y, XAxis x);
// An exponential moving average of the y values with TensorBoard's debiasing (weight w in [0, 1): 0 leaves them as
// they are): s_i = w s_{i-1} + (1 - w) y_i, shown as s_i / (1 - w^(i+1)), so the first point is y_0 itself.
std::vector<std::pair<double, double>> smooth(const std::vector<std::pair<double, double>>& points, double weight);
// A run's name in legends and tables: its folder's (runs/a/metrics.jsonl -> "a"); another file keeps its own name.
std::string run_label(const std::string& metrics_path);
// `path` is a metrics.jsonl file, or a run folder (its metrics.jsonl; an Error names the folder when it has none).
RunMetrics read_run_metrics(const std::string& path);

}  // namespace nanotrn::report
