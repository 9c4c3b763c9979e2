// A rung's trials on rank groups under mpirun. See group_runner.h.
#include "sweep/group_runner.h"

#include "base/error.h"
#include "base/file.h"
#include "pipeline/train_run.h"

namespace nanotrn::sweep {
namespace {

void write_trial_json(const std::string& run, const TrialRecord& r) {
  const std::string text = record_json(r).dump(2) + "\n";
  write_file_atomic(run + "/trial.json", text.data(), text.size());
}

// Trains the job on the group (unless only CORE is missing); true on the group's rank 0 when the run ended with its
// result.json (false when stopped, or when training failed and was recorded).
bool train_on_group(const SweepPlan& plan, const SweepRunOptions& o, const TrialJob& j, dist::Communicator& group,
                    int threads) {
  const std::string run = trial_dir(o.dir, j.trial.id), ckpt = run + "/checkpoint.safetensors";
  if (j.core_only) return group.rank() == 0;
  if (group.rank() == 0) make_directories(run);
  group.barrier();
  pipeline::TrainRunOptions to;
  to.out = run;
  to.resume = path_exists(ckpt) ? ckpt : "";
  to.overwrite = !path_exists(ckpt);
  to.clock = plan.clock;
  to.should_stop = o.should_stop;
  try {
    return !pipeline::train_run(trial_recipe(plan, j.trial, o.home, threads), to, group).result_json.is_null();
  } catch (const Error& e) {
    if (group.rank() == 0) write_trial_json(run, failed_record(plan, j, o.home, threads, e.what()));
    return false;
  }
}

// The group's rank 0, after training: CORE when asked, then the trial's record.
void record_on_group_lead(const SweepPlan& plan, const SweepRunOptions& o, const TrialJob& j, int threads) {
  const std::string run = trial_dir(o.dir, j.trial.id);
  if (plan.core) {
    const int status = run_core_process(plan, j.trial, run, threads, o.should_stop);
    if (status >= 128 || (status != 0 && o.should_stop && o.should_stop())) return;  // --resume scores it
    if (status != 0) {
      write_trial_json(run, failed_record(plan, j, o.home, threads, core_failure(status, run)));
      return;
    }
  }
  write_trial_json(run, done_record(plan, j, o.home, threads, run));
}

}  // namespace

void run_in_groups(const SweepPlan& plan, const SweepRunOptions& o, const std::vector<TrialJob>& jobs) {
  dist::Communicator& world = *o.comm;
  const int groups = world.size() / o.ranks_per_trial, group_index = world.rank() / o.ranks_per_trial;
  const std::unique_ptr<dist::Communicator> group = world.split(group_index);
  const int threads = threads_per_trial(plan);
  for (size_t i = 0; i < jobs.size(); i++) {
    if (static_cast<int>(i % static_cast<size_t>(groups)) != group_index) continue;
    if (train_on_group(plan, o, jobs[i], *group, threads)) record_on_group_lead(plan, o, jobs[i], threads);
    if (o.should_stop && o.should_stop()) return;
  }
}

}  // namespace nanotrn::sweep
