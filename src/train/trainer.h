// The budgeted trainer: trains until the charged time (or the step limit) runs out, then scores val_bpb.
//
//   Trainer t(recipe, {.train = std::move(src), .val = std::move(val), .token_bytes = tb, .bos = 8188}, *clock,
//             {.out_dir = "out/run"});
//   TrainResult r = t.run();      // r.val_bpb, r.steps, r.tokens, r.charged_seconds, ...
//
// Per step: progress p = charged / budget (or step / steps without a time budget); the batch phase active at p
// gives the micro-batch count and an lr scale; lr multiplier = schedule(step, p) * phase scale; each micro-batch
// runs forward + backward with loss / accum (gradient accumulation); gradients are clipped when optim.grad_clip > 0;
// Muon and AdamW step; the EMA updates every ema.every steps. The step's host wall time goes to the clock, which
// returns its charge. Evaluation and checkpoint writing happen outside the charged region. A non-finite loss stops
// the run before the optimiser touches the weights, throws NonFiniteLoss, and leaves the last checkpoint as it was.
// Checkpoints hold only good weights: one due after step k is written when step k + 1's first forward pass has
// shown a finite loss for those weights, and never when a weight is not finite (the final one needs finite weights),
// so the checkpoint a NonFiniteLoss names resumes into a finite loss. Nor are weights whose finite loss is back at
// uniform guessing after the run had learned (train/divergence.h): the run stops with Diverged, keeping the last
// healthy checkpoint instead of writing dead weights over it.
// Files in out_dir: metrics.jsonl (one JSON object per logged step and evaluation), checkpoint.safetensors, and with
// options.tensorboard an events.out.tfevents.* file holding every numeric field of those objects as the scalar
// "<event>/<field>" at its step (step/loss, eval/val_bpb, ...). A failed
// write of either is an Error naming the file.
//
// Data parallel (options.comm with N ranks, e.g. under mpirun): the recipe means the same training at any N. A
// step's accum micro-batches of batch.rows rows are dealt in contiguous blocks: rank r trains micro-batches
// [r accum/N, (r+1) accum/N) (accum must be a multiple of N in every batch phase). Every rank reads the whole global
// stream and skips the other ranks' micro-batches, so the data position, and with it every checkpoint, is the same
// at every world size. Gradients are summed across ranks by dist/grad_reducer.h (overlapped with the backward, or in
// a fixed order under train.deterministic). The optimiser is sharded (ZeRO-1, dist/ownership.h): each parameter's
// owner alone keeps its state and updates it, then broadcasts the new values. Before its last backward a rank
// learns every rank's loss (one all-reduce), so a non-finite loss anywhere stops every rank before the optimiser
// step. After the step, the slowest rank's wall time is charged by rank 0's clock and broadcast with the stop
// decision (budget, steps, a signal on any rank), so all ranks stop at the same step. Evaluation is sharded by
// batch (train/evaluate.h). Rank 0 alone prints, writes metrics.jsonl and writes the checkpoint, after gathering the
// optimiser state from the owners; the checkpoint does not depend on N, so a run resumes at any world size. Ranks
// started with different recipes or builds refuse to start (train/launch_check.h).
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autograd/profile.h"
#include "base/error.h"
#include "dist/communicator.h"
#include "engine/engine.h"
#include "model/gpt.h"
#include "recipe/clock.h"
#include "recipe/recipe.h"
#include "train/token_source.h"

