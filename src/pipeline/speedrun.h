// The main job, end to end on the default corpus: prepare the corpus, train the tokenizer, tokenize, pretrain the
// default small recipe for a short budget, score val_bpb against the unigram baseline of the same tokenizer, sample
// a few lines, score CORE on a small eval bundle (icl/core_eval.h), and write a markdown report with the loss curve.
//
//   SpeedrunResult r = run_speedrun({.root = "out", .recipe = "cpu-tiny", .budget = "3m", .home = find_home()});
//
// Stage outputs (under root, a path relative to the working directory unless absolute): data/corpus, tokenizer,
// data/tokens (the recipe's data.* are set to these, then built by pipeline/data_stages.h: the Brown corpus unless
// data/corpus already holds a prepared corpus, a BPE with the recipe's vocabulary, train/val shards),
// speedrun/run (metrics.jsonl, checkpoint, core.json), speedrun/result.json (the training summary with val_bpb,
// core, params and unigram_bpb: what `nanotrn score` ranks), speedrun/report.md and speedrun/report.html, both with
// the recipe priced on trn2 and trn3 for the challenge's 30 minutes (steps, tokens/s, MFU, top kernels). Every stage is
// skipped when its output exists and is valid for the same inputs (data_stages.h says when for the data; the training
// result must name the same recipe); `force` reruns training. `recipe` is a file or a shipped name
// (recipe/recipe_paths.h).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/home.h"

namespace nanotrn::pipeline {

struct SpeedrunOptions {
  std::string root = "out";
  std::string recipe = "cpu-tiny";
  std::vector<std::string> sets;  // recipe overrides
  std::string budget;             // overrides train.budget when set
  int64_t samples = 3;
  std::string core_bundle;        // CORE eval bundle folder; "" skips CORE
  int64_t core_max_per_task = 0;  // <= 0: every example
  bool force = false;
  std::function<void(const std::string&)> print;  // progress lines; null = quiet
  Home home;                                      // where the recipe is looked up (recipe_paths.h)
};

struct SpeedrunResult {
  double val_bpb = 0.0;
  double unigram_bpb = 0.0;
  int64_t steps = 0, tokens = 0;
  double charged_seconds = 0.0;
  std::vector<std::pair<int64_t, double>> loss_curve;
  std::vector<std::string> samples;
  double core = 0.0;                                       // NaN when CORE was skipped
  std::vector<std::pair<std::string, double>> core_tasks;  // label, centered accuracy
  int64_t params = 0;
  std::string report_path;       // report.md
  std::string html_report_path;  // report.html (report/html_report.h)
};

SpeedrunResult run_speedrun(const SpeedrunOptions& options);

}  // namespace nanotrn::pipeline
