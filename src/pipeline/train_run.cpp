// One training run into a run folder. See train_run.h.
#include "pipeline/train_run.h"

#include <optional>

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <thread>

#include "base/dir_lock.h"
#include "base/error.h"
#include "base/file.h"
#include "base/format.h"
#include "data/epochs.h"
#include "engine/engine.h"
#include "gemm/probe.h"
#include "hw/catalog.h"
#include "hw/cpu_peak.h"
#include "model/config.h"
#include "predict/device_clock.h"
#include "predict/predictor.h"
#include "recipe/budget.h"
#include "train/data_setup.h"
#include "train/run_folder.h"

namespace nanotrn::pipeline {
namespace {

// The "% of peak" probe every run makes: at most kPeakProbeS, and it stops after kPeakSettleS once three runs agree
// within 1 % (hw::peak_settled; an idle machine settles at once).
constexpr double kPeakProbeS = 0.2;
constexpr double kPeakSettleS = 0.04;

train::TrainerOptions trainer_options(const recipe::Recipe& recipe, const TrainRunOptions& o,
                                      dist::Communicator& comm) {
  train::TrainerOptions t;
  t.out_dir = o.out;
  t.resume = o.resume;
  t.tensorboard = o.tensorboard;
  t.stop_after_steps = o.stop_after;
  t.comm = &comm;
  t.bucket_bytes = static_cast<int64_t>(o.bucket_mb * (1 << 20));
  if (comm.rank() == 0) t.print = o.print;
  t.should_stop = o.should_stop;
  Engine probe_engine(EngineOptions{.num_threads = recipe.train.threads});
  const DType dt = recipe.train.precision;
  const hw::ArithmeticPeak peak =
      measure_matmul_peak(probe_engine.gemm(), dt, probe_engine.num_threads(), kPeakProbeS, kPeakSettleS);
  t.host_peak_gflops = peak.gflops;
  t.host_peak_basis = peak.describe();
  t.host_cpu = hw::describe_cpu();
  return t;
}

// A big recipe is silent for minutes before its first step: when the predictor's host model (the catalog's "host"
// device at its measured peak) puts one step above kAnnounceStepSeconds, a line says so before it starts.
constexpr double kAnnounceStepSeconds = 5.0;

std::optional<double> predicted_host_step_seconds(const recipe::Recipe& recipe, double host_peak_gflops) {
  try {
    const hw::Device host = hw::host_device(hw::builtin_catalog(), host_peak_gflops);
    const predict::Prediction p = predict::predict(recipe, host);
    return p.phases.empty() ? std::nullopt : std::optional<double>(p.phases.front().time.step_s);
  } catch (const Error&) {
    return std::nullopt;  // an estimate only: a recipe the predictor cannot price here trains all the same
  }
}

}  // namespace

void share_host_cores(const recipe::Recipe& recipe, const dist::Communicator& comm) {
  if (recipe.train.threads != 0 || std::getenv("OMP_NUM_THREADS") != nullptr || comm.ranks_on_host() == 1) return;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  omp_set_num_threads(std::max(1, cores / comm.ranks_on_host()));
}

// The tokens the run will train on, where that is known before it starts: a step-limited recipe, or a clock that
// charges a model of the step rather than host time.
std::optional<int64_t> planned_tokens(const recipe::Recipe& recipe, const std::string& clock_spec,
                                      recipe::Clock& clock) {
  if (recipe::budget_seconds(recipe) <= 0)
    return recipe::walk_budget(recipe, [](const recipe::NextStep&) { return 1.0; }).tokens;
  if (clock_spec == "wall") return std::nullopt;
  return recipe::walk_budget_on(recipe, clock).tokens;
}

nlohmann::json run_result_json(const recipe::Recipe& recipe, const train::TrainResult& r, const std::string& clock) {
  nlohmann::json j = r.to_json();
  j.erase("loss_curve");  // metrics.jsonl holds the curve
  j["name"] = recipe.name;
  j["params"] = model::count_params(model::resolve(recipe.model)).total();
  j["clock"] = clock;
  j["recipe"] = recipe::recipe_to_json(recipe);
  return j;
}

TrainRunOutcome train_run(const recipe::Recipe& recipe, const TrainRunOptions& o, dist::Communicator& comm) {
  comm.set_timeout(o.comm_timeout);
  check(o.bucket_mb > 0.0 && o.bucket_mb <= 1024.0, "train: --bucket-mb must be in (0, 1024]");
  check(o.resume.empty() || !o.overwrite, "train: --resume and --overwrite exclude each other");
  // rank 0 owns the run folder, and holds its lock for the whole run: a second train into the same --out is refused
  // (naming this one) instead of interleaving its metrics with ours.
  std::optional<DirLock> lock;
  if (comm.rank() == 0 && !o.out.empty()) {
    make_directories(o.out);
    lock.emplace(o.out, "nanotrn train");
  }
  if (comm.rank() == 0) {
    train::prepare_run_folder(o.out, !o.resume.empty() ? train::RunFolderUse::resume
                                     : o.overwrite     ? train::RunFolderUse::overwrite
                                                       : train::RunFolderUse::fresh);
  }
  share_host_cores(recipe, comm);
  const std::unique_ptr<recipe::Clock> clock = predict::make_clock_for(o.clock, recipe);
  train::TrainerOptions topts = trainer_options(recipe, o, comm);  // measures the host's peak
  if (comm.rank() == 0 && o.print) {
    const std::optional<int64_t> tokens = planned_tokens(recipe, o.clock, *clock);
    const data::DataEpochs e = tokens ? data::epochs_needed(recipe.data.train, *tokens) : data::DataEpochs{};
    if (e.known) o.print("data: " + data::epochs_line(e));
    const std::optional<double> first = predicted_host_step_seconds(recipe, topts.host_peak_gflops);
    if (first && *first > kAnnounceStepSeconds) {
      o.print("first step: about " + format_number("%.0f", *first) +
              " s on this host (the predictor's host model at its measured peak); nothing prints until it ends");
    }
  }
  train::Trainer run(recipe, train::open_training_data(recipe, o.setup_hint), *clock, std::move(topts));
  TrainRunOutcome out;
  out.result = run.run();
  out.clock_name = clock->name();
  const bool finished = out.result.stop_reason == "budget" || out.result.stop_reason == "steps";
  if (comm.rank() == 0 && finished && !o.out.empty()) {
    out.result_json = run_result_json(recipe, out.result, out.clock_name);
    const std::string text = out.result_json.dump(2) + "\n";
    write_file_atomic(o.out + "/result.json", text.data(), text.size());
  }
  return out;
}

}  // namespace nanotrn::pipeline
