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
        ctx{engine, &tape, recipe.train.precision == "bf16" ? DType::bf16 : DType::f32},
        gpt(ctx, model::resolve(recipe.model), recipe.seed),
        owners(dist::assign_owners(parameter_sizes(gpt), comm.size())),
        optim(engine.gemm(), gpt, recipe.optim, ctx.matmul_dtype, owned_by(owners, comm.rank()),
              recipe.train.deterministic),
        reducer(comm, parameter_tensors(gpt),
                {.bucket_bytes = opts.bucket_bytes, .deterministic = recipe.train.deterministic}) {
    const int world = comm.size();
    for (size_t i = 0; i < recipe.batch.phases.size(); i++) {
      const int64_t accum = recipe.batch.phases[i].accum;
      check(accum % world == 0,
            "train: " + std::to_string(world) + " ranks cannot share batch phase " + std::to_string(i) + "'s " +
                std::to_string(accum) + " micro-batch(es) of " + std::to_string(recipe.batch.rows) +
                " rows: ranks split a step by whole micro-batches, so every phase's accum must be a multiple of the "
                "world size (e.g. halve batch.rows and double every accum: the same rows per step)");
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

  // The micro-batches of a step with `accum` of them that this rank trains: [first, last).
  std::pair<int64_t, int64_t> my_micro_batches(int64_t accum) const {
    const int64_t per = accum / comm.size();
    return {per * comm.rank(), per * (comm.rank() + 1)};
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
  h += "recipe " + s.recipe.name + ": depth " + std::to_string(c.depth) + ", width " + std::to_string(c.model_dim) +
       ", " + std::to_string(c.n_head) + " heads of " + std::to_string(c.head_dim) + " (" +
       std::to_string(c.n_kv_head) + " kv), vocab " + std::to_string(c.vocab_size) + ", T " +
       std::to_string(s.recipe.batch.seq_len) + "\n";
  const std::string variants = model::describe_variants(c);
  if (!variants.empty()) h += "model: " + variants + "\n";
  for (const std::string& note : s.recipe.model_notes) h += "model: " + note + "\n";
  h += "params " + std::to_string(n.total()) + " total, " + std::to_string(n.scaling()) + " matmul; " +
       format_number("%.4g", s.flops_per_token) + " FLOPs/token; precision " + s.recipe.train.precision + "\n";
  const Bf16Support& bf16 = s.engine.gemm().bf16_support();
  h += "host: " + std::to_string(s.engine.num_threads()) + " threads; matmuls " + s.recipe.train.precision +
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
    const int64_t accum = s.recipe.batch.phases[0].accum;
    h += "; " + std::to_string(accum / world) + " of " + std::to_string(accum) + " micro-batches per rank; gradients " +
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
  const recipe::Recipe& r = s.recipe;
  if (!s.opts.out_dir.empty() && s.lead()) {  // rank 0 alone writes files
    for (const std::string& stale : remove_stale_temporaries(s.opts.out_dir))
      s.say("removed " + stale + " (left by a run that was killed)");
    s.metrics_path = s.opts.out_dir + "/metrics.jsonl";
    check_regular_or_absent(s.metrics_path);  // a FIFO here would block the run, deaf even to SIGTERM
    s.metrics.open(s.metrics_path, std::ios::app);
    check(s.metrics.good(), "cannot open " + s.metrics_path + " for writing");
    if (s.opts.tensorboard) s.events = std::make_unique<io::TfEventsWriter>(s.opts.out_dir);
  }
  if (!s.opts.resume.empty()) s.resume(s.opts.resume);
  // A fresh run pays its startup charge before the first step (the modelled device's compile time, recipe-spec §12;
  // 0 for host clocks), as the predictor's budget walk does (recipe/budget.h).
  if (s.opts.resume.empty()) s.startup = s.charged = s.clock.startup_charge();
  s.say(header());
  s.emit({{"event", "start"}, {"recipe", recipe::recipe_to_json(r)}, {"step", s.step}});
  const nlohmann::json val_start = s.data.val ? s.data.val->state() : nlohmann::json();
  TrainResult res;
  res.flops_per_token = s.flops_per_token;
  double next_eval = r.eval.every_seconds > 0 ? s.charged + r.eval.every_seconds : 0.0;
  const int64_t T = r.batch.seq_len, B = r.batch.rows, per_micro = B * T;
  std::vector<int32_t> in(static_cast<size_t>(per_micro)), tg(in.size());
  // Progress over the steps since the last line: charged time is the clock's (the device's under a device clock),
  // wall time the host's. The FLOP rate is judged against the clock's peak, else the host's measured one.
  double window_wall = 0.0, window_charged = 0.0;
  int64_t window_tokens = 0, window_steps = 0;
  const double peak_flops = s.clock.peak_flops() > 0.0 ? s.clock.peak_flops() : s.opts.host_peak_gflops * 1e9;
  const bool device_time = s.clock.peak_flops() > 0.0;
  // A stop request (a signal) on any rank, agreed by all: before the first step, then at the end of each step.
  bool stop_requested = false;
  {
    double stop = s.opts.should_stop && s.opts.should_stop() ? 1.0 : 0.0;
    s.comm.all_reduce(&stop, 1, dist::ReduceOp::max);
    stop_requested = stop > 0.0;
  }
  while (true) {
    if (const recipe::BudgetStop b = recipe::budget_stop(r, s.position()); b != recipe::BudgetStop::none) {
      res.stop_reason = b == recipe::BudgetStop::budget ? "budget" : "steps";
      break;
    }
    if (s.opts.stop_after_steps > 0 && s.step >= s.opts.stop_after_steps) {
      res.stop_reason = "stop_after_steps";
      break;
    }
    if (stop_requested) {
      res.stop_reason = "interrupted";
      break;
    }
    const recipe::NextStep next = recipe::next_step(r, s.position());
    const double p = next.progress;
    const size_t phase = next.phase;
    const recipe::BatchPhase& ph = r.batch.phases[phase];
    const double lrm = lr_multiplier(r.schedule, s.step, p) * ph.lr_scale;
    s.optim.schedule(s.step, lrm, p);
    const std::vector<float>& mtp = next.mtp_weights;
    const bool measured = s.step >= s.opts.measure_from;
    OpProfile* profile = measured ? s.opts.profile : nullptr;
    s.tape.set_profile(profile);
    double t0 = now_seconds();
    double loss_sum = 0.0, wait = 0.0;
    const auto [first, last] = s.my_micro_batches(ph.accum);
    std::optional<std::pair<int64_t, double>> bad;  // this rank's first non-finite loss: (micro-batch, loss)
    s.comm.set_activity("step " + std::to_string(s.step + 1));
    for (int64_t a = 0; a < ph.accum; a++) {
      // Every rank reads every micro-batch (the data position is the same on all ranks) and trains its own.
      s.data.train->next(B, T, in.data(), tg.data());
      if (a < first || a >= last) continue;
      const bool final = a == last - 1;
      Tensor loss;
      if (!bad) {
        if (r.data.mask_bos_targets && s.data.bos >= 0) {
          for (int32_t& t : tg) t = t == s.data.bos ? -1 : t;
        }
        const Tensor ids = Tensor::from_ints({B, T}, in, s.engine.allocator());
        const Tensor targets = Tensor::from_ints({B, T}, tg, s.engine.allocator());
        if (profile) profile->start_forward();
        loss = s.gpt.loss(s.ctx, ids, targets, mtp);
        const double lv = loss.item();
        if (std::isfinite(lv)) {
          loss_sum += lv;
        } else {
          bad = {a, lv};
          s.tape.clear();
        }
      }
      if (final) {
        // Before the last backward: every rank's losses, so a non-finite one anywhere stops every rank here.
        const double w0 = now_seconds();
        double status[2] = {loss_sum, bad ? 1.0 : 0.0};
        s.comm.all_reduce(status, 2);
        wait += now_seconds() - w0;
        if (status[1] > 0.0) {
          double who = bad ? s.comm.rank() : s.comm.size();
          s.comm.all_reduce(&who, 1, dist::ReduceOp::min);
          s.tape.clear();
          s.pending_position.reset();  // these weights' loss is not finite: their checkpoint is never written
          const std::string where = s.comm.size() > 1 ? " on rank " + std::to_string(static_cast<int>(who)) : "";
          s.emit({{"event", "nonfinite_loss"}, {"step", s.step}, {"loss", bad ? std::to_string(bad->second) : "nan"}});
          throw NonFiniteLoss(
              "training loss is " + (bad ? std::to_string(bad->second) : std::string("not finite")) + where +
              " at step " + std::to_string(s.step) +
              (bad ? " (micro-batch " + std::to_string(bad->first) + ")" : std::string()) +
              "; the run stopped before the optimiser step; last good checkpoint: " + s.kept_checkpoint());
        }
        loss_sum = status[0];
        s.check_not_diverged(loss_sum / static_cast<double>(ph.accum));
        if (s.pending_position) {  // the weights' loss is finite: write their checkpoint, outside the charged time
          const double c0 = now_seconds();
          s.save_pending();
          t0 += now_seconds() - c0;
        }
      }
      if (bad) continue;  // nothing to differentiate; the next synchronisation stops every rank
      s.tape.backward(ph.accum > 1 ? ops::scale(s.ctx, loss, 1.0f / static_cast<float>(ph.accum)) : loss, Tensor(),
                      false, s.reducer.backward_hook(final));
      s.reducer.after_backward(final);
    }
    s.reducer.finish();
    const double o0 = now_seconds();
    const double grad_norm = s.optim.clip_gradients(r.optim.grad_clip);
    s.optim.step();
    if (profile) profile->add("optimizer (Muon + AdamW)", now_seconds() - o0);
    s.tape.set_profile(nullptr);
    const double b0 = now_seconds();
    s.broadcast_parameters();
    const double broadcast = now_seconds() - b0;
    s.optim.zero_grad();
    s.step++;
    s.update_ema();
    // The step's time is the slowest rank's; rank 0's clock charges it and its decision reaches every rank, with a
    // stop request from any rank (a signal).
    const double own_wall = now_seconds() - t0;
    const double wait_inside = wait;  // the part of own_wall spent waiting (the loss synchronisation)
    const double s0 = now_seconds();
    double sync[2] = {own_wall, s.opts.should_stop && s.opts.should_stop() ? 1.0 : 0.0};
    s.comm.all_reduce(sync, 2, dist::ReduceOp::max);
    wait += now_seconds() - s0;
    stop_requested = sync[1] > 0.0;
    const double wall = sync[0];
    s.slowest_step = std::max(s.slowest_step, wall);
    s.comm.set_timeout(s.step_timeout());
    const dist::GradReducer::Timing rt = s.reducer.take_timing();
    const RankTiming step_timing{.compute = std::max(0.0, own_wall - rt.exposed_seconds - broadcast - wait_inside),
                                 .exposed = rt.exposed_seconds + broadcast,
                                 .waiting = wait};
    res.step_seconds.push_back(wall);
    for (RankTiming* t : {&s.timing, &s.window_timing}) {
      if (t == &s.timing && !measured) continue;
      t->compute += step_timing.compute;
      t->exposed += step_timing.exposed;
      t->waiting += step_timing.waiting;
    }
    const recipe::StepInfo info = recipe::step_info(r, next, s.step - 1);
    double charged = s.lead() ? s.clock.charge(info, wall) : 0.0;
    s.comm.broadcast(&charged, sizeof charged, 0);
    s.charged += charged;
    s.wall += wall;
    s.tokens += info.tokens;
    window_wall += wall;
    window_charged += charged;
    window_tokens += info.tokens;
    window_steps += 1;
    res.last_loss = loss_sum / static_cast<double>(ph.accum);
    if (s.step % r.train.log_every == 0 || s.step == 1) {
      const double tokens = static_cast<double>(window_tokens), steps = static_cast<double>(window_steps);
      const double tps = tokens / std::max(window_charged, 1e-12);  // on the clock: the device's under --clock trn2
      const double host_tps = tokens / std::max(window_wall, 1e-12);
      const double ms = 1e3 * window_charged / steps, host_ms = 1e3 * window_wall / steps;
      const double flops = tps * s.flops_per_token;
      res.loss_curve.emplace_back(s.step, res.last_loss);
      nlohmann::json event = {{"event", "step"},
                              {"step", s.step},
                              {"loss", res.last_loss},
                              {"lr_multiplier", lrm},
                              {"muon_momentum", s.optim.muon_momentum()},
                              {"weight_decay", s.optim.muon_weight_decay()},
                              {"phase", phase},
                              {"grad_norm", grad_norm},
                              {"charged_seconds", s.charged},
                              {"wall_seconds", s.wall},
                              {"tokens", s.tokens},
                              {"ms_per_step", ms},
                              {"tokens_per_second", tps},
                              {"gflops", flops * 1e-9},
                              {"host_ms_per_step", host_ms},
                              {"host_tokens_per_second", host_tps}};
      if (peak_flops > 0) event[device_time ? "mfu" : "fraction_of_peak"] = flops / peak_flops;
      if (s.comm.size() > 1) {  // per rank, per step over the window: where the host time went
        nlohmann::json ranks = nlohmann::json::array();
        for (const RankTiming& t : s.all_timings(s.window_timing))
          ranks.push_back({{"compute_ms", 1e3 * t.compute / steps},
                           {"exposed_communication_ms", 1e3 * t.exposed / steps},
                           {"waiting_ms", 1e3 * t.waiting / steps}});
        event["ranks"] = ranks;
      }
      s.window_timing = {};
      s.emit(event);
      std::string line = "step " + std::to_string(s.step) + " | " + clock_text(s.charged);
      if (s.budget > 0) {
        const double remaining = std::max(0.0, s.budget - s.charged) * (s.wall / std::max(s.charged, 1e-9));
        line += "/" + clock_text(s.budget) + " | eta " + clock_text(remaining);
      }
      line += " | loss " + format_number("%.4f", res.last_loss) + " | " + format_number("%.1f", ms) + " ms/step";
      if (device_time) {
        line += " " + s.clock.name() + " | " + format_number("%.0f", tps) + " tok/s | MFU " +
                format_number("%.1f%%", 100.0 * flops / peak_flops) + " | host " + format_number("%.0f", host_ms) +
                " ms/step, " + format_number("%.0f", host_tps) + " tok/s";
      } else {
        line += " | " + format_number("%.0f", tps) + " tok/s | " + format_number("%.1f", flops * 1e-9) + " GFLOP/s";
        if (peak_flops > 0) line += format_number(" (%.0f%% of peak)", 100.0 * flops / peak_flops);
      }
      line += " | lr x" + format_number("%.3f", lrm);
      s.say(line);
      window_wall = window_charged = 0.0;
      window_tokens = window_steps = 0;
    }
    if (r.train.checkpoint_every > 0 && s.step % r.train.checkpoint_every == 0 && !s.checkpoint_path.empty()) {
      s.pending_position = s.data.train->state();
    }
    if (next_eval > 0.0 && s.charged >= next_eval && s.data.val) {
      const BpbResult e = s.evaluate(val_start);
      s.emit({{"event", "eval"}, {"step", s.step}, {"charged_seconds", s.charged}, {"val_bpb", e.bpb}});
      s.say("eval at step " + std::to_string(s.step) + ": val_bpb " + format_number("%.4f", e.bpb));
      res.last_eval_step = s.step;
      res.last_eval_bpb = e.bpb;
      next_eval += r.eval.every_seconds;
    }
  }
  s.save();
  res.steps = s.step;
  res.world = s.comm.size();
  res.ranks = s.all_timings(s.timing);
  res.optimizer_state_bytes = s.optim.state_bytes();
  res.optimizer_state_total = s.state_bytes_total;
  res.tokens = s.tokens;
  res.charged_seconds = s.charged;
  res.wall_seconds = s.wall;
  res.val_bpb = std::numeric_limits<double>::quiet_NaN();
  if (s.data.val && res.stop_reason != "stop_after_steps" && res.stop_reason != "interrupted") {
    const BpbResult e = s.evaluate(val_start);
    res.val_bpb = e.bpb;
    res.val_nats_per_token = e.nats_per_token;
    res.val_tokens = e.tokens;
  }
  nlohmann::json summary = res.to_json();
  summary.erase("loss_curve");
  summary["event"] = "summary";
  s.emit(summary);
  return res;
}

}  // namespace nanotrn::train
