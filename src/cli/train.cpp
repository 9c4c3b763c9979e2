// `nanotrn train`: a recipe trained until its charged-time budget runs out, then val_bpb (train/trainer.h).
// `nanotrn bench train`: N training steps on random tokens, timed (benchmarks, docs/PERFORMANCE.md).
// This file parses flags and prints; the work is in the library.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "autograd/tape.h"
#include "base/format.h"
#include "base/stop_signal.h"
#include "cli/commands.h"
#include "cli/recipe_args.h"
#include "gemm/probe.h"
#include "predict/device_clock.h"
#include "train/data_setup.h"
#include "train/optimizers.h"
#include "train/run_folder.h"
#include "train/trainer.h"

namespace nanotrn::cli {

void add_train(CLI::App& app, const Home& home) {
  struct Args {
    RecipeArgs recipe;
    std::string budget, clock = "wall", out, resume;
    bool json = false, quiet = false, overwrite = false;
  };
  auto args = std::make_shared<Args>();
  args->out = home.path("out/run");
  auto* cmd = app.add_subcommand("train", "Train a recipe until its charged-time budget runs out, then score val_bpb");
  add_recipe_flags(cmd, args->recipe, home);
  cmd->add_option("--budget", args->budget, "Charged-time budget, e.g. 30m (overrides train.budget)");
  cmd->add_option("--clock", args->clock,
                  "What a step is charged: wall, fixed:<s per micro-batch>, or a device (trn1, trn2, trn3, h100, ...; "
                  "see nanotrn devices)")
      ->capture_default_str();
  cmd->add_option("--out", args->out, "Run folder: metrics.jsonl and checkpoint.safetensors")->capture_default_str();
  cmd->add_option("--resume", args->resume, "Continue from this checkpoint (appending to --out's metrics.jsonl)");
  cmd->add_flag("--overwrite", args->overwrite,
                "Replace the run in --out (its checkpoint and metrics.jsonl); without it or --resume, a folder that "
                "holds a run is refused");
  cmd->add_flag("--json", args->json, "Print the final summary as JSON on stdout");
  cmd->add_flag("--quiet", args->quiet, "No progress lines");
  cmd->callback([args, home] {
    // The first SIGINT/SIGTERM/SIGHUP ends the run after its current step, with a checkpoint; a second ends it now.
    // Installed before any worker thread exists, so that every thread inherits the blocked mask (stop_signal.h).
    install_stop_signals();
    std::vector<std::string> extra;
    if (!args->budget.empty()) extra.push_back("train.budget=" + args->budget);
    const train::Recipe recipe = open_recipe(args->recipe, home, extra);
    check(args->resume.empty() || !args->overwrite, "train: --resume and --overwrite exclude each other");
    train::prepare_run_folder(args->out, !args->resume.empty() ? train::RunFolderUse::resume
                                         : args->overwrite     ? train::RunFolderUse::overwrite
                                                               : train::RunFolderUse::fresh);
    std::unique_ptr<train::Clock> clock = predict::make_clock_for(args->clock, recipe);
    train::TrainerOptions o;
    o.out_dir = args->out;
    o.resume = args->resume;
    if (!args->quiet) o.print = [](const std::string& line) { std::cerr << line << "\n"; };
    o.should_stop = [] { return stop_signal() != 0; };
    {
      Engine probe_engine(EngineOptions{.num_threads = recipe.train.threads});
      const DType dt = recipe.train.precision == "bf16" ? DType::bf16 : DType::f32;
      const hw::ArithmeticPeak peak = measure_matmul_peak(probe_engine.gemm(), dt, probe_engine.num_threads(), 0.2);
      o.host_peak_gflops = peak.gflops;
      o.host_peak_basis = peak.describe();
    }
    train::Trainer run(recipe, train::open_training_data(recipe, setup_command(args->recipe.recipe, args->recipe.sets)),
                       *clock, o);
    const train::TrainResult r = run.run();
    if (r.stop_reason == "interrupted") {
      const std::string ckpt = args->out + "/checkpoint.safetensors";
      std::cerr << "nanotrn: " << signal_name(stop_signal()) << ": stopped after step " << r.steps
                << "; checkpoint saved to " << ckpt << " (continue with --resume " << ckpt << ")\n";
      std::cout.flush();
      std::exit(128 + stop_signal());
    }
    if (args->json) {
      std::cout << r.to_json().dump(2) << "\n";
      return;
    }
    std::cout << "done: " << r.steps << " steps, " << r.tokens << " tokens, charged "
              << format_number("%.1f", r.charged_seconds) << " s (" << clock->name() << " clock), host wall "
              << format_number("%.1f", r.wall_seconds) << " s, stop: " << r.stop_reason << "\n";
    std::cout << "val_bpb " << format_number("%.4f", r.val_bpb) << " (" << r.val_tokens << " tokens, "
              << format_number("%.4f", r.val_nats_per_token) << " nats/token); last train loss "
              << format_number("%.4f", r.last_loss) << "\n";
    std::cout << "checkpoint " << args->out << "/checkpoint.safetensors, metrics " << args->out << "/metrics.jsonl\n";
  });
}

void add_bench(CLI::App& app, const Home& home) {
  auto* bench = app.add_subcommand("bench", "Benchmarks (see docs/PERFORMANCE.md)");
  bench->require_subcommand(1);
  struct Args {
    RecipeArgs recipe;
    int64_t steps = 10, warmup = 2;
    bool json = false, profile = false;
  };
  auto args = std::make_shared<Args>();
  args->recipe.recipe = "cpu-small";
  auto* cmd = bench->add_subcommand("train", "Time N training steps (forward, backward, optimiser) on random tokens");
  add_recipe_flags(cmd, args->recipe, home);
  cmd->add_option("--steps", args->steps, "Timed steps")->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "Untimed steps first")->capture_default_str();
  cmd->add_flag("--json", args->json, "Machine-readable output");
  cmd->add_flag("--profile", args->profile,
                "Per-op host time of the timed steps (forward, backward, calls; the optimiser as one row), as a table "
                "or in --json under \"profile\"");
  cmd->callback([args, home] {
    const train::Recipe r = open_recipe(args->recipe, home);
    check(args->steps >= 1 && args->warmup >= 0, "bench train: --steps must be >= 1 and --warmup >= 0");
    Engine engine(EngineOptions{.num_threads = r.train.threads});
    Tape tape;
    const DType dt = r.train.precision == "bf16" ? DType::bf16 : DType::f32;
    Ctx ctx{engine, &tape, dt};
    model::Gpt gpt(ctx, model::resolve(r.model), r.seed);
    train::OptimizerSet optim(engine.gemm(), gpt, r.optim, dt);
    auto src = train::make_random_source(static_cast<int32_t>(r.model.vocab_size), r.seed);
    const int64_t B = r.batch.rows, T = r.batch.seq_len;
    std::vector<int32_t> in(static_cast<size_t>(B * T)), tg(in.size());
    std::vector<double> ms;
    double loss = 0.0;
    OpProfile prof;
    const auto since = [](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
    for (int64_t s = 0; s < args->warmup + args->steps; s++) {
      const bool profiled = args->profile && s >= args->warmup;
      tape.set_profile(profiled ? &prof : nullptr);
      const auto t0 = std::chrono::steady_clock::now();
      src->next(B, T, in.data(), tg.data());
      if (profiled) prof.start_forward();
      const Tensor l = gpt.loss(ctx, Tensor::from_ints({B, T}, in), Tensor::from_ints({B, T}, tg));
      loss = l.item();
      tape.backward(l);
      const auto t_opt = std::chrono::steady_clock::now();
      optim.schedule(s, 1.0, 0.0);
      optim.step();
      optim.zero_grad();
      if (profiled) prof.add("optimizer (Muon + AdamW)", since(t_opt));
      const double dt_ms = 1e3 * since(t0);
      if (s >= args->warmup) ms.push_back(dt_ms);
    }
    tape.set_profile(nullptr);
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    const double fpt = model::flops_per_token(gpt.config(), T);
    const double tps = static_cast<double>(B * T) / (median * 1e-3);
    const double gflops = tps * fpt * 1e-9;
    // The denominator: the arithmetic peak of this run's matmul dtype, measured now on the same threads (the same
    // kernels as bench/peak_flops, docs/PERFORMANCE.md).
    const hw::ArithmeticPeak arithmetic = measure_matmul_peak(engine.gemm(), dt, engine.num_threads(), 0.3);
    const double peak = arithmetic.gflops;
    const std::string peak_kind = arithmetic.describe();
    const nlohmann::json j = {{"recipe", r.name},
                              {"precision", r.train.precision},
                              {"threads", engine.num_threads()},
                              {"batch", B},
                              {"seq_len", T},
                              {"steps", args->steps},
                              {"ms_per_step_median", median},
                              {"ms_per_step_min", sorted.front()},
                              {"ms_per_step_max", sorted.back()},
                              {"tokens_per_second", tps},
                              {"flops_per_token", fpt},
                              {"gflops", gflops},
                              {"peak_gflops", peak},
                              {"peak_kind", peak_kind},
                              {"percent_of_peak", 100.0 * gflops / peak},
                              {"bf16_path", engine.gemm().bf16_support().reason},
                              {"last_loss", loss}};
    const double n_steps = static_cast<double>(args->steps);
    nlohmann::json profile = nlohmann::json::array();
    for (const OpProfile::Row& row : prof.rows())
      profile.push_back({{"op", row.op},
                         {"calls_per_step", static_cast<double>(row.calls) / n_steps},
                         {"forward_ms", 1e3 * row.forward_s / n_steps},
                         {"backward_ms", 1e3 * row.backward_s / n_steps},
                         {"share", row.total_s() / std::max(prof.total_s(), 1e-12)}});
    if (args->json) {
      nlohmann::json out = j;
      if (args->profile) out["profile"] = profile;
      std::cout << out.dump(2) << "\n";
      return;
    }
    if (args->profile) {
      std::cout << "per step, mean of " << args->steps << " timed steps (host wall time; an op's forward includes "
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
    std::cout << r.name << " (" << r.train.precision << ", " << engine.num_threads() << " threads, B " << B << ", T "
              << T << "): " << format_number("%.1f", median) << " ms/step median (min "
              << format_number("%.1f", sorted.front()) << ", max " << format_number("%.1f", sorted.back()) << "), "
              << format_number("%.0f", tps) << " tokens/s, " << format_number("%.1f", gflops)
              << " GFLOP/s = " << format_number("%.0f", 100.0 * gflops / peak) << "% of the arithmetic peak "
              << peak_kind << "\n";
  });
}

}  // namespace nanotrn::cli
