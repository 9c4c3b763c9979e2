// `nanotrn eval core --ckpt C [--bundle DIR]`: CORE of a checkpoint over an eval bundle (icl/core_eval.h).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "base/error.h"
#include "base/file.h"
#include "cli/commands.h"
#include "cli/eval_model.h"
#include "data/shard_tokenizer_check.h"
#include "hw/catalog.h"
#include "icl/core_eval.h"
#include "predict/forward_rate.h"
#include "tokenizer/tokenizer.h"

namespace nanotrn::cli {

namespace {

std::string default_bundle(const Home& home) {
  return home.project.empty() ? std::string(icl::kShippedBundle) : home.project + "/" + icl::kShippedBundle;
}

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
}

}  // namespace

void add_eval_core(CLI::App& eval, const Home& home) {
  struct Args {
    std::string ckpt, bundle, tokenizer, records;
    std::vector<std::string> tasks, sets, project;
    int64_t max_per_task = 0;
    bool ema = false, json = false, quiet = false;
  };
  auto a = std::make_shared<Args>();
  a->ckpt = home.path("out/run/checkpoint.safetensors");
  a->bundle = default_bundle(home);
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
    const icl::Bundle bundle = icl::read_bundle(a->bundle);  // the cheap checks first
    EvalModel m = load_eval_model(a->ckpt, a->sets, a->ema, home);
    const std::string tok_path = a->tokenizer.empty() ? m.recipe.data.tokenizer : a->tokenizer;
    const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(tok_path);
    check(tok.vocab_size() == m.recipe.model.vocab_size,
          "eval core: the tokenizer " + tok_path + " has " + std::to_string(tok.vocab_size()) + " tokens, the model " +
              std::to_string(m.recipe.model.vocab_size) + " (pass the tokenizer it was trained with: --tokenizer)");
    // The model was trained on the recipe's shards: where they are here and record their tokenizer, it must be this
    // one.
    if (m.recipe.data.train.ends_with(".bin")) {  // a shard glob, not a synthetic source
      data::check_shard_glob_matches_tokenizer(m.recipe.data.train, tok, tok_path,
                                               "nanotrn eval core --tokenizer <the tokenizer that made these shards>");
    }
    const bool bar = !a->quiet && !a->json && isatty(STDERR_FILENO);
    icl::CoreOptions o;
    o.max_len = m.recipe.batch.seq_len;
    o.max_per_task = a->max_per_task;
    o.tasks = a->tasks;
    o.keep_examples = !a->records.empty();
    const std::vector<icl::TaskSpec> specs = icl::select_tasks(bundle, a->tasks);
    if (bar) {
      o.progress = [&specs](size_t task, int64_t done, int64_t total) {
        if (done % 8 != 0 && done != total) return;
        std::fprintf(stderr, "\r[%zu/%zu] %-34s %6lld/%-6lld", task + 1, specs.size(), specs[task].label.c_str(),
                     static_cast<long long>(done), static_cast<long long>(total));
        if (done == total && task + 1 == specs.size()) std::fprintf(stderr, "\r%80s\r", "");
      };
    }
    const icl::CoreResult r = icl::evaluate_core(m.ctx(), *m.gpt, tok, bundle, o);
    nlohmann::ordered_json j = icl::core_json(r, false);
    j["checkpoint"] = a->ckpt;
    j["bundle"] = a->bundle;
    j["max_per_task"] = a->max_per_task;
    j["step"] = m.checkpoint.progress.value("step", 0);
    int64_t tokens = 0;
    for (const icl::TaskResult& t : r.tasks) tokens += t.tokens;
    std::vector<std::string> projections;
    for (const std::string& dev : a->project) {
      const predict::ForwardRate f = predict::forward_rate(m.recipe, hw::builtin_catalog().find(dev));
      const double s = static_cast<double>(tokens) / f.tokens_per_s;
      j["projected_seconds"][dev] = s;
      char line[256];
      std::snprintf(line, sizeof line,
                    "projected on one %s chip: %.2f s for the %lld tokens scored (forward at %.0f tokens/s, the "
                    "predictor's micro-batch forward; an upper bound)",
                    dev.c_str(), s, static_cast<long long>(tokens), f.tokens_per_s);
      projections.emplace_back(line);
    }
    const std::string out = (std::filesystem::path(a->ckpt).parent_path() / "core.json").string();
    const std::string text = j.dump(2) + "\n";
    write_file_atomic(out, text.data(), text.size());
    if (!a->records.empty()) {
      const std::string rec = icl::core_json(r, true).dump() + "\n";
      write_file_atomic(a->records, rec.data(), rec.size());
    }
    if (a->json) {
      std::cout << text;
      return;
    }
    print_table(r);
    for (const std::string& p : projections) std::printf("%s\n", p.c_str());
    std::printf("wrote %s\n", out.c_str());
  });
}

}  // namespace nanotrn::cli
