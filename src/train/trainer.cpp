// The budgeted trainer. See trainer.h.
#include "train/trainer.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>

#include "autograd/tape.h"
#include "base/file.h"
#include "base/format.h"
#include "base/temp_files.h"
#include "base/version.h"
#include "dist/grad_reducer.h"
#include "dist/ownership.h"
#include "eval/finite_weights.h"
#include "io/tfevents.h"
#include "ops/ops.h"
#include "optim/schedule.h"
#include "recipe/budget.h"
#include "recipe/memory_need.h"
#include "recipe/recipe_diff.h"
#include "train/checkpoint.h"
#include "train/divergence.h"
#include "train/evaluate.h"
#include "train/launch_check.h"
#include "train/optimizers.h"

namespace nanotrn::train {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string clock_text(double seconds) {
  const int64_t s = static_cast<int64_t>(std::llround(seconds));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof buf, "%02lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  }
  return buf;
}

std::vector<int64_t> parameter_sizes(model::Gpt& gpt) {
  std::vector<int64_t> sizes;
  for (const model::Parameter& p : gpt.parameters()) sizes.push_back(p.value.numel());
  return sizes;
}

std::vector<bool> owned_by(const std::vector<int>& owners, int rank) {
  std::vector<bool> owned;
  for (int o : owners) owned.push_back(o == rank);
  return owned;
}

std::vector<Tensor*> parameter_tensors(model::Gpt& gpt) {
  std::vector<Tensor*> out;
  for (model::Parameter& p : gpt.parameters()) out.push_back(&p.value);
  return out;
}

std::string mib(int64_t bytes) { return format_number("%.1f MiB", static_cast<double>(bytes) / (1 << 20)); }

}  // namespace

nlohmann::json RankTiming::to_json() const {
  return {{"compute_seconds", compute}, {"exposed_communication_seconds", exposed}, {"waiting_seconds", waiting}};
}

nlohmann::json TrainResult::to_json() const {
  const auto ranks_json = [this] {
    nlohmann::json a = nlohmann::json::array();
    for (const RankTiming& t : ranks) a.push_back(t.to_json());
    return a;
  };
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& [s, l] : loss_curve) curve.push_back({s, l});
  return {{"steps", steps},
          {"tokens", tokens},
          {"charged_seconds", charged_seconds},
          {"wall_seconds", wall_seconds},
          {"last_loss", last_loss},
          {"val_bpb", std::isnan(val_bpb) ? nlohmann::json(nullptr) : nlohmann::json(val_bpb)},
          {"val_nats_per_token", val_nats_per_token},
          {"val_tokens", val_tokens},
          {"last_eval_step", last_eval_step},
          {"last_eval_bpb", std::isnan(last_eval_bpb) ? nlohmann::json(nullptr) : nlohmann::json(last_eval_bpb)},
          {"flops_per_token", flops_per_token},
          {"stop_reason", stop_reason},
          {"world_size", world},
          {"ranks", ranks_json()},
          {"optimizer_state_bytes", optimizer_state_bytes},
          {"optimizer_state_bytes_all_ranks", optimizer_state_total},
          {"loss_curve", curve}};
}

struct Trainer::State {
  recipe::Recipe recipe;
  TrainerData data;
  recipe::Clock& clock;
  TrainerOptions opts;
  std::unique_ptr<dist::Communicator> local_comm;  // when options.comm is null
  dist::Communicator& comm;
  Engine engine;
  Tape tape;
  Ctx ctx;
  model::Gpt gpt;
  std::vector<int> owners;  // the rank that owns each parameter's optimiser state (dist/ownership.h)
  OptimizerSet optim;
  dist::GradReducer reducer;
  int64_t state_bytes_total = 0;
  RankTiming timing, window_timing;  // this rank's, over the run and since the last logged step
  std::vector<Tensor> ema;
  double budget = 0.0;
  // How long a rank may wait for the others: the user's timeout, or longer where the others may legitimately still be
  // working (3 x the slowest step so far; an evaluation's whole share of batches).
  double base_timeout = 0.0, slowest_step = 0.0;
  double flops_per_token = 0.0;
  // Progress counters (saved in checkpoints).
  int64_t step = 0, tokens = 0;
  double charged = 0.0, wall = 0.0;
  double startup = 0.0;  // the clock's startup charge inside `charged` (budget.h)
  std::ofstream metrics;
  std::string metrics_path;
  std::unique_ptr<io::TfEventsWriter> events;  // with options.tensorboard, rank 0
  std::string checkpoint_path;
  int64_t checkpoint_step = -1;
  double best_loss = std::numeric_limits<double>::infinity();  // the lowest step loss so far (train/divergence.h)
  // A checkpoint that is due but not yet written: the weights after step `step` are saved only once the next
  // forward pass has shown that their loss is finite (see save_pending()). Holds the data position at the due point.
  std::optional<nlohmann::json> pending_position;

