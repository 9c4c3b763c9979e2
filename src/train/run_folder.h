// The run folder (`nanotrn train --out DIR`): one run's checkpoint.safetensors and metrics.jsonl. A new run never
// silently replaces another run's checkpoint or appends its lines to another run's metrics.
//
//   prepare_run_folder("out/run", RunFolderUse::fresh);      // throws when out/run holds a run, naming what is there
//   prepare_run_folder("out/run", RunFolderUse::resume);     // continue that run: its metrics.jsonl is appended to
//   prepare_run_folder("out/run", RunFolderUse::overwrite);  // replace it: its checkpoint and metrics are removed
//
// The folder is created when missing. Not here: writing the files (train/trainer.h).
#pragma once

#include <string>

namespace nanotrn::train {

enum class RunFolderUse { fresh, resume, overwrite };

void prepare_run_folder(const std::string& dir, RunFolderUse use);

// "checkpoint.safetensors and metrics.jsonl (recipe cpu-tiny, finished at step 40)"; "" when the folder holds no run.
std::string describe_run_folder(const std::string& dir);

}  // namespace nanotrn::train
