// One training run into a run folder: what `nanotrn train` does, as a library call the sweep (sweep/) runs too,
// in-process under mpirun on a group of ranks.
//
//   TrainRunOptions o{.out = "runs/a", .clock = "trn2"};
//   TrainRunOutcome r = train_run(recipe, o, comm);     // rank 0 owns the folder; every rank of `comm` trains
//   r.result.val_bpb;  r.result_json;                   // also written to runs/a/result.json (rank 0)
//
// Steps: the run folder is prepared (train/run_folder.h: fresh, resume or overwrite; a folder holding another run is
// refused), threads are shared among this host's ranks unless the recipe or OMP_NUM_THREADS fixes them, the clock is
// made (predict/device_clock.h: wall, fixed:<s>, a device, device:low|high), the host's matmul peak measured for the
// run header, the data opened (train/data_setup.h, the error names `setup_hint`), and the Trainer run. A run that
// ends by its budget or step limit leaves `<out>/result.json` (written atomically by rank 0): the training summary,
// "name" (the recipe's), "params", the clock, and the resolved recipe — what `nanotrn score` and `nanotrn report` read
// and what a sweep records. An interrupted run (stop signal, --stop-after) leaves its checkpoint and no result.json.
// Not here: flags and printing (src/cli/train.cpp), MPI's start and end (dist/mpi_communicator.h).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "dist/communicator.h"
#include "recipe/recipe.h"
#include "train/trainer.h"

namespace nanotrn::pipeline {

struct TrainRunOptions {
  std::string out;           // the run folder
  std::string resume;        // a checkpoint to continue from ("" = a fresh run)
  bool overwrite = false;    // replace the run in `out`
  bool tensorboard = false;  // also write TensorBoard event files into `out`
  std::string clock = "wall";
  int64_t stop_after = 0;  // end this invocation with a checkpoint once the run has this many steps (0 = off)
  double comm_timeout = 20.0;
  double bucket_mb = 4.0;
  std::string setup_hint = {};  // the command that builds the recipe's data, for the missing-data error
  std::function<void(const std::string&)> print = {};  // progress lines (rank 0); null = quiet
  std::function<bool()> should_stop = {};              // polled between steps; null = never
};

struct TrainRunOutcome {
  train::TrainResult result;
  std::string clock_name;
  nlohmann::json result_json;  // what result.json holds (rank 0; empty on other ranks or when interrupted)
};

TrainRunOutcome train_run(const recipe::Recipe& recipe, const TrainRunOptions& options, dist::Communicator& comm);

// Threads per rank: train.threads, else OMP_NUM_THREADS, else this machine's cores shared by its ranks (sets OpenMP's
// thread count in the last case).
void share_host_cores(const recipe::Recipe& recipe, const dist::Communicator& comm);

// The tokens the run will train on, when its clock can say before it runs: a step-limited recipe, or a fixed or
// device clock (the budget walked with the clock's own charges, recipe/budget.h); nullopt under the wall clock with
// a time budget. train_run prints them as epochs of data.train (data/epochs.h).
std::optional<int64_t> planned_tokens(const recipe::Recipe& recipe, const std::string& clock_spec);

// The result.json of a finished run (what train_run writes).
nlohmann::json run_result_json(const recipe::Recipe& recipe, const train::TrainResult& r, const std::string& clock);

}  // namespace nanotrn::pipeline
