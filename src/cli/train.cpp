// `nanotrn train`: a recipe trained until its charged-time budget runs out, then val_bpb (train/trainer.h).
// `nanotrn bench train`: N training steps on random tokens, timed (benchmarks, docs/PERFORMANCE.md).
// This file parses flags and prints; the work is in the library.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <omp.h>

#include "base/format.h"
#include "base/stop_signal.h"
#include "cli/commands.h"
#include "cli/mpi_job.h"
#include "cli/recipe_args.h"
#include "dist/mpi_communicator.h"
#include "gemm/probe.h"
#include "pipeline/train_run.h"
#include "recipe/recipe_paths.h"
#include "train/checkpoint.h"
#include "train/data_setup.h"
#include "train/trainer.h"

namespace nanotrn::cli {

namespace {

struct TrainArgs {
  RecipeArgs recipe;
  std::string budget, clock = "wall", out, resume;
  bool json = false, quiet = false, overwrite = false, tensorboard = false;
  double comm_timeout = 20.0, bucket_mb = 4.0;
  int64_t stop_after = 0;
};

// A stop signal that arrived after the last step (during the final evaluation) is not swallowed: the run's results
// are saved and shown, and the exit status still says the process was asked to stop.
void exit_if_stopped_late() {
  if (stop_signal() == 0) return;
  std::cerr << "nanotrn: " << signal_name(stop_signal())
            << " received during the final evaluation; the run finished and its results are saved\n";
  std::cout.flush();
  throw StopExit{128 + stop_signal()};
}

// "a.b.c=v" -> the JSON pointer /a/b/c.
nlohmann::json::json_pointer pointer_of(const std::string& assignment) {
  std::string p = "/" + recipe::override_key(assignment);
  for (char& ch : p) ch = ch == '.' ? '/' : ch;
  return nlohmann::json::json_pointer(p);
}

// With --resume and no --recipe, the recipe is the checkpoint's own with --set (and --budget) on top, each change
// shown as "key: before -> after"; with --recipe, that recipe (the trainer refuses one that means another training).
recipe::Recipe resumed_recipe(const TrainArgs& args, const Home& home, const std::vector<std::string>& sets,
                              bool lead) {
  const nlohmann::json stored = recipe::recipe_to_json(train::load_checkpoint(args.resume).recipe);
  nlohmann::json j = stored;
  for (const std::string& s : sets) recipe::apply_override(j, s, j);
  recipe::Recipe r = recipe::recipe_from_json(j);
  recipe::resolve_data_paths(r, home);
  if (lead && !args.quiet) {
    std::cerr << "resume: the recipe stored in " << args.resume << " (" << r.name << ")"
              << (sets.empty() ? "" : ", with:") << "\n";
    for (const std::string& s : sets) {
      const auto p = pointer_of(s);
      std::cerr << "  " << recipe::override_key(s) << ": " << (stored.contains(p) ? stored[p].dump() : "absent")
                << " -> " << (j.contains(p) ? j[p].dump() : "absent") << "\n";
    }
  }
  return r;
}

void run_train(const TrainArgs& args, const Home& home, dist::Communicator& comm) {
  const bool lead = comm.rank() == 0;
  std::vector<std::string> extra;
  if (!args.budget.empty()) extra.push_back("train.budget=" + args.budget);
  std::vector<std::string> sets = args.recipe.sets;
  sets.insert(sets.end(), extra.begin(), extra.end());
  const recipe::Recipe recipe = !args.resume.empty() && !args.recipe.recipe_given
                                    ? resumed_recipe(args, home, sets, lead)
                                    : open_recipe(args.recipe, home, extra);
  pipeline::TrainRunOptions o{.out = args.out,
                              .resume = args.resume,
                              .overwrite = args.overwrite,
                              .tensorboard = args.tensorboard,
                              .clock = args.clock,
                              .stop_after = args.stop_after,
                              .comm_timeout = args.comm_timeout,
                              .bucket_mb = args.bucket_mb,
                              .setup_hint = setup_command(args.recipe.recipe, args.recipe.sets)};
  if (!args.quiet) o.print = [](const std::string& line) { std::cerr << line << "\n"; };
  o.should_stop = [] { return stop_signal() != 0; };
  const pipeline::TrainRunOutcome out = pipeline::train_run(recipe, o, comm);
  const train::TrainResult& r = out.result;
  if (r.stop_reason == "interrupted") {
    const std::string ckpt = args.out + "/checkpoint.safetensors";
    if (lead) {
      std::cerr << "nanotrn: " << signal_name(stop_signal()) << ": stopped after step " << r.steps
                << "; checkpoint saved to " << ckpt << " (continue with --resume " << ckpt << ")\n";
    }
    std::cout.flush();
    throw StopExit{128 + (stop_signal() != 0 ? stop_signal() : 15)};
  }
  if (!lead) return;
  if (args.json) {
    std::cout << r.to_json().dump(2) << "\n";
    exit_if_stopped_late();
    return;
  }
  std::cout << "done: " << r.steps << " steps, " << r.tokens << " tokens, charged "
            << format_number("%.1f", r.charged_seconds) << " s (" << out.clock_name << " clock), host wall "
            << format_number("%.1f", r.wall_seconds) << " s, stop: " << r.stop_reason << "\n";
  if (r.val_tokens > 0) {
    std::cout << "val_bpb " << format_number("%.4f", r.val_bpb) << " (" << r.val_tokens << " tokens, "
              << format_number("%.4f", r.val_nats_per_token) << " nats/token); last train loss "
              << format_number("%.4f", r.last_loss) << "\n";
  } else {
    // No final evaluation (stopped by --stop-after before the end, or no validation data): say so, with the last
    // evaluation made during the run, instead of "val_bpb nan (0 tokens)".
    std::cout << "val_bpb not evaluated ("
              << (r.stop_reason == "stop_after_steps" ? "stopped by --stop-after at step " + std::to_string(r.steps) +
                                                            "; the final evaluation comes when the run ends"
                                                      : std::string("no validation data"))
              << ")"
              << (r.last_eval_step >= 0 ? "; last evaluation: val_bpb " + format_number("%.4f", r.last_eval_bpb) +
                                              " at step " + std::to_string(r.last_eval_step)
                                        : std::string())
              << "; last train loss " << format_number("%.4f", r.last_loss) << "\n";
  }
  std::cout << "checkpoint " << args.out << "/checkpoint.safetensors, metrics " << args.out << "/metrics.jsonl"
            << (out.result_json.is_null() ? "" : ", result " + args.out + "/result.json") << "\n";
  exit_if_stopped_late();
}

}  // namespace

void add_train(CLI::App& app, const Home& home) {
  auto args = std::make_shared<TrainArgs>();
  args->out = home.path("out/run");
  auto* cmd = app.add_subcommand("train", "Train a recipe until its charged-time budget runs out, then score val_bpb");
  add_recipe_flags(cmd, args->recipe, home);
  add_model_config_flag(cmd, args->recipe);
  cmd->add_option("--budget", args->budget, "Charged-time budget, e.g. 30m (overrides train.budget)");
  cmd->add_option("--clock", args->clock,
                  "What a step is charged: wall, fixed:<s per micro-batch>, or a device (trn1, trn2, trn3, h100, ...; "
                  "see nanotrn devices)")
      ->capture_default_str();
  cmd->add_option("--out", args->out, "Run folder: metrics.jsonl and checkpoint.safetensors")->capture_default_str();
  cmd->add_option("--resume", args->resume,
                  "Continue from this checkpoint (appending to --out's metrics.jsonl), with the recipe stored in it "
                  "unless --recipe is given; --set overrides go on top and are shown");
  cmd->add_flag("--tensorboard", args->tensorboard,
                "Also write TensorBoard event files (events.out.tfevents.*) into --out: every numeric field of "
                "metrics.jsonl as the scalar <event>/<field> (tensorboard --logdir, or W&B's TensorBoard sync)");
  cmd->add_flag("--overwrite", args->overwrite,
                "Replace the run in --out (its checkpoint and metrics.jsonl); without it or --resume, a folder that "
                "holds a run is refused");
  cmd->add_flag("--json", args->json, "Print the final summary as JSON on stdout");
  cmd->add_flag("--quiet", args->quiet, "No progress lines");
  cmd->add_option("--stop-after", args->stop_after,
                  "End this invocation (with a checkpoint, no final evaluation) once the run has this many steps; the "
                  "recipe, and so its schedule, is unchanged: --resume continues it")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--comm-timeout", args->comm_timeout,
                  "Under mpirun: seconds a rank may wait for the others before it ends the job (a rank died or hangs)")
      ->capture_default_str();
  cmd->add_option("--bucket-mb", args->bucket_mb, "Under mpirun: size of one gradient all-reduce bucket, MiB")
      ->capture_default_str();
  cmd->callback([args, home] {
    // The first SIGINT/SIGTERM/SIGHUP ends the run after its current step, with a checkpoint; a second ends it now.
    // Installed before any worker thread exists (MPI's included), so that every thread inherits the blocked mask
    // (stop_signal.h).
    install_stop_signals();
    run_on_ranks([&](dist::Communicator& comm) { run_train(*args, home, comm); });
  });
}

