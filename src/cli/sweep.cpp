// `nanotrn sweep`: many variants of a recipe, priced on the target device, trained under its clock, at several seeds,
// ranked with statistics (src/sweep/). `sweep report DIR` writes the leaderboard, `sweep status DIR` says what is
// done. This file parses flags and prints; the work is in the library.
#include <filesystem>
#include <iostream>

#include "base/error.h"
#include "base/file.h"
#include "base/stop_signal.h"
#include "cli/commands.h"
#include "cli/mpi_job.h"
#include "cli/recipe_args.h"
#include "dist/mpi_communicator.h"
#include "sweep/leaderboard.h"
#include "sweep/records.h"
#include "sweep/runner.h"
#include "sweep/trial.h"

namespace nanotrn::cli {
namespace {

namespace fs = std::filesystem;

struct SweepArgs {
  RecipeArgs recipe;
  sweep::SweepRequest request;
  std::string out, resume;
  bool json = false, quiet = false;
  int ranks_per_trial = 1;
};

// A new sweep's folder: made when missing; an existing one must be empty (a sweep never writes into a folder that
// holds something else, and one that holds a sweep is continued with --resume).
void prepare_sweep_folder(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir + "/sweep.json", ec))
    throw Error(dir + " holds a sweep already; continue it with: nanotrn sweep --resume " + dir);
  if (fs::exists(dir, ec)) {
    check(fs::is_directory(dir, ec) && fs::is_empty(dir, ec),
          "--out " + dir + " exists and is not an empty folder; nanotrn does not write into it (choose a new name)");
  }
  make_directories(dir);
}

void print_summary(const sweep::SweepSummary& s, const std::string& dir, bool json) {
  nlohmann::json out = s.to_json();
  out["dir"] = dir;
  out["trials"] = dir + "/trials.jsonl";
  if (!json) {
    std::cout << "sweep " << dir << ": " << s.done << " done, " << s.failed << " failed, " << s.skipped << " skipped, "
              << s.left << " left of " << s.planned
              << (s.best.empty() ? "" : "; best " + s.best + " (mean val_bpb " + std::to_string(s.best_val_bpb) + ")")
              << (s.stopped ? "; stopped: continue with nanotrn sweep --resume " + dir : "") << "\n";
  }
  std::cout << out.dump() << "\n";  // the last stdout line: the summary as JSON, for agents
}

void run(const SweepArgs& a, const Home& home, dist::Communicator& comm) {
  const bool lead = comm.rank() == 0;
  sweep::SweepPlan plan;
  std::string dir = a.out;
  if (!a.resume.empty()) {
    dir = a.resume;
    plan = sweep::read_plan(dir);
  } else {
    check(!a.out.empty(), "sweep: --out DIR (the sweep's folder), or --resume DIR");
    sweep::SweepRequest q = a.request;
    q.recipe = a.recipe.recipe;
    q.sets = a.recipe.sets;
    plan = sweep::make_plan(q, home);
    sweep::check_trial_data(plan, home, setup_command(a.recipe.recipe, a.recipe.sets));
    if (lead) {
      prepare_sweep_folder(dir);
      sweep::write_plan(dir, plan);
    }
    comm.barrier();
  }
  sweep::SweepRunOptions o{.dir = dir, .home = home, .comm = &comm, .ranks_per_trial = a.ranks_per_trial};
  if (!a.quiet && lead) o.print = [](const std::string& line) { std::cerr << line << "\n"; };
  o.should_stop = [] { return stop_signal() != 0; };
  const sweep::SweepSummary s = sweep::run_sweep(plan, o);
  if (lead) print_summary(s, dir, a.json);
}

