// One trial of a sweep as the runners (local_runner.h, group_runner.h) see it: its threads, its resolved recipe, the
// `nanotrn train` and `nanotrn eval core` arguments that run it, and the record it leaves (records.h).
//
//   TrialJob j{.trial = t, .prediction = pricing.json};
//   recipe::Recipe r = trial_recipe(plan, t, home, threads);        // what the trial trains
//   std::vector<std::string> argv = trial_train_args(plan, t, "trials/v01-s0", threads, "", home);
//   TrialRecord done = done_record(plan, j, home, threads, run_dir);  // from the run's result.json (+ core.json)
//
// A trial's recipe is the plan's recipe with, in order: the plan's overrides, the trial's (its variant's and
// seed=<s>), the plan's budget (train.budget=B), the rung's share of the budget (a time budget scaled, or
// train.steps for a step-limited recipe) and train.threads. Its record's `command` is the train argv with the run
// folder relative to the sweep folder: run from there, it reruns the trial exactly.
// Not here: which trials run when (runner.h), the records' files (records.h).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/home.h"
#include "recipe/recipe.h"
#include "sweep/plan.h"
#include "sweep/process_pool.h"
#include "sweep/records.h"

namespace nanotrn::sweep {

struct TrialJob {
  Trial trial;
  nlohmann::json prediction;  // the trial priced on the plan's device (pricing.h)
  bool core_only = false;     // trained already (result.json present): only CORE is missing
};

// plan.threads, else this machine's cores shared by plan.workers (at least 1).
int threads_per_trial(const SweepPlan& plan);
recipe::Recipe trial_recipe(const SweepPlan& plan, const Trial& t, const Home& home, int threads);
// The `nanotrn train` arguments that run the trial into run_dir (resuming from `resume` when set, else --overwrite).
std::vector<std::string> trial_train_args(const SweepPlan& plan, const Trial& t, const std::string& run_dir,
                                          int threads, const std::string& resume, const Home& home);

// `nanotrn eval core` of the trial's checkpoint as a pool job (it writes run_dir/core.json; its log run_dir/core.log).
ProcessJob core_job(const SweepPlan& plan, const Trial& t, const std::string& run_dir, int threads);
// That job run alone, to its end: its exit status (128 + signal when killed).
int run_core_process(const SweepPlan& plan, const Trial& t, const std::string& run_dir, int threads,
                     const std::function<bool()>& should_stop);
std::string core_failure(int status, const std::string& run_dir);  // the reason a failed CORE is recorded with

// The trial's record: done (the run's result.json as metrics, without its recipe, which becomes `recipe`; with
// plan.core, core.json's CORE added to the metrics and to result.json), or failed with a reason.
TrialRecord done_record(const SweepPlan& plan, const TrialJob& j, const Home& home, int threads,
                        const std::string& run_dir);
TrialRecord failed_record(const SweepPlan& plan, const TrialJob& j, const Home& home, int threads,
                          const std::string& reason);
TrialRecord skipped_record(const SweepPlan& plan, const TrialJob& j, const Home& home, int threads,
                           const std::string& reason);

// Opens the training and validation data of every variant (rung 0, its first seed) once per distinct data.*
// section, so a sweep whose data is missing stops before it starts, with train/data_setup.h's error (naming the
// files and `setup_hint`, the command that builds them), instead of failing every trial.
void check_trial_data(const SweepPlan& plan, const Home& home, const std::string& setup_hint);

bool path_exists(const std::string& path);

}  // namespace nanotrn::sweep