namespace {

struct BenchArgs {
  RecipeArgs recipe;
  int64_t steps = 10, warmup = 2;
  bool json = false, profile = false;
};

// The trainer's own step (forward, backward, gradient reduction, clipping, Muon + AdamW) on random tokens, for
// warmup + steps steps (the first `warmup` not measured); no evaluation, no files.
train::TrainResult run_bench_steps(const recipe::Recipe& r, const BenchArgs& args, dist::Communicator& comm,
                                   OpProfile& prof) {
  pipeline::share_host_cores(r, comm);
  train::TrainerData data;
  data.train = train::make_random_source(static_cast<int32_t>(r.model.vocab_size), r.seed);
  data.description = "random tokens";
  train::TrainerOptions o;
  o.comm = &comm;
  o.measure_from = args.warmup;
  if (args.profile) o.profile = &prof;
  recipe::WallClock clock;
  train::Trainer trainer(r, std::move(data), clock, o);
  return trainer.run();
}

// The measured steps' times in ms, sorted.
std::vector<double> measured_ms_sorted(const train::TrainResult& result, int64_t warmup) {
  std::vector<double> v;
  for (size_t i = static_cast<size_t>(warmup); i < result.step_seconds.size(); i++)
    v.push_back(1e3 * result.step_seconds[i]);
  std::sort(v.begin(), v.end());
  return v;
}

// Per rank, per measured step: compute, exposed communication, waiting.
nlohmann::json rank_timings_json(const train::TrainResult& result, int64_t steps) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const train::RankTiming& t : result.ranks) {
    const double per = 1e3 / static_cast<double>(steps), total = t.compute + t.exposed + t.waiting;
    ranks.push_back({{"compute_ms", per * t.compute},
                     {"exposed_communication_ms", per * t.exposed},
                     {"waiting_ms", per * t.waiting},
                     {"exposed_share", t.exposed / std::max(total, 1e-12)}});
  }
  return ranks;
}