  State(recipe::Recipe r, TrainerData d, recipe::Clock& c, TrainerOptions o)
      : recipe(std::move(r)),
        data(std::move(d)),
        clock(c),
        opts(std::move(o)),
        local_comm(opts.comm ? nullptr : dist::make_local_communicator()),
        comm(opts.comm ? *opts.comm : *local_comm),
        engine(EngineOptions{.num_threads = recipe.train.threads}),
        ctx{engine, &tape, recipe.train.precision},
        gpt(ctx, model::resolve(recipe.model), recipe.seed),
        owners(dist::assign_owners(parameter_sizes(gpt), comm.size())),
        optim(engine.gemm(), gpt, recipe.optim, ctx.matmul_dtype, owned_by(owners, comm.rank()),
              recipe.train.deterministic),
        reducer(comm, parameter_tensors(gpt),
                {.bucket_bytes = opts.bucket_bytes, .deterministic = recipe.train.deterministic}) {
    const int world = comm.size();
    for (size_t i = 0; i < recipe.batch.phases.size(); i++) {
      const int64_t accum = recipe.batch.phases[i].accum;
      check(accum % world == 0 || recipe.batch.rows % world == 0,
            "train: " + std::to_string(world) + " ranks cannot share batch phase " + std::to_string(i) + "'s " +
                std::to_string(accum) + " micro-batch(es) of " + std::to_string(recipe.batch.rows) +
                " rows: ranks split a step by whole micro-batches when the world size divides accum, else every "
                "micro-batch by its rows when it divides batch.rows; it divides neither (e.g. halve batch.rows and "
                "double every accum: the same rows per step)");
    }
    base_timeout = comm.timeout();
    require_same_launch(comm, launch_identity(recipe, version_line(), opts.out_dir, opts.resume));
    state_bytes_total = optim.state_bytes();
    comm.all_reduce(&state_bytes_total, 1);
    budget = recipe::budget_seconds(recipe);
    flops_per_token = model::flops_per_token(gpt.config(), recipe.batch.seq_len);
    check(data.train != nullptr, "Trainer: a training token source is required");
    if (recipe.ema.decay > 0.0f) {
      for (const model::Parameter& p : gpt.parameters()) ema.push_back(p.value.clone());
    }
    if (!opts.out_dir.empty()) checkpoint_path = opts.out_dir + "/checkpoint.safetensors";
  }

  bool lead() const { return comm.rank() == 0; }
  double step_timeout() const { return std::max(base_timeout, 3.0 * slowest_step); }

  // What this rank trains of a step with `accum` micro-batches: micro-batches [first, last) and of each its rows
  // [row_begin, row_end). Whole micro-batches when the world size divides accum; else (the constructor checked that
  // it divides batch.rows) every micro-batch, split by rows.
  struct Share {
    int64_t first = 0, last = 0, row_begin = 0, row_end = 0;
    bool by_rows = false;
  };
  Share my_share(int64_t accum) const {
    const int64_t world = comm.size(), rank = comm.rank(), rows = recipe.batch.rows;
    if (accum % world == 0) return {accum / world * rank, accum / world * (rank + 1), 0, rows, false};
    return {0, accum, rows / world * rank, rows / world * (rank + 1), true};
  }

  // Every optimiser state tensor, collected on rank 0 from the ranks that own them (empty on the other ranks).
  std::vector<std::pair<std::string, Tensor>> gathered_optimizer_state() {
    std::map<std::string, Tensor> mine;
    for (auto& [name, t] : optim.state()) mine.emplace(name, t);
    std::vector<std::pair<std::string, Tensor>> out;
    for (const OptimizerSet::Slot& slot : optim.state_layout()) {
      const int owner = owners[slot.param];
      if (owner == 0) {
        if (lead()) out.emplace_back(slot.name, mine.at(slot.name));
        continue;
      }
      int64_t header[9] = {};  // rank, then up to 8 dimensions
      if (comm.rank() == owner) {
        const Tensor& t = mine.at(slot.name);
        check(t.dim() <= 8 && t.is_contiguous(), "checkpoint: optimiser state '" + slot.name + "' cannot be sent");
        header[0] = t.dim();
        for (int64_t d = 0; d < t.dim(); d++) header[1 + d] = t.size(d);
        comm.send(header, sizeof header, 0);
        comm.send(t.data<float>(), t.numel() * 4, 0);
      } else if (lead()) {
        comm.recv(header, sizeof header, owner);
        Shape shape(header + 1, header + 1 + header[0]);
        Tensor t = Tensor::empty(shape, DType::f32);
        comm.recv(t.data<float>(), t.numel() * 4, owner);
        out.emplace_back(slot.name, t);
      }
    }
    return out;
  }

  // Every rank's timing, in rank order (a collective: every rank calls it at the same point).
  std::vector<RankTiming> all_timings(const RankTiming& mine) {
    const double local[3] = {mine.compute, mine.exposed, mine.waiting};
    std::vector<double> all(static_cast<size_t>(3 * comm.size()));
    comm.all_gather(local, all.data(), sizeof local);
    std::vector<RankTiming> out;
    for (int r = 0; r < comm.size(); r++)
      out.push_back(
          {all[static_cast<size_t>(3 * r)], all[static_cast<size_t>(3 * r + 1)], all[static_cast<size_t>(3 * r + 2)]});
    return out;
  }

