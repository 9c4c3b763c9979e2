// A rung's trials on local worker processes: each trial is `nanotrn train` as a child process into its run folder
// (process_pool.h), at most plan.workers at a time with threads_per_trial threads each; with plan.core,
// `nanotrn eval core` after it, in the same slot, before the next trial starts there. Each trial is recorded as it
// ends (records.h).
//
//   LocalRunner local(plan, options);
//   local.run(jobs);                 // returns when every job has ended, or a stop request has stopped them
//   local.wall(); local.idle();      // seconds the pool ran, slot-seconds without a job (the benchmark's figures)
//
// An exit status 0 records the trial done; a non-zero exit code records it failed (its reason names the log); a
// process killed by a signal (a worker killed, the OOM killer) or stopped by a stop request is an interruption, not
// a failure: it stays unrecorded and --resume runs it again, from its checkpoint when it has one.
#pragma once

#include <optional>
#include <vector>

#include "sweep/runner.h"
#include "sweep/trial.h"

namespace nanotrn::sweep {

class LocalRunner {
 public:
  LocalRunner(const SweepPlan& plan, const SweepRunOptions& options);
  void run(const std::vector<TrialJob>& jobs);
  double wall() const { return wall_; }
  double idle() const { return idle_; }

 private:
  std::optional<ProcessJob> after_training(const TrialJob& j, int status);
  void after_core(const TrialJob& j, int status);
  void finish(const TrialJob& j);
  void say(const std::string& line) const;
  bool stopping() const;

  const SweepPlan& plan_;
  const SweepRunOptions& o_;
  int threads_;
  double wall_ = 0, idle_ = 0;
};

}  // namespace nanotrn::sweep
