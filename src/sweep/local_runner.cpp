// A rung's trials on local worker processes. See local_runner.h.
#include "sweep/local_runner.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/file.h"
#include "base/format.h"
#include "sweep/process_pool.h"

namespace nanotrn::sweep {
namespace {

ProcessJob train_job(const SweepPlan& plan, const TrialJob& j, const std::string& dir, int threads, const Home& home) {
  const std::string run = trial_dir(dir, j.trial.id);
  make_directories(run);
  const std::string ckpt = run + "/checkpoint.safetensors";
  ProcessJob p;
  p.id = j.trial.id;
  p.args = trial_train_args(plan, j.trial, run, threads, path_exists(ckpt) ? ckpt : "", home);
  p.env = {{"OMP_NUM_THREADS", std::to_string(threads)}};
  p.log = run + "/train.log";
  return p;
}

bool resumes(const ProcessJob& p) { return std::find(p.args.begin(), p.args.end(), "--resume") != p.args.end(); }

}  // namespace

LocalRunner::LocalRunner(const SweepPlan& plan, const SweepRunOptions& options)
    : plan_(plan), o_(options), threads_(threads_per_trial(plan)) {}

void LocalRunner::say(const std::string& line) const {
  if (o_.print) o_.print(line);
}

bool LocalRunner::stopping() const { return o_.should_stop && o_.should_stop(); }

void LocalRunner::run(const std::vector<TrialJob>& jobs) {
  std::map<std::string, TrialJob> by_id;
  std::vector<ProcessJob> queue;
  for (const TrialJob& j : jobs) {
    const std::string run = trial_dir(o_.dir, j.trial.id);
    if (j.core_only) {
      queue.push_back(core_job(plan_, j.trial, run, threads_));
    } else {
      queue.push_back(train_job(plan_, j, o_.dir, threads_, o_.home));
      if (resumes(queue.back())) say("trial " + j.trial.id + " resumes from its checkpoint");
    }
    by_id[queue.back().id] = j;
  }
  ProcessPool pool(plan_.workers);
  pool.run(
      queue,
      [&](const ProcessExit& e) -> std::optional<ProcessJob> {
        const TrialJob& j = by_id.at(e.id);
        if (e.id != j.trial.id) {  // the trial's CORE job
          after_core(j, e.status);
          return std::nullopt;
        }
        std::optional<ProcessJob> next = after_training(j, e.status);
        if (next) by_id[next->id] = j;
        return next;
      },
      o_.should_stop);
  wall_ += pool.wall_seconds();
  idle_ += pool.idle_seconds();
}

std::optional<ProcessJob> LocalRunner::after_training(const TrialJob& j, int status) {
  const std::string run = trial_dir(o_.dir, j.trial.id);
  if (status == 0) {
    if (plan_.core) return core_job(plan_, j.trial, run, threads_);
    finish(j);
    return std::nullopt;
  }
  if (stopping()) return std::nullopt;  // stopped with its checkpoint: --resume continues it
  if (status >= 128) {  // killed by a signal: an interruption, not the trial's failure; --resume reruns it
    say("trial " + j.trial.id + " was killed (signal " + std::to_string(status - 128) + "); nanotrn sweep --resume " +
        o_.dir + " runs it again");
    return std::nullopt;
  }
  const std::string why = "train exited with status " + std::to_string(status) + "; see " + run + "/train.log";
  record_trial(o_.dir, failed_record(plan_, j, o_.home, threads_, why), plan_);
  say("trial " + j.trial.id + " failed (status " + std::to_string(status) + "); log " + run + "/train.log");
  return std::nullopt;
}

void LocalRunner::after_core(const TrialJob& j, int status) {
  const std::string run = trial_dir(o_.dir, j.trial.id);
  if (status == 0) {
    finish(j);
    return;
  }
  if (status >= 128 || stopping()) return;  // interrupted: --resume scores it
  record_trial(o_.dir, failed_record(plan_, j, o_.home, threads_, core_failure(status, run)), plan_);
  say("trial " + j.trial.id + " failed: " + core_failure(status, run));
}

void LocalRunner::finish(const TrialJob& j) {
  const TrialRecord r = done_record(plan_, j, o_.home, threads_, trial_dir(o_.dir, j.trial.id));
  record_trial(o_.dir, r, plan_);
  say("trial " + j.trial.id + " done: val_bpb " + format_number("%.4f", r.metrics.value("val_bpb", NAN)) +
      (plan_.core ? ", CORE " + format_number("%.4f", r.metrics.value("core", NAN)) : ""));
}

}  // namespace nanotrn::sweep
