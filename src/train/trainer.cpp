// The budgeted trainer. See trainer.h.
#include "train/trainer.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>

#include "autograd/tape.h"
#include "base/format.h"
#include "base/temp_files.h"
#include "eval/finite_weights.h"
#include "ops/ops.h"
#include "optim/schedule.h"
#include "train/checkpoint.h"
#include "train/evaluate.h"
#include "train/memory_need.h"
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

}  // namespace

nlohmann::json TrainResult::to_json() const {
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
          {"flops_per_token", flops_per_token},
          {"stop_reason", stop_reason},
          {"loss_curve", curve}};
}

struct Trainer::State {
  Recipe recipe;
  TrainerData data;
  Clock& clock;
  TrainerOptions opts;
  Engine engine;
  Tape tape;
  Ctx ctx;
  model::Gpt gpt;
  OptimizerSet optim;
  std::vector<Tensor> ema;
  double budget = 0.0;
  double flops_per_token = 0.0;
  // Progress counters (saved in checkpoints).
  int64_t step = 0, tokens = 0;
  double charged = 0.0, wall = 0.0;
  std::ofstream metrics;
  std::string metrics_path;
  std::string checkpoint_path;
  int64_t checkpoint_step = -1;
  // A checkpoint that is due but not yet written: the weights after step `step` are saved only once the next
  // forward pass has shown that their loss is finite (see save_pending()). Holds the data position at the due point.
  std::optional<nlohmann::json> pending_position;

  State(Recipe r, TrainerData d, Clock& c, TrainerOptions o)
      : recipe(std::move(r)),
        data(std::move(d)),
        clock(c),
        opts(std::move(o)),
        engine(EngineOptions{.num_threads = recipe.train.threads}),
        ctx{engine, &tape, recipe.train.precision == "bf16" ? DType::bf16 : DType::f32},
        gpt(ctx, model::resolve(recipe.model), recipe.seed),
        optim(engine.gemm(), gpt, recipe.optim, ctx.matmul_dtype) {
    budget = budget_seconds(recipe);
    flops_per_token = model::flops_per_token(gpt.config(), recipe.batch.seq_len);
    check(data.train != nullptr, "Trainer: a training token source is required");
    if (recipe.ema.decay > 0.0f) {
      for (const model::Parameter& p : gpt.parameters()) ema.push_back(p.value.clone());
    }
    if (!opts.out_dir.empty()) checkpoint_path = opts.out_dir + "/checkpoint.safetensors";
  }

  double progress() const {
    if (budget > 0.0) return charged / budget;
    return static_cast<double>(step) / static_cast<double>(recipe.train.steps);
  }

  size_t phase_at(double p) const {
    size_t k = 0;
    for (size_t i = 0; i < recipe.batch.phases.size(); i++) {
      if (recipe.batch.phases[i].from <= p) k = i;
    }
    return k;
  }

  std::vector<float> mtp_weights(double p) const {
    std::vector<float> w = recipe.train.mtp_weights;
    if (recipe.train.mtp_until > 0.0) {
      const float fade = static_cast<float>(std::max(0.0, 1.0 - p / recipe.train.mtp_until));
      for (size_t j = 1; j < w.size(); j++) w[j] *= fade;
    }
    return w;
  }

  void emit(const nlohmann::json& j) {
    if (!metrics.is_open()) return;
    metrics << j.dump() << "\n" << std::flush;
    if (!metrics.good()) throw Error("cannot write " + metrics_path + " (" + std::strerror(errno) + ")");
  }
  void say(const std::string& line) const {
    if (opts.print) opts.print(line);
  }

  nlohmann::json progress_json(const nlohmann::json& train_position) const {
    return {{"step", step},
            {"tokens", tokens},
            {"charged_seconds", charged},
            {"wall_seconds", wall},
            {"train_position", train_position}};
  }

  std::string kept_checkpoint() const {
    return checkpoint_step >= 0 ? checkpoint_path + " (step " + std::to_string(checkpoint_step) + ") is intact"
                                : std::string("no checkpoint was written");
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
    remove_stale_temporaries(opts.out_dir);
    save_checkpoint(checkpoint_path, recipe, gpt, optim.state(), optim.counters(), ema, progress_json(train_position));
    checkpoint_step = step;
  }
  void save() { save(data.train->state()); }
  // Called once the loss of the current weights is known to be finite: writes a due checkpoint.
  void save_pending() {
    if (pending_position) save(*pending_position);
  }