namespace nanotrn::train {

struct TrainerData {
  std::unique_ptr<TokenSource> train;
  std::unique_ptr<TokenSource> val;  // may be null: no evaluation
  std::vector<int32_t> token_bytes;  // per token id, 0 for specials
  int32_t bos = -1;                  // for data.mask_bos_targets
  std::string description;           // for the run header
  // What could not be checked, for the run header as "warning: ..." lines (shards without a shards.json, from
  // another tool: nothing says they were made with this tokenizer).
  std::vector<std::string> warnings;
};

struct TrainerOptions {
  std::string out_dir{};                            // empty: no files (no metrics, no checkpoints)
  std::string resume{};                             // a checkpoint to continue from
  bool tensorboard = false;                         // also write TensorBoard event files into out_dir (io/tfevents.h)
  int64_t stop_after_steps = 0;                     // stop this invocation after the step count reaches this (0 = off)
  double host_peak_gflops = 0.0;                    // host arithmetic peak for "% of peak" under host-time clocks
  std::string host_peak_basis{};                    // how it was measured, for the run header (hw/cpu_peak.h)
  std::string host_cpu{};                           // the CPU and its vector ISA, for the run header (hw/cpu_peak.h)
  std::function<void(const std::string&)> print{};  // progress lines; null = quiet
  // Polled between steps; when it returns true the run writes its checkpoint and stops ("interrupted", no final
  // evaluation). The CLI passes base/stop_signal.h's stop_signal(); null = never.
  std::function<bool()> should_stop{};
  // Benchmarks (`nanotrn bench train`): from step `measure_from` on (0-based), per-op host times go to `profile`
  // (when set; the optimiser step as one row) and RankTiming counts; earlier steps are warm-up.
  OpProfile* profile = nullptr;
  int64_t measure_from = 0;
  dist::Communicator* comm = nullptr;  // the job's ranks (not owned); null = this process alone
  int64_t bucket_bytes = 4 << 20;      // gradient all-reduce bucket size (dist/grad_reducer.h)
};

// Where one rank's step time went, summed over the run's steps (seconds).
struct RankTiming {
  double compute = 0.0;  // forward, backward, optimiser
  double exposed = 0.0;  // communication the backward did not hide: the gradient wait, the parameter broadcast
  double waiting = 0.0;  // waiting for the other ranks at the step's two synchronisation points
  nlohmann::json to_json() const;
};

struct TrainResult {
  int64_t steps = 0;
  int64_t tokens = 0;
  double charged_seconds = 0.0;
  double wall_seconds = 0.0;  // host time of the charged region
  double last_loss = 0.0;
  double val_bpb = 0.0;  // NaN when there is no validation source
  double val_nats_per_token = 0.0;
  int64_t val_tokens = 0;
  // The last evaluation during the run (eval.every_seconds), -1 / NaN when none: what a run stopped before its end
  // (--stop-after, a signal) still reports.
  int64_t last_eval_step = -1;
  double last_eval_bpb = std::numeric_limits<double>::quiet_NaN();
  double flops_per_token = 0.0;
  std::string stop_reason;                             // "budget", "steps", "stop_after_steps", "interrupted"
  std::vector<std::pair<int64_t, double>> loss_curve;  // (step, loss) at every logged step
  int world = 1;
  std::vector<RankTiming> ranks;      // per rank, in rank order, over the measured steps (every rank gets it)
  std::vector<double> step_seconds;   // host wall time of every step of this invocation (the slowest rank's)
  int64_t optimizer_state_bytes = 0;  // on this rank
  int64_t optimizer_state_total = 0;  // over all ranks (= one rank's at world size 1)
  nlohmann::json to_json() const;
};

// Thrown when a loss is NaN or infinite; names the step and the last good checkpoint.
class NonFiniteLoss : public Error {
 public:
  using Error::Error;
};
// Thrown when the loss, finite, is back at uniform guessing after the run had learned (train/divergence.h): the
// weights are dead; their checkpoint is not written and the last healthy one is named. A NonFiniteLoss, so that
// whoever handles one handles both.
class Diverged : public NonFiniteLoss {
 public:
  using NonFiniteLoss::NonFiniteLoss;
};

class Trainer {
 public:
  Trainer(recipe::Recipe recipe, TrainerData data, recipe::Clock& clock, TrainerOptions options);
  ~Trainer();
  TrainResult run();
  model::Gpt& model();
  // The run header: recipe name, shapes, parameter counts, FLOPs/token, the clock's charging rule.
  std::string header() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace nanotrn::train
