// `nanotrn eval make-bundle [--out DIR] [--per-task N] [--seed S]`: the small CORE bundle from the validation side of
// the Brown corpus (icl/make_bundle.h); the shipped eval_bundles/brown-core/ is its output with the defaults.
#include <cstdio>

#include "cli/commands.h"
#include "data/brown.h"
#include "icl/make_bundle.h"

namespace nanotrn::cli {

void add_eval_make_bundle(CLI::App& eval, const Home& home) {
  struct Args {
    std::string out;
    icl::BundleOptions options;
  };
  auto a = std::make_shared<Args>();
  a->out = home.path("out/eval_bundles/brown-core");
  auto* cmd = eval.add_subcommand(
      "make-bundle",
      "Write a small CORE evaluation bundle (core.yaml, eval_meta_data.csv, eval_data/) from the Brown corpus "
      "documents the default corpus keeps for validation; eval_bundles/brown-core is its output with the defaults");
  cmd->add_option("--out", a->out, "Bundle folder")->capture_default_str();
  cmd->add_option("--per-task", a->options.per_task, "Examples per task")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{4}, int64_t{100000}));
  cmd->add_option("--seed", a->options.seed, "Seed of every random choice")->capture_default_str();
  cmd->callback([a] {
    const std::vector<data::Document> val = icl::validation_documents(data::read_brown(data::find_brown_dir()));
    icl::make_brown_bundle(val, a->out, a->options);
    std::printf("wrote %s from %zu held-back Brown documents (seed %llu):\n", a->out.c_str(), val.size(),
                static_cast<unsigned long long>(a->options.seed));
    for (const icl::BundleTask& t : icl::brown_bundle_tasks())
      std::printf("  %-24s %-18s %d-shot  %lld examples  eval_data/%s/%s.jsonl\n", t.label, t.type, t.shots,
                  static_cast<long long>(a->options.per_task), t.category, t.label);
  });
}

}  // namespace nanotrn::cli
