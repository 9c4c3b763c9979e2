// Running a sweep. See runner.h.
#include "sweep/runner.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/dir_lock.h"
#include "base/error.h"
#include "base/format.h"
#include "sweep/group_runner.h"
#include "sweep/local_runner.h"
#include "sweep/pricing.h"
#include "sweep/records.h"
#include "sweep/trial.h"

namespace nanotrn::sweep {
namespace {

using nlohmann::json;

void say(const SweepRunOptions& o, const std::string& line) {
  if (o.print) o.print(line);
}

// --- pricing and skipping ---

struct Priced {
  std::vector<Pricing> prices;
  std::map<std::string, std::string> skip;  // trial id -> reason
};

Priced price_rung(const SweepPlan& plan, const std::vector<Trial>& trials, const Home& home) {
  Priced p;
  const int threads = threads_per_trial(plan);
  for (const Trial& t : trials) {
    p.prices.push_back(price_trial(trial_recipe(plan, t, home, threads), plan.device));
    if (!p.prices.back().fits) p.skip[t.id] = p.prices.back().reason;
  }
  for (const auto& [id, why] : dominated(trials, p.prices)) p.skip[id] = why;
  return p;
}

// --- one rung ---

// What a rung still has to do, decided from the records alone (every rank of a world computes the same): the jobs
// to run, and the records to write first (skipped trials; trials trained but not recorded when a sweep was killed).
struct Pending {
  std::vector<TrialJob> jobs;
  std::vector<TrialRecord> records;
};

Pending pending(const SweepPlan& plan, const std::vector<Trial>& trials, const Priced& priced,
                const SweepRunOptions& o) {
  const std::map<std::string, TrialRecord> done = read_records(o.dir, plan);
  Pending p;
  const int threads = threads_per_trial(plan);
  for (size_t i = 0; i < trials.size(); i++) {
    const Trial& t = trials[i];
    if (done.count(t.id)) continue;
    TrialJob j{.trial = t, .prediction = priced.prices[i].json};
    if (auto skip = priced.skip.find(t.id); skip != priced.skip.end()) {
      p.records.push_back(skipped_record(plan, j, o.home, threads, skip->second));
      continue;
    }
    const std::string run = trial_dir(o.dir, t.id);
    if (path_exists(run + "/result.json")) {  // trained, not recorded: a sweep killed in between
      if (!plan.core || path_exists(run + "/core.json")) {
        p.records.push_back(done_record(plan, j, o.home, threads, run));
        continue;
      }
      j.core_only = true;
    }
    p.jobs.push_back(std::move(j));
  }
  return p;
}

void write_pending_records(const SweepPlan& plan, const Pending& p, const SweepRunOptions& o) {
  for (const TrialRecord& r : p.records) {
    record_trial(o.dir, r, plan);
    say(o, "trial " + r.trial.id + " " + (r.status == "skipped" ? "skipped: " + r.reason : "recorded from its run"));
  }
}

// Variants whose every trial at `rung` is done, best mean val_bpb first (ties by id).
std::vector<std::string> ranked_variants(const SweepPlan& plan, int rung, const std::vector<std::string>& variants,
                                         const std::map<std::string, TrialRecord>& records) {
  std::vector<std::pair<double, std::string>> scored;
  for (const std::string& v : variants) {
    double sum = 0;
    int n = 0;
    bool complete = true;
    for (const Trial& t : rung_trials(plan, rung, {v})) {
      auto it = records.find(t.id);
      if (it == records.end() || it->second.status != "done" ||
          !it->second.metrics.value("val_bpb", json()).is_number()) {
        complete = false;
        break;
      }
      sum += it->second.metrics.at("val_bpb").get<double>();
      n++;
    }
    if (complete && n > 0) scored.emplace_back(sum / n, v);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (const auto& [bpb, v] : scored) out.push_back(v);
  return out;
}

std::vector<std::string> promoted(const SweepPlan& plan, int rung, const std::vector<std::string>& variants,
                                  const std::map<std::string, TrialRecord>& records) {
  std::vector<std::string> ranked = ranked_variants(plan, rung, variants, records);
  const size_t keep =
      std::max<size_t>(1, static_cast<size_t>(std::ceil(static_cast<double>(variants.size()) / plan.halving.eta)));
  if (ranked.size() > keep) ranked.resize(keep);
  std::sort(ranked.begin(), ranked.end(), [&](const std::string& a, const std::string& b) {
    const std::vector<std::string> ids = all_variant_ids(plan);  // plan order
    return std::find(ids.begin(), ids.end(), a) < std::find(ids.begin(), ids.end(), b);
  });
  return ranked;
}

bool is_world(const SweepRunOptions& o) { return o.comm != nullptr && o.comm->size() > 1; }

}  // namespace

json SweepSummary::to_json() const {
  return {{"planned", planned},
          {"done", done},
          {"failed", failed},
          {"skipped", skipped},
          {"left", left},
          {"stopped", stopped},
          {"best", best},
          {"best_val_bpb", best.empty() ? json() : json(best_val_bpb)},
          {"wall_seconds", wall_seconds},
          {"worker_idle_seconds", worker_idle_seconds}};
}

SweepSummary sweep_status(const SweepPlan& plan, const std::string& dir) {
  SweepSummary s;
  const std::map<std::string, TrialRecord> records = read_records(dir, plan);
  s.planned = static_cast<int>(rung_trials(plan, 0, all_variant_ids(plan)).size());
  for (const auto& [id, r] : records) {
    if (r.trial.rung != rung_count(plan) - 1 && r.status == "done") continue;  // promoted or stopped at a lower rung
    (r.status == "done" ? s.done : r.status == "failed" ? s.failed : s.skipped)++;
  }
  int ended_rung0 = 0;
  for (const Trial& t : rung_trials(plan, 0, all_variant_ids(plan))) ended_rung0 += records.count(t.id) ? 1 : 0;
  s.left = s.planned - ended_rung0;
  const int last = rung_count(plan) - 1;
  const std::vector<std::string> best = ranked_variants(plan, last, all_variant_ids(plan), records);
  if (!best.empty()) {
    s.best = best.front();
    double sum = 0;
    int n = 0;
    for (const Trial& t : rung_trials(plan, last, {s.best})) {
      sum += records.at(t.id).metrics.at("val_bpb").get<double>();
      n++;
    }
    s.best_val_bpb = sum / n;
  }
  return s;
}

SweepSummary run_sweep(const SweepPlan& plan, const SweepRunOptions& o) {
  const bool world = is_world(o);
  const bool lead = !world || o.comm->rank() == 0;
  if (world) {
    check(o.ranks_per_trial >= 1 && o.comm->size() % o.ranks_per_trial == 0,
          "sweep: --ranks-per-trial " + std::to_string(o.ranks_per_trial) + " must divide the " +
              std::to_string(o.comm->size()) + " ranks");
    o.comm->set_timeout(7 * 24 * 3600.0);  // the rung barrier waits for the other groups' trials
  }
  std::unique_ptr<DirLock> lock;
  if (lead) lock = std::make_unique<DirLock>(o.dir, "nanotrn sweep");
  LocalRunner local(plan, o);
  std::vector<std::string> variants = all_variant_ids(plan);
  for (int rung = 0; rung < rung_count(plan) && !variants.empty(); rung++) {
    const std::vector<Trial> trials = rung_trials(plan, rung, variants);
    const Priced priced = price_rung(plan, trials, o.home);
    if (world) o.comm->barrier();  // every rank reads the records before rank 0 adds to them
    const Pending todo = pending(plan, trials, priced, o);
    const std::vector<TrialJob>& jobs = todo.jobs;
    if (world) o.comm->barrier();
    if (lead) write_pending_records(plan, todo, o);
    if (world) {
      o.comm->barrier();
      run_in_groups(plan, o, jobs);
      o.comm->barrier();
      if (lead) rewrite_trials_jsonl(o.dir, plan);
      o.comm->barrier();
    } else {
      say(o, "rung " + std::to_string(rung) + ": " + std::to_string(jobs.size()) + " trial(s) to run of " +
                 std::to_string(trials.size()) + format_number(" (budget x%.3g)", rung_fraction(plan, rung)));
      local.run(jobs);
    }
    if (o.should_stop && o.should_stop()) break;
    if (rung + 1 < rung_count(plan)) variants = promoted(plan, rung, variants, read_records(o.dir, plan));
  }
  SweepSummary s = sweep_status(plan, o.dir);
  s.stopped = o.should_stop && o.should_stop();
  s.wall_seconds = local.wall();
  s.worker_idle_seconds = local.idle();
  return s;
}

}  // namespace nanotrn::sweep