  void resume(const std::string& path) {
    const Checkpoint c = load_checkpoint(path);
    check(recipe_to_json(c.recipe)["model"] == recipe_to_json(recipe)["model"],
          path + ": the checkpoint's model differs from the recipe's (resume with the same model settings)");
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
      wall = p.at("wall_seconds").get<double>();
      check(step >= 0 && tokens >= 0 && std::isfinite(charged) && std::isfinite(wall),
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
    const BpbResult r = evaluate_bpb(ctx, gpt, *data.val, data.token_bytes, shape);
    for (size_t i = 0; i < live.size(); i++) gpt.parameters()[i].value.copy_from(live[i]);
    return r;
  }
};

Trainer::Trainer(Recipe recipe, TrainerData data, Clock& clock, TrainerOptions options)
    // Refuse a run that cannot fit in memory before any tensor is allocated (memory_need.h).
    : s_((require_fits_host(recipe),
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
  h += "params " + std::to_string(n.total()) + " total, " + std::to_string(n.scaling()) + " matmul; " +
       format_number("%.4g", s.flops_per_token) + " FLOPs/token; precision " + s.recipe.train.precision + "\n";
  const Bf16Support& bf16 = s.engine.gemm().bf16_support();
  h += "host: " + std::to_string(s.engine.num_threads()) + " threads; matmuls " + s.recipe.train.precision +
       (s.ctx.matmul_dtype == DType::bf16
            ? std::string(bf16.path == Bf16Path::kNative ? " (native: " : " (emulated: ") + bf16.reason + ")"
            : std::string()) +
       (s.opts.host_peak_basis.empty() ? "" : "; peak " + s.opts.host_peak_basis) + "\n";
  h += "data: " + s.data.description + "\n";
  h += "budget: " + (s.budget > 0 ? clock_text(s.budget) + " charged" : std::string("no time limit")) +
       (s.recipe.train.steps > 0 ? ", at most " + std::to_string(s.recipe.train.steps) + " steps" : "") + "; clock " +
       s.clock.name() + ": " + s.clock.rule();
  return h;
}

TrainResult Trainer::run() {
  State& s = *s_;
  const Recipe& r = s.recipe;
  if (!s.opts.out_dir.empty()) {
    for (const std::string& stale : remove_stale_temporaries(s.opts.out_dir))
      s.say("removed " + stale + " (left by a run that was killed)");
    s.metrics_path = s.opts.out_dir + "/metrics.jsonl";
    s.metrics.open(s.metrics_path, std::ios::app);
    check(s.metrics.good(), "cannot open " + s.metrics_path + " for writing");
  }
  if (!s.opts.resume.empty()) s.resume(s.opts.resume);
  s.say(header());
  s.emit({{"event", "start"}, {"recipe", recipe_to_json(r)}, {"step", s.step}});
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
  while (true) {
    if (s.budget > 0.0 && s.charged >= s.budget) {
      res.stop_reason = "budget";
      break;
    }
    if (r.train.steps > 0 && s.step >= r.train.steps) {
      res.stop_reason = "steps";
      break;
    }
    if (s.opts.stop_after_steps > 0 && s.step >= s.opts.stop_after_steps) {
      res.stop_reason = "stop_after_steps";
      break;
    }
    if (s.opts.should_stop && s.opts.should_stop()) {
      res.stop_reason = "interrupted";
      break;
    }
    const double p = s.progress();
    const size_t phase = s.phase_at(p);
    const BatchPhase& ph = r.batch.phases[phase];
    const double lrm = lr_multiplier(r.schedule, s.step, p) * ph.lr_scale;
    s.optim.schedule(s.step, lrm, p);
    const std::vector<float> mtp = s.mtp_weights(p);
    double t0 = now_seconds();
    double loss_sum = 0.0;
    for (int64_t a = 0; a < ph.accum; a++) {
      s.data.train->next(B, T, in.data(), tg.data());
      if (r.data.mask_bos_targets && s.data.bos >= 0) {
        for (int32_t& t : tg) t = t == s.data.bos ? -1 : t;
      }
      const Tensor ids = Tensor::from_ints({B, T}, in, s.engine.allocator());
      const Tensor targets = Tensor::from_ints({B, T}, tg, s.engine.allocator());
      const Tensor loss = s.gpt.loss(s.ctx, ids, targets, mtp);
      const double lv = loss.item();
      if (!std::isfinite(lv)) {
        s.tape.clear();
        s.pending_position.reset();  // these weights' loss is not finite: their checkpoint is never written
        s.emit({{"event", "nonfinite_loss"}, {"step", s.step}, {"loss", std::to_string(lv)}});
        throw NonFiniteLoss(
            "training loss is " + std::to_string(lv) + " at step " + std::to_string(s.step) + " (micro-batch " +
            std::to_string(a) +
            "); the run stopped before the optimiser step; last good checkpoint: " + s.kept_checkpoint());
      }
      if (s.pending_position) {  // the weights' loss is finite: write their checkpoint, outside the charged time
        const double w0 = now_seconds();
        s.save_pending();
        t0 += now_seconds() - w0;
      }
      loss_sum += lv;
      s.tape.backward(ph.accum > 1 ? ops::scale(s.ctx, loss, 1.0f / static_cast<float>(ph.accum)) : loss);
    }
    const double grad_norm = s.optim.clip_gradients(r.optim.grad_clip);
    s.optim.step();
    s.optim.zero_grad();
    s.step++;
    s.update_ema();
    const double wall = now_seconds() - t0;
    const StepInfo info{.step = s.step - 1,
                        .phase = static_cast<int64_t>(phase),
                        .accum = ph.accum,
                        .rows = B,
                        .seq_len = T,
                        .tokens = ph.accum * per_micro};
    const double charged = s.clock.charge(info, wall);
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
      next_eval += r.eval.every_seconds;
    }
  }
  s.save();
  res.steps = s.step;
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
