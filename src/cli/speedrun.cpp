// `nanotrn speedrun`: the main job on the default corpus (pipeline/speedrun.h): corpus, tokenizer, shards, a short
// pretraining run of the default recipe, val_bpb against the unigram baseline, samples, CORE, the trn2/trn3 projection
// and the markdown and HTML reports.
// This file parses flags and prints.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "base/format.h"
#include "cli/commands.h"
#include "cli/recipe_args.h"
#include "pipeline/speedrun.h"

namespace nanotrn::cli {

void add_speedrun(CLI::App& app, const Home& home) {
  auto o = std::make_shared<pipeline::SpeedrunOptions>();
  o->budget = "";
  o->root = home.path("out");
  o->home = home;
  o->core_bundle = shipped_bundle(home);
  auto* cmd = app.add_subcommand(
      "speedrun",
      "The main job on the default corpus: prepare the Brown corpus, train a BPE tokenizer, tokenize, pretrain the "
      "default recipe for a short budget, score val_bpb against the unigram baseline, sample, score CORE, price the "
      "recipe on trn2/trn3, write report.md and report.html");
  cmd->add_option("--out", o->root, "Folder for every stage's output")->capture_default_str();
  cmd->add_option("--recipe", o->recipe, "Recipe to pretrain: a JSON file or a shipped recipe's name")
      ->capture_default_str();
  cmd->add_option("--set", o->sets, "Override a recipe field (repeatable)");
  add_data_root_footer(cmd, home);
  cmd->add_option("--budget", o->budget, "Charged-time budget (default: the recipe's train.budget)");
  cmd->add_option("--samples", o->samples, "Lines to sample at the end")->capture_default_str();
  cmd->add_flag("--force", o->force, "Retrain even when a result for the same recipe exists");
  cmd->add_option("--core-bundle", o->core_bundle, "CORE eval bundle scored after pretraining (\"\" skips CORE)")
      ->capture_default_str();
  cmd->add_option("--core-max-per-task", o->core_max_per_task, "At most N CORE examples per task (0 = all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->callback([o] {
    o->print = [](const std::string& line) { std::cerr << line << "\n"; };
    const pipeline::SpeedrunResult r = pipeline::run_speedrun(*o);
    std::printf(
        "speedrun: val_bpb %.4f vs unigram baseline %.4f (same tokenizer); CORE %s; %lld steps, %lld tokens, %.0f s "
        "charged; reports %s and %s\n",
        r.val_bpb, r.unigram_bpb, std::isfinite(r.core) ? format_number("%.4f", r.core).c_str() : "not scored",
        static_cast<long long>(r.steps), static_cast<long long>(r.tokens), r.charged_seconds, r.report_path.c_str(),
        r.html_report_path.c_str());
  });
}

}  // namespace nanotrn::cli
