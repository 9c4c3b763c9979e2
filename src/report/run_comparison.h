// `nanotrn report RUN_A RUN_B ...`: runs side by side, as W&B's run comparison or TensorBoard's overlaid runs.
//
//   std::vector<RunMetrics> runs = {read_run_metrics("out/a"), read_run_metrics("out/b")};
//   RunComparison c = compare_runs(runs);         // labels, the recipe fields that differ, each run's figures
//   std::cout << comparison_text(c);             // a table for the terminal
//   std::string page = comparison_html(c, runs);  // the same table and the curves overlaid, one page
//
// A run's label is its folder's name (made unique with its position when two folders share one). The fields that
// differ are the dotted recipe paths (recipe/recipe_diff.h's flattening of each run's start-event recipe) whose values
// are not the same in every run; "name" and "description" are left out. The figures come from the summary event when
// the run finished (val_bpb, steps, tokens, charged and wall seconds) and from the last step record otherwise, marked
// "unfinished". The page draws training loss by step and by tokens, and val_bpb by charged seconds, one line per run.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/run_metrics.h"

namespace nanotrn::report {

struct RunFigures {
  std::string label, path;
  bool finished = false;
  double val_bpb = 0, last_loss = 0, charged_seconds = 0, wall_seconds = 0;  // NaN when not known
  int64_t steps = 0, tokens = 0;
  std::vector<std::string> values;  // one per RunComparison::fields: the run's value as JSON text ("absent")
};

struct RunComparison {
  std::vector<std::string> fields;  // the recipe paths that differ
  std::vector<RunFigures> runs;
};

RunComparison compare_runs(const std::vector<RunMetrics>& runs);
std::string comparison_text(const RunComparison& c);
std::string comparison_html(const RunComparison& c, const std::vector<RunMetrics>& runs);
nlohmann::json comparison_json(const RunComparison& c);

}  // namespace nanotrn::report
