// One trial's recipe, commands and records. See trial.h.
#include "sweep/trial.h"
#include "base/json_parse.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <thread>

#include "base/error.h"
#include "base/file.h"
#include "recipe/recipe_paths.h"
#include "train/data_setup.h"

namespace nanotrn::sweep {
namespace {

using nlohmann::json;

json read_json_file(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  try {
    return nanotrn::parse_json(bytes);
  } catch (const json::exception& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
}

std::vector<std::string> trial_sets(const SweepPlan& plan, const Trial& t) {
  std::vector<std::string> sets = plan.sets;
  sets.insert(sets.end(), t.set.begin(), t.set.end());
  if (!plan.budget.empty()) sets.push_back("train.budget=" + plan.budget);
  return sets;
}

// The rung's share of the budget: a time budget scaled, or a step budget.
std::vector<std::string> budget_sets(const recipe::Recipe& r, double fraction) {
  if (fraction >= 1.0) return {};
  const double budget = recipe::budget_seconds(r);
  if (budget > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "train.budget=%.9gs", budget * fraction);
    return {buf};
  }
  return {"train.steps=" +
          std::to_string(std::max<int64_t>(1, std::llround(static_cast<double>(r.train.steps) * fraction)))};
}

std::vector<std::string> all_trial_sets(const SweepPlan& plan, const Trial& t, const Home& home, int threads) {
  std::vector<std::string> sets = trial_sets(plan, t);
  const recipe::Recipe full = recipe::open_recipe(plan.recipe, sets, home);
  const std::vector<std::string> b = budget_sets(full, t.budget_fraction);
  sets.insert(sets.end(), b.begin(), b.end());
  sets.push_back("train.threads=" + std::to_string(threads));
  return sets;
}

std::string relative_run(const Trial& t) { return "trials/" + t.id; }

// A record with the trial's identity, its prediction and the command that reruns it from the sweep folder.
TrialRecord base_record(const SweepPlan& plan, const TrialJob& j, const Home& home, int threads) {
  TrialRecord r;
  r.trial = j.trial;
  r.prediction = j.prediction;
  r.run = relative_run(j.trial);
  r.command = {"nanotrn"};
  const std::vector<std::string> args = trial_train_args(plan, j.trial, r.run, threads, "", home);
  r.command.insert(r.command.end(), args.begin(), args.end());
  return r;
}

std::vector<std::string> core_args(const SweepPlan& plan, const std::string& run_dir) {
  std::vector<std::string> a = {"eval",     "core",           "--ckpt", run_dir + "/checkpoint.safetensors",
                                "--bundle", plan.core_bundle, "--quiet"};
  if (plan.core_max_per_task > 0) {
    a.push_back("--max-per-task");
    a.push_back(std::to_string(plan.core_max_per_task));
  }
  return a;
}

// CORE of the trial's checkpoint (core.json, written by eval core), added to its metrics and its result.json.
void add_core(json& metrics, const std::string& run_dir) {
  const json core = read_json_file(run_dir + "/core.json");
  check(core.contains("core") && core.at("core").is_number(), run_dir + "/core.json has no number 'core'");
  metrics["core"] = core.at("core");
  json result = read_json_file(run_dir + "/result.json");
  result["core"] = core.at("core");
  const std::string text = result.dump(2) + "\n";
  write_file_atomic(run_dir + "/result.json", text.data(), text.size());
}

}  // namespace

void check_trial_data(const SweepPlan& plan, const Home& home, const std::string& setup_hint) {
  std::set<std::string> seen;
  for (const Trial& t : rung_trials(plan, 0, all_variant_ids(plan))) {
    const recipe::Recipe r = trial_recipe(plan, t, home, 1);
    const std::string key = recipe::recipe_to_json(r).at("data").dump() + " V=" + std::to_string(r.model.vocab_size);
    if (!seen.insert(key).second) continue;
    train::open_training_data(r, setup_hint);
  }
}

bool path_exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

int threads_per_trial(const SweepPlan& plan) {
  if (plan.threads > 0) return plan.threads;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / plan.workers);
}

recipe::Recipe trial_recipe(const SweepPlan& plan, const Trial& t, const Home& home, int threads) {
  return recipe::open_recipe(plan.recipe, all_trial_sets(plan, t, home, threads), home);
}

std::vector<std::string> trial_train_args(const SweepPlan& plan, const Trial& t, const std::string& run_dir,
                                          int threads, const std::string& resume, const Home& home) {
  std::vector<std::string> a = {"train", "--recipe", plan.recipe};
  for (const std::string& s : all_trial_sets(plan, t, home, threads)) {
    a.push_back("--set");
    a.push_back(s);
  }
  a.insert(a.end(), {"--clock", plan.clock, "--out", run_dir});
  if (!resume.empty()) {
    a.push_back("--resume");
    a.push_back(resume);
  } else {
    a.push_back("--overwrite");
  }
  return a;
}

ProcessJob core_job(const SweepPlan& plan, const Trial& t, const std::string& run_dir, int threads) {
  return {
      t.id + " core", core_args(plan, run_dir), {{"OMP_NUM_THREADS", std::to_string(threads)}}, run_dir + "/core.log"};
}

int run_core_process(const SweepPlan& plan, const Trial& t, const std::string& run_dir, int threads,
                     const std::function<bool()>& should_stop) {
  ProcessPool one(1);
  int status = -1;
  one.run(
      {core_job(plan, t, run_dir, threads)},
      [&](const ProcessExit& e) -> std::optional<ProcessJob> {
        status = e.status;
        return std::nullopt;
      },
      should_stop);
  return status;
}

std::string core_failure(int status, const std::string& run_dir) {
  return "eval core exited with status " + std::to_string(status) + "; see " + run_dir + "/core.log";
}

TrialRecord done_record(const SweepPlan& plan, const TrialJob& j, const Home& home, int threads,
                        const std::string& run_dir) {
  TrialRecord r = base_record(plan, j, home, threads);
  r.status = "done";
  json result = read_json_file(run_dir + "/result.json");
  r.recipe = result.value("recipe", json());
  result.erase("recipe");
  r.metrics = result;
  if (plan.core) add_core(r.metrics, run_dir);
  return r;
}

TrialRecord failed_record(const SweepPlan& plan, const TrialJob& j, const Home& home, int threads,
                          const std::string& reason) {
  TrialRecord r = base_record(plan, j, home, threads);
  r.status = "failed";
  r.reason = reason;
  return r;
}

TrialRecord skipped_record(const SweepPlan& plan, const TrialJob& j, const Home& home, int threads,
                           const std::string& reason) {
  TrialRecord r = base_record(plan, j, home, threads);
  r.status = "skipped";
  r.reason = reason;
  return r;
}

}  // namespace nanotrn::sweep
