// `nanotrn forecast`: val_bpb (and CORE) of a recipe on its target, from a ladder of small host runs
// (src/forecast/). This file parses flags and prints; the work is in the library.
#include <cmath>
#include <iostream>
#include <map>

#include "base/error.h"
#include "base/format.h"
#include "base/stop_signal.h"
#include "cli/commands.h"
#include "cli/recipe_args.h"
#include "forecast/forecast_run.h"

namespace nanotrn::cli {
namespace {

struct ForecastArgs {
  RecipeArgs recipe;
  forecast::ForecastRequest request;
  std::string resume, stack;
  bool json = false, quiet = false;
};

// The ladder's own CORE line (forecast --core), or that it does not fall detectably with val_bpb (no CORE from it).
void print_ladder_core(const forecast::ForecastResult& r) {
  const forecast::LadderCore& c = *r.ladder_core;
  const std::string line = forecast::ladder_core_note(c);
  if (!c.above_noise) {
    std::cout << "  CORE on " << r.request.core_bundle << ": the ladder's does not fall detectably as val_bpb falls ("
              << line << "): not forecast from it\n";
    return;
  }
  std::cout << "  CORE on " << r.request.core_bundle << " " << format_number("%.3f", c.core) << " ("
            << format_number("%.0f %% interval ", 100 * r.request.coverage) << format_number("%.3f", c.low) << " - "
            << format_number("%.3f", c.high) << ") from the ladder's own CORE: " << line
            << format_number("; the forecast lies %.3f bpb below the ladder's lowest val_bpb", c.beyond) << "\n";
}

void print_text(const forecast::ForecastResult& r) {
  const forecast::CoreMap& m = forecast::builtin_core_map();
  std::cout << "forecast " << r.request.recipe << " on " << r.target.device << " (" << r.target.stack << "): val_bpb "
            << format_number("%.4f", r.at.central) << " ("
            << format_number("%.0f %% interval ", 100 * r.request.coverage) << format_number("%.4f", r.low) << " - "
            << format_number("%.4f", r.high) << ")\n";
  std::cout << "  target: N " << format_count(std::llround(r.target.params)) << " non-embedding params, D "
            << format_count(r.target.tokens) << " training tokens (band " << format_count(r.target.tokens_low) << " - "
            << format_count(r.target.tokens_high) << ") in " << r.target.steps << " steps\n";
  std::cout << "  law: L(N, D) = " << r.fit.law.formula() << "; over " << r.runs.size() << " ladder runs"
            << forecast::seeds_note(r) << ": fit RMS " << format_number("%.4f", r.fit.rms) << ", leave-one-out RMS "
            << format_number("%.4f", r.fit.loo_rms) << " bpb\n";
  std::cout << "  beyond the ladder's largest run: N " << format_number("%.1fx", r.at.params_beyond) << ", D "
            << format_number("%.1fx", r.at.tokens_beyond) << ", compute " << format_number("%.3gx", r.at.compute_beyond)
            << "\n";
  if (r.core)
    std::cout << "  CORE " << format_number("%.3f", *r.core) << format_number(" +/- %.3f", m.loo_rms)
              << " (leave-one-out) if this val_bpb were measured on " << m.dataset
              << "; on other data the mapping says nothing\n";
  else
    std::cout << "  CORE: n/a (val_bpb " << format_number("%.3f", r.at.central)
              << " is outside the range of the published pairs, " << format_number("%.3f", m.lo) << " - "
              << format_number("%.3f", m.hi) << " on " << m.dataset << ")\n";
  if (r.ladder_core) print_ladder_core(r);
  for (const std::string& w : r.warnings) std::cout << "warning: " << w << "\n";
  std::cout << "validation: " << forecast::kValidationNote << "\n";
  std::cout << "wrote " << r.request.out << "/forecast.json and " << r.request.out << "/forecast.html\n";
}

void add_flags(CLI::App* cmd, ForecastArgs& a, const Home& home) {
  add_recipe_flags(cmd, a.recipe, home);
  forecast::ForecastRequest& q = a.request;
  cmd->add_option("--device", q.device,
                  "The target: a catalog device (trn2, trn3, ...) or host (a step-limited recipe)")
      ->capture_default_str();
  cmd->add_option("--budget", q.budget, "The target's budget, e.g. 30m (overrides train.budget)");
  add_stack_flag(cmd, a.stack);
  cmd->add_option("--data", q.data,
                  "Your corpus: text files, folders, JSONL or Parquet files (as `nanotrn data prepare` reads them), "
                  "prepared with a tokenizer of model.vocab_size and shards in OUT/data, which the ladder trains on "
                  "(the data root's data is not touched); default: the recipe's data.*");
  add_text_field_flag(cmd, q.field);
  add_core_flags(
      cmd, "ladder run's checkpoint (CORE is then also forecast from the ladder's own CORE where it is above noise)",
      q.core, q.core_bundle, q.core_max_per_task, home);
  const std::map<std::string, forecast::LadderKind> kinds{{"small", forecast::LadderKind::small},
                                                          {"medium", forecast::LadderKind::medium}};
  cmd->add_option("--ladder", q.ladder, "small (4 sizes x 3 token budgets, 1e14 FLOPs) or medium (6 x 4, 5e14)")
      ->transform(CLI::CheckedTransformer(kinds))
      ->default_str("small");
  cmd->add_option("--ladder-flops", q.ladder_flops, "The ladder's training compute (overrides the kind's)");
  cmd->add_option("--workers", q.workers, "Ladder runs at once")->capture_default_str();
  cmd->add_option("--threads", q.threads, "Threads per ladder run")->capture_default_str();
  cmd->add_option("--seeds", q.seeds,
                  "Runs per ladder rung (the recipe's seed + 0, 1, ...; K times the ladder's compute): the law fits "
                  "their mean val_bpb, so the forecast moves less with the seed")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--bootstrap", q.bootstrap, "Refits on resampled ladders for the interval")->capture_default_str();
  cmd->add_option("--coverage", q.coverage, "The interval's coverage")->capture_default_str();
  q.out = "out/forecast";
  cmd->add_option("--out", q.out, "The forecast's folder (new or empty)")->capture_default_str();
  cmd->add_option("--resume", a.resume, "Continue the forecast in this folder (its ladder, then the fit)");
  cmd->add_flag("--json", a.json, "Print forecast.json");
  cmd->add_flag("--quiet", a.quiet, "No progress lines");
}

}  // namespace

void add_forecast(CLI::App& app, const Home& home) {
  auto a = std::make_shared<ForecastArgs>();
  auto* cmd = app.add_subcommand(
      "forecast", "Forecast val_bpb (and CORE) on the target from a ladder of small host runs and a scaling law");
  add_flags(cmd, *a, home);
  cmd->callback([a, home] {
    install_stop_signals();
    forecast::ForecastHooks hooks;
    if (!a->quiet && !a->json) hooks.print = [](const std::string& line) { std::cerr << line << "\n"; };
    hooks.should_stop = [] { return stop_signal() != 0; };
    forecast::ForecastResult r;
    if (!a->resume.empty()) {
      r = forecast::resume_forecast(a->resume, home, hooks);
    } else {
      a->request.recipe = a->recipe.recipe;
      a->request.sets = a->recipe.sets;
      check(a->stack.empty() || a->request.device != "host",
            "forecast: --stack prices a device target; --device host is a run on this machine, which has none");
      if (!a->stack.empty()) a->request.sets.push_back("launch.stack=" + a->stack);
      r = forecast::run_forecast(a->request, home, hooks);
    }
    if (a->json) {
      std::cout << r.to_json().dump(2) << "\n";
      return;
    }
    print_text(r);
  });
}

}  // namespace nanotrn::cli