  // After the owners' optimiser step: every parameter's new values from its owner to every rank.
  void broadcast_parameters() {
    if (comm.size() == 1) return;
    std::vector<dist::Request> pending;
    auto& params = gpt.parameters();
    for (size_t i = 0; i < params.size(); i++)
      pending.push_back(comm.start_broadcast(params[i].value.data<float>(), params[i].value.numel() * 4, owners[i]));
    for (dist::Request& r : pending) r.wait();
  }

  recipe::RunPosition position() const { return {.step = step, .charged_s = charged, .startup_s = startup}; }

  void emit(const nlohmann::json& j) {  // only rank 0 has the file open
    if (!metrics.is_open()) return;
    metrics << j.dump() << "\n" << std::flush;
    if (!metrics.good()) throw Error("cannot write " + metrics_path + " (" + std::strerror(errno) + ")");
    if (events) emit_scalars(j);
  }
  // The record's numeric fields as TensorBoard scalars "<event>/<field>" at its step.
  void emit_scalars(const nlohmann::json& j) {
    const auto ev = j.find("event");
    const auto st = j.find("step");
    if (ev == j.end() || !ev->is_string() || st == j.end() || !st->is_number_integer()) return;
    std::vector<std::pair<std::string, float>> values;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "step" || !it.value().is_number()) continue;
      values.emplace_back(ev->get<std::string>() + "/" + it.key(), it.value().get<float>());
    }
    if (values.empty()) return;
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    events->scalars(st->get<int64_t>(), now, values);
  }
  void say(const std::string& line) const {
    if (opts.print && lead()) opts.print(line);
  }

  nlohmann::json progress_json(const nlohmann::json& train_position) const {
    return {{"step", step},
            {"tokens", tokens},
            {"charged_seconds", charged},
            {"startup_seconds", startup},
            {"wall_seconds", wall},
            {"train_position", train_position}};
  }

  std::string kept_checkpoint() const {
    return checkpoint_step >= 0 ? checkpoint_path + " (step " + std::to_string(checkpoint_step) + ") is intact"
                                : std::string("no checkpoint was written");
  }

  // The step's mean loss (finite) judged for divergence to uniform guessing (train/divergence.h): dead weights stop
  // the run before their checkpoint is written or the optimiser steps, naming the healthy checkpoint kept.
  void check_not_diverged(double mean_loss) {
    if (!diverged_to_uniform(best_loss, mean_loss, recipe.model.vocab_size)) {
      best_loss = std::min(best_loss, mean_loss);
      return;
    }
    tape.clear();
    pending_position.reset();
    emit({{"event", "diverged"}, {"step", step}, {"loss", mean_loss}, {"best_loss", best_loss}});
    throw Diverged(
        "training loss " + format_number("%.4f", mean_loss) + " at step " + std::to_string(step) +
        " is no better than guessing uniformly over the " + std::to_string(recipe.model.vocab_size) +
        " tokens (ln V = " + format_number("%.4f", std::log(static_cast<double>(recipe.model.vocab_size))) +
        ") after the run reached " + format_number("%.4f", best_loss) +
        ": it diverged (finite but dead weights); they were not saved; last good checkpoint: " + kept_checkpoint());
  }

  // Writes the checkpoint of the current weights (the data position: `train_position`, default now). Weights that
  // are not all finite are never written: the run stops, naming the checkpoint that is kept.
  void save(nlohmann::json train_position) {
    pending_position.reset();
    if (checkpoint_path.empty()) return;
    if (const std::optional<NonFiniteWeight> bad = first_non_finite_weight(gpt)) {
      throw NonFiniteLoss("the weights after step " + std::to_string(step) + " are not all finite (" + bad->describe() +
                          "); no checkpoint was written for them; last good checkpoint: " + kept_checkpoint());
    }
    comm.set_activity("the checkpoint of step " + std::to_string(step));
    const std::vector<std::pair<std::string, Tensor>> state = gathered_optimizer_state();
    if (lead()) {
      remove_stale_temporaries(opts.out_dir);
      save_checkpoint(checkpoint_path, recipe, gpt, state, optim.counters(), ema, progress_json(train_position));
    }
    if (comm.size() > 1) {  // the other ranks wait for the write, with room for a slow disk
      const double timeout = comm.timeout();
      comm.set_activity("rank 0's write of the checkpoint of step " + std::to_string(step));
      comm.set_timeout(std::max(timeout, 600.0));
      comm.barrier();
      comm.set_timeout(timeout);
    }
    checkpoint_step = step;
  }
  void save() { save(data.train->state()); }
  // Called once the loss of the current weights is known to be finite: writes a due checkpoint.
  void save_pending() {
    if (pending_position) save(*pending_position);
  }

  void resume(const std::string& path) {
    const Checkpoint c = load_checkpoint(path);
    // The model must match (its tensors are the state); the data position is checked by the source's restore(), the
    // optimiser state by load_state(). Learning rates, budget, steps, evaluation and logging may change between runs.
    const nlohmann::json was = recipe::recipe_to_json(c.recipe), now = recipe::recipe_to_json(recipe);
    for (const char* section : {"model"}) {
      if (const auto d = recipe::first_difference(now.at(section), was.at(section), "in the recipe",
                                                  "in the checkpoint", section)) {
        throw Error(path + ": the checkpoint was trained with another " + section + " section (" + *d +
                    "); resume with the recipe it was trained with");
      }
    }
    restore_model(gpt, c);
    optim.load_state(c.with_prefix(""), c.counters);
    if (!ema.empty()) {
      const auto saved = c.with_prefix("ema.");
      check(saved.size() == ema.size(), path + ": the checkpoint has no EMA weights but the recipe uses an EMA");
      for (size_t i = 0; i < ema.size(); i++) ema[i].copy_from(saved[i].second);
    }
    const nlohmann::json& p = c.progress;
    try {
      step = p.at("step").get<int64_t>();
      tokens = p.at("tokens").get<int64_t>();
      charged = p.at("charged_seconds").get<double>();
      startup = p.value("startup_seconds", 0.0);  // checkpoints before the startup charge have none
      wall = p.at("wall_seconds").get<double>();
      check(step >= 0 && tokens >= 0 && std::isfinite(charged) && std::isfinite(wall) && std::isfinite(startup) &&
                startup >= 0 && startup <= charged,
            path + ": the progress record (metadata 'progress') holds negative or non-finite counters: " + p.dump());
      data.train->restore(p.at("train_position"));
    } catch (const nlohmann::json::exception& e) {
      throw Error(path + ": the progress record (metadata 'progress') is malformed: " + e.what());
    }
    checkpoint_step = step;
    say("resumed from " + path + " at step " + std::to_string(step) + ", charged " + clock_text(charged));
  }

  void update_ema() {
    if (ema.empty() || step % recipe.ema.every != 0) return;
    const float d = std::pow(recipe.ema.decay, static_cast<float>(recipe.ema.every));
    auto& params = gpt.parameters();
    for (size_t i = 0; i < ema.size(); i++) {
      float* e = ema[i].data<float>();
      const float* w = params[i].value.data<float>();
      const int64_t n = ema[i].numel();
      for (int64_t j = 0; j < n; j++) e[j] = d * e[j] + (1.0f - d) * w[j];
    }
  }

  BpbResult evaluate(nlohmann::json start) {
    EvalShape shape{.tokens = recipe.eval.tokens, .rows = recipe.eval.rows, .seq_len = recipe.batch.seq_len};
    data.val->restore(start);
    std::vector<Tensor> live;
    if (recipe.ema.evaluate_ema && !ema.empty()) {
      for (model::Parameter& p : gpt.parameters()) live.push_back(p.value.clone());
      for (size_t i = 0; i < ema.size(); i++) gpt.parameters()[i].value.copy_from(ema[i]);
    }
    comm.set_activity("the evaluation at step " + std::to_string(step));
    // A rank with fewer batches waits for the others' whole share: allow 10 x a step per batch of that share.
    const double batches =
        std::ceil(static_cast<double>(std::max<int64_t>(1, shape.tokens / (shape.rows * shape.seq_len))) / comm.size());
    comm.set_timeout(std::max(comm.timeout(), base_timeout + 10.0 * slowest_step * batches));
    const BpbResult r = evaluate_bpb(ctx, gpt, *data.val, data.token_bytes, shape, &comm);
    comm.set_timeout(step_timeout());
    for (size_t i = 0; i < live.size(); i++) gpt.parameters()[i].value.copy_from(live[i]);
    return r;
  }

  // ---- The run, step by step (Trainer::run reads as this list) ----

  // Rank 0 alone writes files: stale temporaries of a killed run removed, metrics.jsonl (never a FIFO: it would block
  // the run, deaf even to SIGTERM) and the TensorBoard events opened.
  void open_outputs() {
    if (opts.out_dir.empty() || !lead()) return;
    for (const std::string& stale : remove_stale_temporaries(opts.out_dir))
      say("removed " + stale + " (left by a run that was killed)");
    metrics_path = opts.out_dir + "/metrics.jsonl";
    check_regular_or_absent(metrics_path);
    metrics.open(metrics_path, std::ios::app);
    check(metrics.good(), "cannot open " + metrics_path + " for writing");
    if (opts.tensorboard) events = std::make_unique<io::TfEventsWriter>(opts.out_dir);
  }

  // Resumes, or charges a fresh run's startup before its first step (the modelled device's compile time,
  // recipe-spec §12; 0 for host clocks) as the predictor's budget walk does (recipe/budget.h); then the header and
  // the start event.
  void start(const std::string& header_text) {
    if (!opts.resume.empty()) resume(opts.resume);
    if (opts.resume.empty()) startup = charged = clock.startup_charge();
    say(header_text);
    emit({{"event", "start"}, {"recipe", recipe::recipe_to_json(recipe)}, {"step", step}, {"header", header_text}});
  }

  // What the loop carries from step to step: the validation start, the next periodic evaluation, the batch buffers,
  // and the progress since the last logged line (charged time is the clock's, the device's under a device clock;
  // wall time the host's; the FLOP rate judged against the clock's peak, else the host's measured one).
  struct Loop {
    nlohmann::json val_start;
    double next_eval = 0.0;
    std::vector<int32_t> inputs, targets;
    double peak_flops = 0.0;
    bool device_time = false;
    double window_wall = 0.0, window_charged = 0.0;
    int64_t window_tokens = 0, window_steps = 0;
  };
  Loop begin_loop() const {
    Loop l;
    l.val_start = data.val ? data.val->state() : nlohmann::json();
    l.next_eval = recipe.eval.every_seconds > 0 ? charged + recipe.eval.every_seconds : 0.0;
    l.inputs.resize(static_cast<size_t>(recipe.batch.rows * recipe.batch.seq_len));
    l.targets.resize(l.inputs.size());
    l.device_time = clock.peak_flops() > 0.0;
    l.peak_flops = l.device_time ? clock.peak_flops() : opts.host_peak_gflops * 1e9;
    return l;
  }

  // A stop request (a signal) on this rank or any other, agreed by all (a collective) before the first step; after
  // each step, account_step agrees on it with the step's time in one collective.
  bool agree_on_stop() {
    double stop = opts.should_stop && opts.should_stop() ? 1.0 : 0.0;
    comm.all_reduce(&stop, 1, dist::ReduceOp::max);
    return stop > 0.0;
  }

  // Why the run stops before the next step ("budget", "steps", "stop_after_steps", "interrupted"), or "" to go on.
  std::string stop_reason(bool stop_requested) const {
    if (const recipe::BudgetStop b = recipe::budget_stop(recipe, position()); b != recipe::BudgetStop::none)
      return b == recipe::BudgetStop::budget ? "budget" : "steps";
    if (opts.stop_after_steps > 0 && step >= opts.stop_after_steps) return "stop_after_steps";
    if (stop_requested) return "interrupted";
    return "";
  }

  // What one step did: its schedule, loss, gradient norm, time, and whether a stop was requested during it.
  struct StepOutcome {
    recipe::NextStep next;
    double lr_multiplier = 1.0;
    double loss = 0.0;
    double grad_norm = 0.0;
    double wall = 0.0;  // the slowest rank's
    double charged = 0.0;
    int64_t tokens = 0;
    bool stop_requested = false;
  };

  // The micro-batches of one step (see train_micro_batches).
  struct MicroBatches {
    double loss_sum = 0.0;  // over every rank's micro-batches
    double waited = 0.0;    // waiting for the other ranks' losses
    double excluded = 0.0;  // a due checkpoint's write: not charged to the step
  };

  // Forward and backward over the step's micro-batches (every rank reads every one and trains its own share). Before
  // the last backward every rank's losses are summed, so a non-finite loss anywhere stops every rank there, before
  // the optimiser step; a finite one first writes a due checkpoint of the weights that gave it.
  MicroBatches train_micro_batches(Loop& l, const recipe::BatchPhase& ph, const std::vector<float>& mtp,
                                   OpProfile* profile) {
    const int64_t B = recipe.batch.rows, T = recipe.batch.seq_len;
    MicroBatches out;
    const Share share = my_share(ph.accum);
    std::optional<std::pair<int64_t, double>> bad;  // this rank's first non-finite loss: (micro-batch, loss)
    comm.set_activity("step " + std::to_string(step + 1));
    for (int64_t a = 0; a < ph.accum; a++) {
      data.train->next(B, T, l.inputs.data(), l.targets.data());
      if (a < share.first || a >= share.last) continue;
      const bool final = a == share.last - 1;
      Tensor loss;
      double weight = 1.0;  // this rank's part of the micro-batch's loss
      if (!bad) {
        if (recipe.data.mask_bos_targets && data.bos >= 0) {
          for (int32_t& t : l.targets) t = t == data.bos ? -1 : t;
        }
        weight = share_of_targets(l.targets, share, T);
        const int64_t rows = share.row_end - share.row_begin;
        const auto mine = [&](const std::vector<int32_t>& v) {
          return std::vector<int32_t>(v.begin() + share.row_begin * T, v.begin() + share.row_end * T);
        };
        const Tensor ids = Tensor::from_ints({rows, T}, share.by_rows ? mine(l.inputs) : l.inputs, engine.allocator());
        const Tensor targets =
            Tensor::from_ints({rows, T}, share.by_rows ? mine(l.targets) : l.targets, engine.allocator());
        if (profile) profile->start_forward();
        loss = gpt.loss(ctx, ids, targets, mtp);
        const double lv = loss.item();
        if (std::isfinite(lv)) {
          out.loss_sum += weight * lv;
        } else {
          bad = {a, lv};
          tape.clear();
        }
      }
      if (final) agree_on_losses(ph, bad, out);
      if (bad) continue;  // nothing to differentiate; the next synchronisation stops every rank
      const double scale = weight / static_cast<double>(ph.accum);
      tape.backward(scale != 1.0 ? ops::scale(ctx, loss, static_cast<float>(scale)) : loss, Tensor(), false,
                    reducer.backward_hook(final));
      reducer.after_backward(final);
    }
    reducer.finish();
    return out;
  }

  // A rank's part of a micro-batch's mean loss when the rows are split: its rows' scored targets (not -1) over the
  // micro-batch's, counted from the targets every rank reads, so that the parts add up to the unsplit mean (exactly
  // for the next-token head; MTP heads shift their targets, and their parts differ from it by the rows' edges).
  static double share_of_targets(const std::vector<int32_t>& targets, const Share& share, int64_t T) {
    if (!share.by_rows) return 1.0;
    int64_t all = 0, mine = 0;
    for (size_t i = 0; i < targets.size(); i++) {
      const bool scored = targets[i] != -1;
      const auto row = static_cast<int64_t>(i) / T;
      all += scored;
      mine += scored && row >= share.row_begin && row < share.row_end;
    }
    return all > 0 ? static_cast<double>(mine) / static_cast<double>(all) : 0.0;
  }

  // Every rank's losses summed into `out`; a non-finite one on any rank ends the run (NonFiniteLoss, naming the
  // rank, the step and the micro-batch), a dead-but-finite one too (check_not_diverged); else a due checkpoint is
  // written, its time excluded from the step's.
  void agree_on_losses(const recipe::BatchPhase& ph, const std::optional<std::pair<int64_t, double>>& bad,
                       MicroBatches& out) {
    const double w0 = now_seconds();
    double status[2] = {out.loss_sum, bad ? 1.0 : 0.0};
    comm.all_reduce(status, 2);
    out.waited += now_seconds() - w0;
    if (status[1] > 0.0) {
      double who = bad ? comm.rank() : comm.size();
      comm.all_reduce(&who, 1, dist::ReduceOp::min);
      tape.clear();
      pending_position.reset();  // these weights' loss is not finite: their checkpoint is never written
      const std::string where = comm.size() > 1 ? " on rank " + std::to_string(static_cast<int>(who)) : "";
      emit({{"event", "nonfinite_loss"}, {"step", step}, {"loss", bad ? std::to_string(bad->second) : "nan"}});
      throw NonFiniteLoss("training loss is " + (bad ? std::to_string(bad->second) : std::string("not finite")) +
                          where + " at step " + std::to_string(step) +
                          (bad ? " (micro-batch " + std::to_string(bad->first) + ")" : std::string()) +
                          "; the run stopped before the optimiser step; last good checkpoint: " + kept_checkpoint());
    }
    out.loss_sum = status[0];
    check_not_diverged(out.loss_sum / static_cast<double>(ph.accum));
    if (pending_position) {
      const double c0 = now_seconds();
      save_pending();
      out.excluded += now_seconds() - c0;
    }
  }

  // One optimiser step: schedule, micro-batches, clipping, Muon + AdamW, the owners' new values to every rank, EMA;
  // then the step's time agreed (the slowest rank's) and charged by rank 0's clock.
  StepOutcome train_step(Loop& l) {
    StepOutcome o;
    o.next = recipe::next_step(recipe, position());
    const recipe::BatchPhase& ph = recipe.batch.phases[o.next.phase];
    o.lr_multiplier = lr_multiplier(recipe.schedule, step, o.next.progress) * ph.lr_scale;
    optim.schedule(step, o.lr_multiplier, o.next.progress);
    const bool measured = step >= opts.measure_from;
    OpProfile* profile = measured ? opts.profile : nullptr;
    tape.set_profile(profile);
    const double t0 = now_seconds();
    const MicroBatches mb = train_micro_batches(l, ph, o.next.mtp_weights, profile);
    const double o0 = now_seconds();
    o.grad_norm = optim.clip_gradients(recipe.optim.grad_clip);
    optim.step();
    if (profile)
      profile->add(recipe.optim.kind == OptimizerKind::muon ? "optimizer (Muon + AdamW)" : "optimizer (AdamW)",
                   now_seconds() - o0);
    tape.set_profile(nullptr);
    const double b0 = now_seconds();
    broadcast_parameters();
    const double broadcast = now_seconds() - b0;
    optim.zero_grad();
    step++;
    update_ema();
    o.loss = mb.loss_sum / static_cast<double>(ph.accum);
    account_step(o, now_seconds() - t0 - mb.excluded, mb.waited, broadcast, measured);
    return o;
  }

  // The step's time is the slowest rank's; rank 0's clock charges it and its decision reaches every rank, with a stop
  // request from any rank (a signal). This rank's own time splits into compute, exposed communication and waiting.
  void account_step(StepOutcome& o, double own_wall, double waited_inside, double broadcast, bool measured) {
    const double s0 = now_seconds();
    double sync[2] = {own_wall, opts.should_stop && opts.should_stop() ? 1.0 : 0.0};
    comm.all_reduce(sync, 2, dist::ReduceOp::max);
    const double waited = waited_inside + (now_seconds() - s0);
    o.stop_requested = sync[1] > 0.0;
    o.wall = sync[0];
    slowest_step = std::max(slowest_step, o.wall);
    comm.set_timeout(step_timeout());
    const dist::GradReducer::Timing rt = reducer.take_timing();
    const RankTiming step_timing{.compute = std::max(0.0, own_wall - rt.exposed_seconds - broadcast - waited_inside),
                                 .exposed = rt.exposed_seconds + broadcast,
                                 .waiting = waited};
    for (RankTiming* t : {&timing, &window_timing}) {
      if (t == &timing && !measured) continue;
      t->compute += step_timing.compute;
      t->exposed += step_timing.exposed;
      t->waiting += step_timing.waiting;
    }
    const recipe::StepInfo info = recipe::step_info(recipe, o.next, step - 1);
    o.charged = lead() ? clock.charge(info, o.wall) : 0.0;
    comm.broadcast(&o.charged, sizeof o.charged, 0);
    o.tokens = info.tokens;
    charged += o.charged;
    wall += o.wall;
    tokens += info.tokens;
  }

  // Every log_every steps (and the first): the step event in metrics.jsonl and the progress line, over the window
  // since the last one.
  void log_step(Loop& l, const StepOutcome& o, TrainResult& res) {
    l.window_wall += o.wall;
    l.window_charged += o.charged;
    l.window_tokens += o.tokens;
    l.window_steps += 1;
    if (step % recipe.train.log_every != 0 && step != 1) return;
    const double n_tokens = static_cast<double>(l.window_tokens), steps = static_cast<double>(l.window_steps);
    const double tps = n_tokens / std::max(l.window_charged, 1e-12);  // on the clock: the device's under --clock trn2
    const double host_tps = n_tokens / std::max(l.window_wall, 1e-12);
    const double ms = 1e3 * l.window_charged / steps, host_ms = 1e3 * l.window_wall / steps;
    const double flops = tps * flops_per_token;
    res.loss_curve.emplace_back(step, o.loss);
    nlohmann::json event = {{"event", "step"},
                            {"step", step},
                            {"loss", o.loss},
                            {"lr_multiplier", o.lr_multiplier},
                            {"phase", o.next.phase},
                            {"grad_norm", o.grad_norm},
                            {"charged_seconds", charged},
                            {"wall_seconds", wall},
                            {"tokens", tokens},
                            {"ms_per_step", ms},
                            {"tokens_per_second", tps},
                            {"gflops", flops * 1e-9},
                            {"host_ms_per_step", host_ms},
                            {"host_tokens_per_second", host_tps}};
    if (recipe.optim.kind == OptimizerKind::muon) {
      event["muon_momentum"] = optim.muon_momentum();
      event["weight_decay"] = optim.muon_weight_decay();
    }
    if (l.peak_flops > 0) event[l.device_time ? "mfu" : "fraction_of_peak"] = flops / l.peak_flops;
    if (comm.size() > 1) {  // per rank, per step over the window: where the host time went
      nlohmann::json ranks = nlohmann::json::array();
      for (const RankTiming& t : all_timings(window_timing))
        ranks.push_back({{"compute_ms", 1e3 * t.compute / steps},
                         {"exposed_communication_ms", 1e3 * t.exposed / steps},
                         {"waiting_ms", 1e3 * t.waiting / steps}});
      event["ranks"] = ranks;
    }
    window_timing = {};
    emit(event);
    say(progress_line(l, o, tps, host_tps, ms, host_ms, flops));
    l.window_wall = l.window_charged = 0.0;
    l.window_tokens = l.window_steps = 0;
  }

  std::string progress_line(const Loop& l, const StepOutcome& o, double tps, double host_tps, double ms, double host_ms,
                            double flops) const {
    std::string line = "step " + std::to_string(step) + " | " + clock_text(charged);
    if (budget > 0) {
      const double remaining = std::max(0.0, budget - charged) * (wall / std::max(charged, 1e-9));
      line += "/" + clock_text(budget) + " | eta " + clock_text(remaining);
    }
    line += " | loss " + format_number("%.4f", o.loss) + " | " + format_number("%.1f", ms) + " ms/step";
    if (l.device_time) {
      line += " " + clock.name() + " | " + format_number("%.0f", tps) + " tok/s | MFU " +
              format_number("%.1f%%", 100.0 * flops / l.peak_flops) + " | host " + format_number("%.0f", host_ms) +
              " ms/step, " + format_number("%.0f", host_tps) + " tok/s";
    } else {
      line += " | " + format_number("%.0f", tps) + " tok/s | " + format_number("%.1f", flops * 1e-9) + " GFLOP/s";
      if (l.peak_flops > 0) line += format_number(" (%.0f%% of peak)", 100.0 * flops / l.peak_flops);
    }
    return line + " | lr x" + format_number("%.3f", o.lr_multiplier);
  }

  // A checkpoint falling due (written once the next forward shows its loss finite) and a periodic evaluation.
  void after_step(Loop& l, TrainResult& res) {
    if (recipe.train.checkpoint_every > 0 && step % recipe.train.checkpoint_every == 0 && !checkpoint_path.empty())
      pending_position = data.train->state();
    if (l.next_eval <= 0.0 || charged < l.next_eval || !data.val) return;
    const BpbResult e = evaluate(l.val_start);
    emit({{"event", "eval"}, {"step", step}, {"charged_seconds", charged}, {"val_bpb", e.bpb}});
    say("eval at step " + std::to_string(step) + ": val_bpb " + format_number("%.4f", e.bpb));
    res.last_eval_step = step;
    res.last_eval_bpb = e.bpb;
    l.next_eval += recipe.eval.every_seconds;
  }

  // The final checkpoint, the result's counters, the final evaluation (not for a run stopped early) and the summary
  // event.
  void finish(const Loop& l, TrainResult& res) {
    save();
    res.steps = step;
    res.world = comm.size();
    res.ranks = all_timings(timing);
    res.optimizer_state_bytes = optim.state_bytes();
    res.optimizer_state_total = state_bytes_total;
    res.tokens = tokens;
    res.charged_seconds = charged;
    res.wall_seconds = wall;
    res.val_bpb = std::numeric_limits<double>::quiet_NaN();
    if (data.val && res.stop_reason != "stop_after_steps" && res.stop_reason != "interrupted") {
      const BpbResult e = evaluate(l.val_start);
      res.val_bpb = e.bpb;
      res.val_nats_per_token = e.nats_per_token;
      res.val_tokens = e.tokens;
    }
    nlohmann::json summary = res.to_json();
    summary.erase("loss_curve");
    summary["event"] = "summary";
    emit(summary);
  }
};