void add_run_flags(CLI::App* cmd, SweepArgs& a, const Home& home) {
  add_recipe_flags(cmd, a.recipe, home);
  sweep::SweepRequest& q = a.request;
  cmd->add_option("--grid", q.grid, "A grid axis key=v1,v2,... (repeat for the Cartesian product)");
  cmd->add_option("--random", q.random, "N variants drawn from --space instead of a grid")->check(CLI::PositiveNumber);
  cmd->add_option("--space", q.space,
                  "Search space for --random: {key: {uniform|log_uniform|int: [lo, hi]} or "
                  "{choice: [...]}}");
  cmd->add_option("--search-seed", q.search_seed, "Seed of the --random draws")->capture_default_str();
  cmd->add_option("--seeds", q.seeds, "Seeds per variant (the recipe's seed + 0, 1, ...)")->capture_default_str();
  cmd->add_flag("--halving", q.halving.on, "Successive halving on val_bpb at fractions of the budget");
  cmd->add_option("--eta", q.halving.eta, "Halving: keep the best 1/eta variants per rung")->capture_default_str();
  cmd->add_option("--rungs", q.halving.rungs, "Halving: rungs, the last at the full budget")->capture_default_str();
  cmd->add_option("--clock", q.clock, "What a trial's step is charged: wall, fixed:<s>, or a device (trn2, trn2:high)")
      ->capture_default_str();
  cmd->add_option("--device", q.device, "Where trials are priced when the clock is not a device")
      ->capture_default_str();
  cmd->add_option("--budget", q.budget, "Every trial's budget, e.g. 30m (overrides train.budget)");
  cmd->add_option("--workers", q.workers, "Local worker processes (trials at once)")->capture_default_str();
  cmd->add_option("--threads", q.threads, "Threads per trial (0 = cores / workers)")->capture_default_str();
  add_core_flags(cmd, "trial's checkpoint", q.core, q.core_bundle, q.core_max_per_task, home);
  cmd->add_option("--out", a.out, "The sweep's folder (new, or empty)");
  cmd->add_option("--resume", a.resume, "Continue the sweep in this folder where it stopped");
  cmd->add_option("--ranks-per-trial", a.ranks_per_trial, "Under mpirun: ranks that train one trial together")
      ->capture_default_str();
  cmd->add_flag("--json", a.json, "Print only the JSON summary");
  cmd->add_flag("--quiet", a.quiet, "No progress lines");
}

void add_report_command(CLI::App* sweep_cmd) {
  struct ReportArgs {
    std::string dir;
    bool json = false;
    int curves = 5;
  };
  auto a = std::make_shared<ReportArgs>();
  auto* cmd = sweep_cmd->add_subcommand("report", "The leaderboard of a sweep: text, --json, and DIR/leaderboard.html");
  cmd->add_option("dir", a->dir, "The sweep's folder")->required();
  cmd->add_flag("--json", a->json, "Machine-readable output");
  cmd->add_option("--curves", a->curves, "Loss curves of the best N variants on the page")->capture_default_str();
  cmd->callback([a] {
    const sweep::SweepPlan plan = sweep::read_plan(a->dir);
    const sweep::Leaderboard lb = sweep::make_leaderboard(plan, sweep::read_records(a->dir, plan));
    const std::string html = sweep::leaderboard_html(lb, plan, a->dir, a->curves);
    write_file_atomic(a->dir + "/leaderboard.html", html.data(), html.size());
    if (a->json) {
      std::cout << lb.to_json().dump(2) << "\n";
      return;
    }
    std::cout << sweep::leaderboard_text(lb) << "page: " << a->dir << "/leaderboard.html\n";
  });
}

void add_status_command(CLI::App* sweep_cmd) {
  struct StatusArgs {
    std::string dir;
    bool json = false;
  };
  auto a = std::make_shared<StatusArgs>();
  auto* cmd = sweep_cmd->add_subcommand("status", "What a sweep has done, and what is left");
  cmd->add_option("dir", a->dir, "The sweep's folder")->required();
  cmd->add_flag("--json", a->json, "Machine-readable output");
  cmd->callback([a] {
    const sweep::SweepPlan plan = sweep::read_plan(a->dir);
    const sweep::SweepSummary s = sweep::sweep_status(plan, a->dir);
    nlohmann::json j = s.to_json();
    j.erase("wall_seconds");
    j.erase("worker_idle_seconds");
    j["dir"] = a->dir;
    if (a->json) {
      std::cout << j.dump(2) << "\n";
      return;
    }
    std::cout << a->dir << ": " << s.done << " done, " << s.failed << " failed, " << s.skipped << " skipped, " << s.left
              << " left of " << s.planned << " trials" << (s.best.empty() ? "" : "; best so far " + s.best) << "\n";
  });
}

}  // namespace

void add_sweep(CLI::App& app, const Home& home) {
  auto a = std::make_shared<SweepArgs>();
  auto* cmd = app.add_subcommand("sweep", "Search recipes: variants x seeds, priced on the target, trained, ranked");
  add_run_flags(cmd, *a, home);
  add_report_command(cmd);
  add_status_command(cmd);
  cmd->callback([cmd, a, home] {
    if (cmd->got_subcommand("report") || cmd->got_subcommand("status")) return;
    install_stop_signals();
    run_on_ranks([&](dist::Communicator& comm) { run(*a, home, comm); });
  });
}

}  // namespace nanotrn::cli
