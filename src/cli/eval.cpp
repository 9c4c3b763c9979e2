// `nanotrn eval bpb --ckpt C`: val_bpb of a checkpoint on its recipe's validation data (train/evaluate.h).
// `nanotrn eval make-bundle` lives in eval_bundle.cpp.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/eval_model.h"
#include "cli/recipe_args.h"
#include "train/checkpoint.h"
#include "train/data_setup.h"
#include "train/evaluate.h"

namespace nanotrn::cli {

void add_eval(CLI::App& app, const Home& home) {
  struct Args {
    std::string ckpt;
    std::vector<std::string> sets;
    int64_t tokens = 0;
    bool ema = false, json = false;
  };
  auto args = std::make_shared<Args>();
  args->ckpt = home.path("out/run/checkpoint.safetensors");
  auto* cmd = app.add_subcommand("eval", "Evaluate a checkpoint");
  cmd->require_subcommand(1);
  auto* bpb = cmd->add_subcommand("bpb", "val_bpb on the recipe's validation shards (or --set data.val=GLOB)");
  bpb->add_option("--ckpt", args->ckpt, "Checkpoint (safetensors)")->capture_default_str();
  bpb->add_option("--set", args->sets, "Override a field of the stored recipe (data.*, eval.*)");
  bpb->add_option("--tokens", args->tokens, "Validation tokens to score (default: the recipe's eval.tokens)")
      ->check(CLI::NonNegativeNumber);
  bpb->add_flag("--ema", args->ema, "Score the EMA weights instead of the live ones");
  bpb->add_flag("--json", args->json, "Machine-readable output");
  add_data_root_footer(bpb, home);
  add_eval_core(*cmd, home);
  bpb->callback([args, home] {
    EvalModel m = load_eval_model(args->ckpt, args->sets, args->ema, home);
    const train::Checkpoint& c = m.checkpoint;
    const recipe::Recipe& r = m.recipe;
    Ctx ctx = m.ctx();
    model::Gpt& gpt = *m.gpt;
    train::TrainerData data = train::open_validation_data(r, setup_command(r.name, args->sets));
    const train::BpbResult res = train::evaluate_bpb(
        ctx, gpt, *data.val, data.token_bytes,
        {.tokens = args->tokens > 0 ? args->tokens : r.eval.tokens, .rows = r.eval.rows, .seq_len = r.batch.seq_len});
    check(std::isfinite(res.bpb), "eval bpb: " + args->ckpt + " scores a non-finite val_bpb (" +
                                      std::to_string(res.bpb) + " over " + std::to_string(res.tokens) +
                                      " tokens): the model's loss overflows on the validation data");
    if (args->json) {
      std::cout << nlohmann::json{{"val_bpb", res.bpb},
                                  {"nats_per_token", res.nats_per_token},
                                  {"tokens", res.tokens},
                                  {"bytes", res.bytes},
                                  {"step", c.progress.value("step", 0)}}
                       .dump(2)
                << "\n";
      return;
    }
    char line[160];
    std::snprintf(line, sizeof line, "val_bpb %.6f (%lld tokens, %lld bytes, %.4f nats/token) at step %lld\n", res.bpb,
                  static_cast<long long>(res.tokens), static_cast<long long>(res.bytes), res.nats_per_token,
                  static_cast<long long>(c.progress.value("step", 0)));
    std::cout << line;
  });
  add_eval_make_bundle(*cmd, home);
}

}  // namespace nanotrn::cli