Trainer::Trainer(recipe::Recipe recipe, TrainerData data, recipe::Clock& clock, TrainerOptions options)
    // Refuse a run that cannot fit in memory before any tensor is allocated (memory_need.h).
    : s_((recipe::require_fits_host(recipe),
          std::make_unique<State>(std::move(recipe), std::move(data), clock, std::move(options)))) {}
Trainer::~Trainer() = default;
model::Gpt& Trainer::model() { return s_->gpt; }

std::string Trainer::header() const {
  const State& s = *s_;
  const model::GptConfig& c = s.gpt.config();
  const model::ParamCounts n = model::count_params(c);
  std::string h;
  h += "recipe " + s.recipe.name + ": " + model::describe_shape(c) + ", T " + std::to_string(s.recipe.batch.seq_len) +
       "\n";
  const std::string variants = model::describe_variants(c);
  if (!variants.empty()) h += "model: " + variants + "\n";
  for (const std::string& note : s.recipe.model_notes) h += "model: " + note + "\n";
  h += "params " + std::to_string(n.total()) + " total, " + std::to_string(n.scaling()) + " matmul; " +
       format_number("%.4g", s.flops_per_token) + " FLOPs/token; precision " +
       std::string(dtype_name(s.recipe.train.precision)) + "\n";
  const Bf16Support& bf16 = s.engine.gemm().bf16_support();
  h += "host: " + (s.opts.host_cpu.empty() ? std::string() : s.opts.host_cpu + ", ") +
       std::to_string(s.engine.num_threads()) + " threads; matmuls " +
       std::string(dtype_name(s.recipe.train.precision)) +
       (s.ctx.matmul_dtype == DType::bf16
            ? std::string(bf16.path == Bf16Path::kNative ? " (native: " : " (emulated: ") + bf16.reason + ")"
            : std::string()) +
       (s.opts.host_peak_basis.empty() ? "" : "; peak " + s.opts.host_peak_basis) + "\n";
  h += "data: " + s.data.description + "\n";
  for (const std::string& w : s.data.warnings) h += "warning: " + w + "\n";
  h += "budget: " + (s.budget > 0 ? clock_text(s.budget) + " charged" : std::string("no time limit")) +
       (s.recipe.train.steps > 0 ? ", at most " + std::to_string(s.recipe.train.steps) + " steps" : "") + "; clock " +
       s.clock.name() + ": " + s.clock.rule();
  const int world = s.comm.size();
  h += "\nworld: " + std::to_string(world) + (world == 1 ? " rank" : " ranks") + " (" +
       std::to_string(s.comm.ranks_on_host()) + " on this host), " + std::to_string(s.engine.num_threads()) +
       " threads per rank, " + s.comm.transport();
  if (world > 1) {
    const int64_t accum = s.recipe.batch.phases[0].accum, rows = s.recipe.batch.rows;
    h += "; " +
         (!s.my_share(accum).by_rows
              ? std::to_string(accum / world) + " of " + std::to_string(accum) + " micro-batches per rank"
              : "every micro-batch split by rows, " + std::to_string(rows / world) + " of " + std::to_string(rows) +
                    " rows per rank (" + std::to_string(accum) +
                    " micro-batches: the world size does not divide accum; the same training, "
                    "each rank's loss weighted by its share of the scored targets)") +
         "; gradients " +
         (s.recipe.train.deterministic ? std::string("summed in micro-batch order (train.deterministic)")
                                       : std::to_string(s.reducer.buckets()) +
                                             " fp32 buckets, overlapped with the "
                                             "backward") +
         "; optimiser state " + mib(s.optim.state_bytes()) + " on rank 0 of " + mib(s.state_bytes_total) + " (ZeRO-1)";
  }
  return h;
}

TrainResult Trainer::run() {
  State& s = *s_;
  s.open_outputs();
  s.start(header());
  State::Loop loop = s.begin_loop();
  TrainResult res;
  res.flops_per_token = s.flops_per_token;
  bool stop_requested = s.agree_on_stop();
  while (true) {
    res.stop_reason = s.stop_reason(stop_requested);
    if (!res.stop_reason.empty()) break;
    const State::StepOutcome step = s.train_step(loop);
    stop_requested = step.stop_requested;
    res.step_seconds.push_back(step.wall);
    res.last_loss = step.loss;
    s.log_step(loop, step, res);
    s.after_step(loop, res);
  }
  s.finish(loop, res);
  return res;
}

}  // namespace nanotrn::train
