// Running a sweep's plan (plan.h) into its folder: every trial priced on the target device, the ones that cannot
// run or are dominated skipped with their reason (pricing.h), the rest trained under the plan's clock and budget on
// the host, rung by rung under successive halving, each ended trial recorded at once (records.h).
//
//   SweepRunOptions o{.dir = "out/sweep", .home = home, .print = ...};
//   SweepSummary s = run_sweep(plan, o);     // o.comm: under mpirun, one trial per rank group, in-process
//
// Where a trial runs: locally (no communicator, or a world of one) on worker processes (local_runner.h); under
// mpirun (o.comm of more than one rank) on rank groups of o.ranks_per_trial ranks, in-process (group_runner.h).
// What a trial trains and the record it leaves: trial.h.
// Nothing lost: a trial is recorded once it ends, so a killed sweep resumes (run_sweep again with the plan read from
// DIR) where it stopped: a recorded trial is never rerun; a trial whose run folder holds result.json but no record is
// recorded from it; one with a checkpoint resumes from it; any other restarts. While it runs, the sweep holds
// DIR's lock (base/dir_lock.h): a second sweep on the same folder is refused. A stop request (SIGINT/SIGTERM) stops
// the running trials with their checkpoints and returns.
// A failed trial (an error exit) is recorded and not retried by --resume (its log says why; rerun one with its
// recorded command, from the sweep folder); a trial killed by a signal stays unrecorded and --resume runs it again.
// Successive halving: after rung r, the variants whose rung-r trials all finished are ranked by mean val_bpb and the
// best ceil(n / eta) go on to rung r + 1 (ties by variant id).
// Not here: flags (src/cli/sweep.cpp), the leaderboard (leaderboard.h).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "base/home.h"
#include "dist/communicator.h"
#include "recipe/recipe.h"
#include "sweep/plan.h"

namespace nanotrn::sweep {

struct SweepRunOptions {
  std::string dir;
  Home home;
  std::function<void(const std::string&)> print = {};  // progress lines; null = quiet
  std::function<bool()> should_stop = {};              // polled; null = never
  dist::Communicator* comm = nullptr;                  // under mpirun; null = this process alone
  int ranks_per_trial = 1;
};

struct SweepSummary {
  int planned = 0, done = 0, failed = 0, skipped = 0, left = 0;
  bool stopped = false;  // a stop request ended it early
  std::string best;      // the variant with the lowest mean val_bpb at the last rung ("" = none done)
  double best_val_bpb = 0;
  double wall_seconds = 0, worker_idle_seconds = 0;
  nlohmann::json to_json() const;
};

SweepSummary run_sweep(const SweepPlan& plan, const SweepRunOptions& options);
// What the records say, without running anything (`sweep status`): planned, done, failed, skipped, left, best.
SweepSummary sweep_status(const SweepPlan& plan, const std::string& dir);

}  // namespace nanotrn::sweep
