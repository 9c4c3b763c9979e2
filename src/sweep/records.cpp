// Trial records. See records.h.
#include "sweep/records.h"
#include "base/json_parse.h"

#include <filesystem>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn::sweep {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json read_json(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  try {
    return nanotrn::parse_json(bytes);
  } catch (const json::exception& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
}

// Every trial id of the plan, in plan order: rung by rung, variant then seed (the rungs a trial may reach).
std::vector<std::string> plan_ids(const SweepPlan& p) {
  std::vector<std::string> ids;
  for (int r = 0; r < rung_count(p); r++)
    for (const Trial& t : rung_trials(p, r, all_variant_ids(p))) ids.push_back(t.id);
  return ids;
}

}  // namespace

json record_json(const TrialRecord& r) {
  return {{"id", r.trial.id},     {"variant", r.trial.variant}, {"set", r.trial.set},
          {"seed", r.trial.seed}, {"rung", r.trial.rung},       {"budget_fraction", r.trial.budget_fraction},
          {"status", r.status},   {"reason", r.reason},         {"prediction", r.prediction},
          {"metrics", r.metrics}, {"recipe", r.recipe},         {"run", r.run},
          {"command", r.command}};
}

TrialRecord record_from_json(const json& j, const std::string& where) {
  check(j.is_object(), where + ": a trial record is a JSON object");
  try {
    TrialRecord r;
    r.trial.id = j.at("id").get<std::string>();
    r.trial.variant = j.at("variant").get<std::string>();
    r.trial.set = j.at("set").get<std::vector<std::string>>();
    r.trial.seed = j.at("seed").get<uint64_t>();
    r.trial.rung = j.at("rung").get<int>();
    r.trial.budget_fraction = j.at("budget_fraction").get<double>();
    r.status = j.at("status").get<std::string>();
    r.reason = j.at("reason").get<std::string>();
    r.prediction = j.at("prediction");
    r.metrics = j.at("metrics");
    r.recipe = j.at("recipe");
    r.run = j.at("run").get<std::string>();
    r.command = j.at("command").get<std::vector<std::string>>();
    check(r.status == "done" || r.status == "failed" || r.status == "skipped",
          where + ": status must be done, failed or skipped, got '" + r.status + "'");
    return r;
  } catch (const json::exception& e) {
    throw Error(where + ": a trial record's field is missing or of the wrong type: " + e.what());
  }
}

std::string trial_dir(const std::string& sweep_dir, const std::string& id) { return sweep_dir + "/trials/" + id; }

std::map<std::string, TrialRecord> read_records(const std::string& sweep_dir, const SweepPlan& plan) {
  std::map<std::string, TrialRecord> out;
  for (const std::string& id : plan_ids(plan)) {
    const std::string path = trial_dir(sweep_dir, id) + "/trial.json";
    std::error_code ec;
    if (!fs::exists(path, ec)) continue;
    TrialRecord r = record_from_json(read_json(path), path);
    check(r.trial.id == id, path + ": holds trial '" + r.trial.id + "', not '" + id + "'");
    out.emplace(id, std::move(r));
  }
  return out;
}

void rewrite_trials_jsonl(const std::string& sweep_dir, const SweepPlan& plan) {
  const std::map<std::string, TrialRecord> all = read_records(sweep_dir, plan);
  std::string text;
  for (const std::string& id : plan_ids(plan)) {
    auto it = all.find(id);
    if (it != all.end()) text += record_json(it->second).dump() + "\n";
  }
  write_file_atomic(sweep_dir + "/trials.jsonl", text.data(), text.size());
}

void record_trial(const std::string& sweep_dir, const TrialRecord& r, const SweepPlan& plan) {
  const std::string dir = trial_dir(sweep_dir, r.trial.id);
  make_directories(dir);
  const std::string text = record_json(r).dump(2) + "\n";
  write_file_atomic(dir + "/trial.json", text.data(), text.size());
  rewrite_trials_jsonl(sweep_dir, plan);
}

}  // namespace nanotrn::sweep