// The op profile per measured step (bench train --profile).
nlohmann::json profile_json(const OpProfile& prof, int64_t steps) {
  const double n_steps = static_cast<double>(steps);
  nlohmann::json profile = nlohmann::json::array();
  for (const OpProfile::Row& row : prof.rows())
    profile.push_back({{"op", row.op},
                       {"calls_per_step", static_cast<double>(row.calls) / n_steps},
                       {"forward_ms", 1e3 * row.forward_s / n_steps},
                       {"backward_ms", 1e3 * row.backward_s / n_steps},
                       {"share", row.total_s() / std::max(prof.total_s(), 1e-12)}});
  return profile;
}

void print_profile(const nlohmann::json& profile, int64_t steps) {
  std::cout << "per step, mean of " << steps << " timed steps (host wall time; an op's forward includes "
            << "the glue before it):\n";
  char line[160];
  std::snprintf(line, sizeof line, "%-28s %7s %10s %10s %7s\n", "op", "calls", "fwd ms", "bwd ms", "share");
  std::cout << line;
  for (const nlohmann::json& row : profile) {
    std::snprintf(line, sizeof line, "%-28s %7.1f %10.2f %10.2f %6.1f%%\n", row["op"].get<std::string>().c_str(),
                  row["calls_per_step"].get<double>(), row["forward_ms"].get<double>(),
                  row["backward_ms"].get<double>(), 100.0 * row["share"].get<double>());
    std::cout << line;
  }
}

