// `nanotrn eval core --ckpt C [--bundle DIR]`: CORE of a checkpoint over an eval bundle (icl/core_eval.h).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "base/error.h"
#include "base/file.h"
#include "cli/commands.h"
#include "cli/eval_model.h"
#include "cli/recipe_args.h"
#include "data/shard_tokenizer_check.h"
#include "hw/catalog.h"
#include "icl/core_eval.h"
#include "predict/forward_rate.h"
#include "tokenizer/tokenizer.h"

namespace nanotrn::cli {

namespace {

void print_table(const icl::CoreResult& r) {
  std::printf("%-34s %-17s %5s %8s %9s %9s %8s\n", "task", "type", "shots", "examples", "accuracy", "centered",
              "seconds");
  for (const icl::TaskResult& t : r.tasks) {
    std::printf("%-34s %-17s %5lld %8lld %9.4f %9.4f %8.2f\n", t.spec.label.c_str(), icl::task_type_name(t.spec.type),
                static_cast<long long>(t.spec.num_fewshot), static_cast<long long>(t.examples), t.accuracy, t.centered,
                t.seconds);
  }
  std::printf("CORE %.6f (mean centered accuracy over %zu task%s) in %.1f s\n", r.core, r.tasks.size(),
              r.tasks.size() == 1 ? "" : "s", r.seconds);
  for (const icl::TaskResult& t : r.tasks) {
    if (t.beyond_context > 0)
      std::printf("note: %s: %lld example%s with an answer longer than the model's length, scored as wrong\n",
                  t.spec.label.c_str(), static_cast<long long>(t.beyond_context), t.beyond_context == 1 ? "" : "s");
  }
}

struct CoreArgs {
  std::string ckpt, bundle, tokenizer, records;
  std::vector<std::string> tasks, sets, project;
  int64_t max_per_task = 0;
  bool ema = false, json = false, quiet = false;
};

// The model, its tokenizer and the bundle, each checked against the others.
struct CoreInputs {
  icl::Bundle bundle;
  EvalModel model;
  tokenizer::Tokenizer tok;
};

CoreInputs load_core_inputs(const CoreArgs& a, const Home& home) {
  check(!a.bundle.empty(),
        "eval core: no bundle: this nanotrn has no project folder with the shipped one; give --bundle DIR");
  icl::Bundle bundle = icl::read_bundle(a.bundle);  // the cheap checks first
  EvalModel m = load_eval_model(a.ckpt, a.sets, a.ema, home);
  const std::string tok_path = a.tokenizer.empty() ? m.recipe.data.tokenizer : a.tokenizer;
  tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(tok_path);
  check(tok.vocab_size() == m.recipe.model.vocab_size,
        "eval core: the tokenizer " + tok_path + " has " + std::to_string(tok.vocab_size()) + " tokens, the model " +
            std::to_string(m.recipe.model.vocab_size) + " (pass the tokenizer it was trained with: --tokenizer)");
  // The model was trained on the recipe's shards: where they are here and record their tokenizer, it must be this one.
  if (m.recipe.data.train.ends_with(".bin")) {  // a shard glob, not a synthetic source
    data::check_shard_glob_matches_tokenizer(m.recipe.data.train, tok, tok_path,
                                             "nanotrn eval core --tokenizer <the tokenizer that made these shards>");
  }
  return {std::move(bundle), std::move(m), std::move(tok)};
}

// Everything that could refuse the results, checked before minutes of evaluation: the devices to project on, and
// that core.json (returned) and --records can be written.
std::string check_outputs(const CoreArgs& a, const hw::Catalog& catalog) {
  for (const std::string& dev : a.project) catalog.find(dev);
  const std::string out = (std::filesystem::path(a.ckpt).parent_path() / "core.json").string();
  check_can_write(out);
  if (!a.records.empty()) check_can_write(a.records);
  return out;
}

icl::CoreResult run_core(const CoreArgs& a, CoreInputs& in) {
  icl::CoreOptions o;
  o.max_len = in.model.recipe.batch.seq_len;
  o.max_per_task = a.max_per_task;
  o.tasks = a.tasks;
  o.keep_examples = !a.records.empty();
  const std::vector<icl::TaskSpec> specs = icl::select_tasks(in.bundle, a.tasks);
  if (!a.quiet && !a.json && isatty(STDERR_FILENO)) {
    o.progress = [&specs](size_t task, int64_t done, int64_t total) {
      if (done % 8 != 0 && done != total) return;
      std::fprintf(stderr, "\r[%zu/%zu] %-34s %6lld/%-6lld", task + 1, specs.size(), specs[task].label.c_str(),
                   static_cast<long long>(done), static_cast<long long>(total));
      if (done == total && task + 1 == specs.size()) std::fprintf(stderr, "\r%80s\r", "");
    };
  }
  return icl::evaluate_core(in.model.ctx(), *in.model.gpt, in.tok, in.bundle, o);
}

// The scored tokens' forward priced on each --project device: into j["projected_seconds"], and as lines to print.
std::vector<std::string> project(const CoreArgs& a, const icl::CoreResult& r, const recipe::Recipe& recipe,
                                 const hw::Catalog& catalog, nlohmann::ordered_json& j) {
  int64_t tokens = 0;
  for (const icl::TaskResult& t : r.tasks) tokens += t.tokens;
  std::vector<std::string> lines;
  for (const std::string& dev : a.project) {
    const predict::ForwardRate f = predict::forward_rate(recipe, catalog.find(dev));
    const double s = static_cast<double>(tokens) / f.tokens_per_s;
    j["projected_seconds"][dev] = s;
    char line[256];
    std::snprintf(line, sizeof line,
                  "projected on one %s chip: %.2f s for the %lld tokens scored (forward at %.0f tokens/s, the "
                  "predictor's micro-batch forward; an upper bound)",
                  dev.c_str(), s, static_cast<long long>(tokens), f.tokens_per_s);
    lines.emplace_back(line);
  }
  return lines;
}

// The results reach the terminal before any file, so a write that still fails (a full disk) loses nothing shown.
// Paths that are not UTF-8 are kept with U+FFFD in the JSON instead of failing after the evaluation.
void show_and_write(const CoreArgs& a, const icl::CoreResult& r, const nlohmann::ordered_json& j,
                    const std::vector<std::string>& projections, const std::string& out) {
  const auto replace = nlohmann::ordered_json::error_handler_t::replace;
  const std::string text = j.dump(2, ' ', false, replace) + "\n";
  if (a.json) {
    std::cout << text << std::flush;
  } else {
    print_table(r);
    for (const std::string& p : projections) std::printf("%s\n", p.c_str());
    std::fflush(stdout);
  }
  write_file_atomic(out, text.data(), text.size());
  if (!a.records.empty()) {
    const std::string rec = icl::core_json(r, true).dump(-1, ' ', false, replace) + "\n";
    write_file_atomic(a.records, rec.data(), rec.size());
  }
  if (!a.json) std::printf("wrote %s\n", out.c_str());
}

}  // namespace

void add_eval_core(CLI::App& eval, const Home& home) {
  auto a = std::make_shared<CoreArgs>();
  a->ckpt = home.path("out/run/checkpoint.safetensors");
  a->bundle = shipped_bundle(home);
  auto* cmd =
      eval.add_subcommand("core",
                          "CORE (DCLM in-context evaluation, as nanochat scores it) over an eval_bundle: core.yaml, "
                          "eval_meta_data.csv, eval_data/; results also written to core.json beside the checkpoint");
  cmd->add_option("--ckpt", a->ckpt, "Checkpoint (safetensors)")->capture_default_str();
  cmd->add_option("--bundle", a->bundle, "Eval bundle folder (the real DCLM eval_bundle, or the shipped small one)")
      ->capture_default_str();
  cmd->add_option("--tasks", a->tasks, "Only these task labels (comma-separated)")->delimiter(',');
  cmd->add_option("--max-per-task", a->max_per_task,
                  "At most N examples per task, after the seeded shuffle (0 = all; nanochat's default is 500)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--tokenizer", a->tokenizer, "Tokenizer (default: the recipe's data.tokenizer)");
  cmd->add_option("--set", a->sets, "Override a field of the stored recipe (train.threads, data.tokenizer, ...)");
  cmd->add_option("--records", a->records,
                  "Also write every example's token rows, spans, losses and verdict to this JSON file");
  cmd->add_option("--project", a->project,
                  "Also price the scored tokens' forward on these catalog devices (comma-separated, e.g. trn2,trn3) "
                  "with the step predictor's forward time")
      ->delimiter(',');
  cmd->add_flag("--ema", a->ema, "Score the EMA weights instead of the live ones");
  cmd->add_flag("--json", a->json, "Machine-readable output");
  cmd->add_flag("--quiet", a->quiet, "No progress bar");
  cmd->callback([a, home] {
    CoreInputs in = load_core_inputs(*a, home);
    const hw::Catalog catalog = hw::builtin_catalog();
    const std::string out = check_outputs(*a, catalog);
    const icl::CoreResult r = run_core(*a, in);
    nlohmann::ordered_json j = icl::core_json(r, false);
    j["checkpoint"] = a->ckpt;
    j["bundle"] = a->bundle;
    j["max_per_task"] = a->max_per_task;
    j["step"] = in.model.checkpoint.progress.value("step", 0);
    const std::vector<std::string> projections = project(*a, r, in.model.recipe, catalog, j);
    show_and_write(*a, r, j, projections, out);
  });
}

}  // namespace nanotrn::cli
