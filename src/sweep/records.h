// What a sweep keeps of each trial, and the two files it keeps it in: DIR/trials/<id>/trial.json (one per trial,
// written atomically once the trial has ended: done, failed or skipped) and DIR/trials.jsonl (one line per ended
// trial, in plan order, rewritten atomically from the trial.json files after each one), so neither file is ever seen
// half written and a killed sweep loses nothing that had ended.
//
//   TrialRecord r{.trial = t, .status = "done", .metrics = result_json, ...};
//   record_trial(dir, r, plan);                  // trials/<id>/trial.json, then trials.jsonl
//   std::map<std::string, TrialRecord> all = read_records(dir, plan);   // by id, every trial.json that exists
//
// A line: {"id", "variant", "set" (the variant's overrides and seed=<s>, every one "key=value"), "seed", "rung",
// "budget_fraction", "status" ("done" | "failed" | "skipped"), "reason" (why not done), "prediction" (the trial
// priced on the plan's device, pricing.h), "metrics" (the run's result.json: val_bpb, steps, tokens, charged
// seconds ...; core when scored), "recipe" (the trial's resolved recipe), "run" (its run folder, relative to DIR),
// "command" (the argv that reruns it exactly)}.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sweep/plan.h"

namespace nanotrn::sweep {

struct TrialRecord {
  Trial trial;
  std::string status;  // "done", "failed", "skipped"
  std::string reason;
  nlohmann::json prediction, metrics, recipe;
  std::string run;                   // relative to the sweep folder
  std::vector<std::string> command;  // argv[0] is "nanotrn"
};

nlohmann::json record_json(const TrialRecord& r);
TrialRecord record_from_json(const nlohmann::json& j, const std::string& where);

std::string trial_dir(const std::string& sweep_dir, const std::string& id);  // DIR/trials/<id>
// Writes the trial's trial.json, then rewrites trials.jsonl from every trial.json of the plan's trials.
void record_trial(const std::string& sweep_dir, const TrialRecord& r, const SweepPlan& plan);
std::map<std::string, TrialRecord> read_records(const std::string& sweep_dir, const SweepPlan& plan);
// trials.jsonl from the records, plan order (rung, then variant, then seed).
void rewrite_trials_jsonl(const std::string& sweep_dir, const SweepPlan& plan);

}  // namespace nanotrn::sweep