// `bench train`: the trainer's step timed (run_bench_steps), its rate against the arithmetic peak of its matmul
// dtype measured now on the same threads (the same kernels as bench/peak_flops, docs/PERFORMANCE.md; under mpirun
// every rank measures its own and the job's peak is their sum), printed or as JSON by rank 0.
void bench_train(const BenchArgs& args, const Home& home, dist::Communicator& comm) {
  check(args.steps >= 1 && args.warmup >= 0, "bench train: --steps must be >= 1 and --warmup >= 0");
  const recipe::Recipe r =
      open_recipe(args.recipe, home,
                  {"train.budget=0", "train.steps=" + std::to_string(args.warmup + args.steps),
                   "train.log_every=" + std::to_string(args.warmup + args.steps), "train.checkpoint_every=0"});
  OpProfile prof;
  const train::TrainResult result = run_bench_steps(r, args, comm, prof);
  Engine engine(EngineOptions{.num_threads = r.train.threads});
  const int64_t B = r.batch.rows, T = r.batch.seq_len, accum = r.batch.phases[0].accum;
  const std::vector<double> sorted = measured_ms_sorted(result, args.warmup);
  const double median = sorted[sorted.size() / 2];
  const double tps = static_cast<double>(B * T * accum) / (median * 1e-3);
  const double gflops = tps * result.flops_per_token * 1e-9;
  const hw::ArithmeticPeak arithmetic =
      measure_matmul_peak(engine.gemm(), r.train.precision, engine.num_threads(), 0.3);
  double peak = arithmetic.gflops;
  comm.all_reduce(&peak, 1);
  const std::string peak_kind =
      arithmetic.describe() + (comm.size() > 1 ? " x " + std::to_string(comm.size()) + " ranks" : "");
  if (comm.rank() != 0) return;
  const nlohmann::json profile = profile_json(prof, args.steps);
  if (args.json) {
    nlohmann::json out = {{"recipe", r.name},
                          {"precision", std::string(dtype_name(r.train.precision))},
                          {"threads", engine.num_threads()},
                          {"batch", B},
                          {"seq_len", T},
                          {"steps", args.steps},
                          {"ms_per_step_median", median},
                          {"ms_per_step_min", sorted.front()},
                          {"ms_per_step_max", sorted.back()},
                          {"tokens_per_second", tps},
                          {"flops_per_token", result.flops_per_token},
                          {"gflops", gflops},
                          {"peak_gflops", peak},
                          {"peak_kind", peak_kind},
                          {"percent_of_peak", 100.0 * gflops / peak},
                          {"bf16_path", engine.gemm().bf16_support().reason},
                          {"world_size", comm.size()},
                          {"micro_batches_per_step", accum},
                          {"ranks", rank_timings_json(result, args.steps)},
                          {"last_loss", result.last_loss}};
    if (args.profile) out["profile"] = profile;
    std::cout << out.dump(2) << "\n";
    return;
  }
  if (args.profile) print_profile(profile, args.steps);
  std::cout << r.name << " (" << dtype_name(r.train.precision) << ", " << comm.size() << " x " << engine.num_threads()
            << " threads, B " << B << " x " << accum << ", T " << T << "): " << format_number("%.1f", median)
            << " ms/step median (min " << format_number("%.1f", sorted.front()) << ", max "
            << format_number("%.1f", sorted.back()) << "), " << format_number("%.0f", tps) << " tokens/s, "
            << format_number("%.1f", gflops) << " GFLOP/s = " << format_number("%.0f", 100.0 * gflops / peak)
            << "% of the arithmetic peak " << peak_kind << "\n";
}

}  // namespace

void add_bench(CLI::App& app, const Home& home) {
  auto* bench = app.add_subcommand("bench", "Benchmarks (see docs/PERFORMANCE.md)");
  bench->require_subcommand(1);
  auto args = std::make_shared<BenchArgs>();
  args->recipe.recipe = "cpu-small";
  auto* cmd = bench->add_subcommand("train", "Time N training steps (forward, backward, optimiser) on random tokens");
  add_recipe_flags(cmd, args->recipe, home);
  add_model_config_flag(cmd, args->recipe);
  cmd->add_option("--steps", args->steps, "Timed steps")->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "Untimed steps first")->capture_default_str();
  cmd->add_flag("--json", args->json, "Machine-readable output");
  cmd->add_flag("--profile", args->profile,
                "Per-op host time of the timed steps (forward, backward, calls; the optimiser as one row), as a table "
                "or in --json under \"profile\"");
  cmd->callback([args, home] {
    install_stop_signals();
    run_on_ranks([&](dist::Communicator& comm) { bench_train(*args, home, comm); });
  });
}

}  // namespace nanotrn::cli
