// `nanotrn forecast` as a library call: the target priced, the ladder designed and run through a sweep, the law
// fitted, the forecast with its interval, CORE, and the warnings; written to the forecast's folder.
//
//   ForecastRequest q{.recipe = "cpu-tiny", .device = "trn2", .budget = "30m", .out = "out/forecast"};
//   ForecastResult r = run_forecast(q, home, {.print = ...});  // r.at.central, r.at.low, r.at.high, r.to_json()
//   ForecastResult again = resume_forecast("out/forecast", home, {});   // after a kill: the ladder goes on
//
// Steps (each its own function in forecast_run.cpp):
//  1. price the target (target.h): N (non-embedding parameters), D (tokens in the budget on the device, with the
//     stack's band), the epochs of data.train D needs (with --data: once OUT/data is set up, after step 2);
//  2. design the ladder (ladder.h) at most a quarter of N and of D, within the ladder's compute;
//  3. run it as a sweep into OUT/ladder (sweep/runner.h: workers, resumable, a trial per rung and seed; each a
//     step-limited run of the recipe with the rung's depth, aspect ratio, rows and steps);
//  4. fit the law on the finished rungs (scaling_law.h), each at the mean val_bpb of its seeds (--seeds K: a
//     single-seed ladder of the reduced validation moved its forecast by up to 0.15 bpb with the seed while the target
//     moved 0.007, docs/VALIDATION.md "Forecast"), forecast at (N, D) and at the band's ends of D: the printed
//     interval covers both;
//  5. CORE from the forecast val_bpb (core_map.h), only inside the published pairs' range and with their caveat;
//     with --core, also from the ladder's own CORE on the bundle (ladder_core.h), where it is above noise;
//  6. warnings: epochs of data (data/epochs.h), extrapolation beyond what the validation measured (5.3x the ladder's
//     largest N, 4.0x its largest D: docs/VALIDATION.md "Forecast"), an under-determined fit.
// OUT holds request.json (the request, so --resume needs nothing else), data/ (with --data: the corpus, tokenizer and
// shards, set up after request.json, so a kill there resumes), ladder/ (the sweep), forecast.json (to_json) and
// forecast.html (forecast_page.h). A new forecast refuses an OUT that holds anything, and creates OUT only once the
// target is priced (a device budget that ends before the first step is an Error), the ladder designed and (without
// --data) the recipe's data found; --data sources that cannot be read (an unknown format, a missing --field) remove
// what it wrote: a request that cannot be forecast leaves nothing behind.
// --resume refuses a folder without request.json ("not a forecast folder").
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/home.h"
#include "data/corpus.h"
#include "data/epochs.h"
#include "forecast/core_map.h"
#include "forecast/ladder.h"
#include "forecast/ladder_core.h"
#include "forecast/scaling_law.h"
#include "forecast/target.h"

namespace nanotrn::forecast {

struct ForecastRequest {
  std::string recipe;
  std::vector<std::string> sets;
  std::string device = "trn2";  // a catalog device, or "host" (a step-limited recipe: a forecast a host run checks)
  std::string budget;           // the target's train.budget ("" = the recipe's)
  LadderKind ladder = LadderKind::small;
  double ladder_flops = 0;  // 0: the ladder kind's default
  int workers = 2, threads = 1;
  int seeds = 1;  // runs per rung (the recipe's seed + 0, 1, ...): the law fits their mean val_bpb
  // --data: the sources (text files, folders, JSONL, Parquet; absolute once the forecast starts) of a corpus prepared,
  // with its tokenizer and shards, in OUT/data (pipeline::setup_data_folder), which the ladder and the target's
  // epochs read in place of the recipe's data.*; empty: the recipe's data. `field`: their JSONL field / Parquet column.
  std::vector<std::string> data;
  std::string field = data::kDefaultTextField;
  // --core: every ladder run also scores CORE on core_bundle (the sweep's CORE), and CORE is forecast from the
  // ladder's own line in val_bpb where it is above noise (ladder_core.h).
  bool core = false;
  std::string core_bundle;
  int64_t core_max_per_task = 0;
  int bootstrap = 200;
  double coverage = 0.9;
  std::string out;
  nlohmann::json to_json() const;
  static ForecastRequest from_json(const nlohmann::json& j, const std::string& where);
};

struct ForecastResult {
  ForecastRequest request;
  Target target;
  Ladder ladder;
  std::vector<LadderRun> runs;
  LawFit fit;
  Forecast at;                            // at (N, D)
  double low = 0, high = 0;               // the interval over D's band
  std::optional<double> core;             // from the CORE map, inside its range
  std::optional<LadderCore> ladder_core;  // with --core: the ladder's own CORE line at the forecast
  std::vector<std::string> warnings;
  nlohmann::json to_json() const;
};

// What the held-out checks measured (docs/VALIDATION.md "Forecast"), printed and written with every forecast: the
// interval is the law's; how far the targets fell from it on prose and on code-like text, and what the seed does.
extern const char* const kValidationNote;

// The ladder runs' noise from the seed alone: the pooled sample standard deviation of val_bpb across each rung's seeds,
// sqrt(mean over rungs of their variances) (bpb); NaN with one seed per rung. A rung's mean carries it / sqrt(K).
double seed_noise(const std::vector<LadderRun>& runs);
// How the printed forecast and its page say what a rung's val_bpb is: "" with one seed per rung, else " (each the
// mean of 3 seeds; the seed alone moves a run by 0.0187 bpb, its mean by 0.0108)".
std::string seeds_note(const ForecastResult& r);

using Print = std::function<void(const std::string&)>;
struct ForecastHooks {
  Print print = {};                        // progress lines; null = quiet
  std::function<bool()> should_stop = {};  // polled by the ladder's sweep: stops it (an Error says how to resume)
};
ForecastResult run_forecast(const ForecastRequest& request, const Home& home, const ForecastHooks& hooks);
ForecastResult resume_forecast(const std::string& dir, const Home& home, const ForecastHooks& hooks);

}  // namespace nanotrn::forecast
