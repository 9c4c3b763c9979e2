// A rung's trials on rank groups under mpirun: the world is split into groups of `ranks_per_trial` ranks; group g
// trains the jobs i with i % groups == g, in-process (pipeline/train_run.h) on its own communicator, one after
// another. The group's rank 0 then scores CORE (with plan.core, `nanotrn eval core` as a child process, as locally)
// and writes the trial's trial.json; rank 0 of the world rewrites trials.jsonl after the rung (runner.cpp).
//
//   run_in_groups(plan, options, jobs);   // every rank of options.comm calls it with the same jobs
//
// A trial whose training throws (the same error on every rank of its group: a recipe the model refuses, a loss
// that diverged) is recorded failed with the error's text and the group goes on. A killed rank ends the whole job
// (mpirun's rule); --resume continues it. A stop request stops the group's trial with its checkpoint.
#pragma once

#include <vector>

#include "sweep/runner.h"
#include "sweep/trial.h"

namespace nanotrn::sweep {

void run_in_groups(const SweepPlan& plan, const SweepRunOptions& options, const std::vector<TrialJob>& jobs);

}  // namespace nanotrn::sweep
