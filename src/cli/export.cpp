// `nanotrn export --pytorch DIR`: a checkpoint's model as a PyTorch folder with load_for_eval
// (export/pytorch_export.h).
// `--hf DIR` is refused with the reason: the baseline GPT maps onto no Hugging Face transformers class.
#include <filesystem>
#include <iostream>
#include <memory>

#include "base/error.h"
#include "base/rng.h"
#include "cli/commands.h"
#include "cli/eval_model.h"
#include "data/shard.h"
#include "data/synthetic.h"
#include "export/pytorch_export.h"

namespace nanotrn::cli {

namespace {

struct ExportArgs {
  std::string ckpt, pytorch, hf, tokenizer;
  std::vector<std::string> sets;
  bool ema = false;
  int64_t check_tokens = 64;
};

// R rows of T tokens for the export's self-check: the first of the recipe's validation shards when it trained on shards
// and they are here (held-out text), else a seeded random draw over the vocabulary (a synthetic run's data.val names
// shards it never read, possibly of another vocabulary).
std::vector<int32_t> check_ids(const recipe::Recipe& r, int64_t rows, int64_t T) {
  std::vector<int32_t> ids(static_cast<size_t>(rows * T));
  const std::vector<std::string> shards =
      data::is_synthetic_source(r.data.train) ? std::vector<std::string>{} : data::glob_shards(r.data.val);
  if (!shards.empty()) {
    const data::MappedShard s(shards[0], static_cast<int32_t>(r.model.vocab_size));
    if (s.view().count >= rows * T) {
      s.view().copy(0, rows * T, ids.data());
      return ids;
    }
  }
  for (size_t i = 0; i < ids.size(); ++i)
    ids[i] = static_cast<int32_t>(random_u32(r.seed, 7, i) % static_cast<uint32_t>(r.model.vocab_size));
  return ids;
}

void run_export(const ExportArgs& a, const Home& home) {
  check(a.hf.empty(),
        "export --hf: the baseline GPT (value embeddings, per-layer residual and embedding scalars, relu^2, QK-norm "
        "without gains) maps onto no Hugging Face transformers class; use --pytorch DIR, whose model.py is a "
        "self-contained PyTorch module with load_for_eval");
  check(!a.pytorch.empty(), "export: name the folder to write: --pytorch DIR");
  check(a.check_tokens >= 2, "export: --check-tokens must be at least 2");
  EvalModel m = load_eval_model(a.ckpt, a.sets, a.ema, home);
  const int64_t T = std::min<int64_t>(a.check_tokens, m.recipe.batch.seq_len);
  Ctx ctx = m.ctx();
  // An explicit --tokenizer must exist; the recipe's is shipped when it is here (a synthetic-data run has none).
  std::string tokenizer = a.tokenizer.empty() ? m.recipe.data.tokenizer : a.tokenizer;
  if (a.tokenizer.empty() && !std::filesystem::exists(tokenizer)) {
    std::cout << "export: no tokenizer shipped: the recipe's " << tokenizer << " is not here (pass --tokenizer)\n";
    tokenizer.clear();
  }
  const exporting::PytorchExport e = exporting::export_pytorch(
      *m.gpt, ctx, {.dir = a.pytorch, .tokenizer = tokenizer, .check_ids = check_ids(m.recipe, 2, T), .check_rows = 2});
  std::cout << "export: " << e.dir << " (" << e.parameters << " parameters" << (a.ema ? ", EMA weights" : "") << ")\n";
  for (const std::string& f : e.files) std::cout << "  " << f << "\n";
  std::cout << "load it with: from model import load_for_eval; model = load_for_eval(\"" << e.dir
            << "\", \"cpu\")\ncheck it with: python3 " << e.dir << "/model.py " << e.dir << "\n";
}

}  // namespace

void add_export(CLI::App& app, const Home& home) {
  auto a = std::make_shared<ExportArgs>();
  a->ckpt = home.path("out/run/checkpoint.safetensors");
  auto* cmd = app.add_subcommand(
      "export",
      "Write a checkpoint's model for PyTorch: weights only (safetensors), config.json, a self-contained "
      "model.py with load_for_eval, a self-check and the tokenizer");
  cmd->add_option("--ckpt", a->ckpt, "Checkpoint (safetensors)")->capture_default_str();
  cmd->add_option("--pytorch", a->pytorch, "Folder to create (must not exist, or be empty)");
  cmd->add_option("--hf", a->hf, "Hugging Face transformers folder (refused for the baseline GPT: see the message)");
  cmd->add_option("--tokenizer", a->tokenizer, "Tokenizer to ship (default: the recipe's data.tokenizer)");
  cmd->add_option("--set", a->sets, "Override a field of the stored recipe");
  cmd->add_option("--check-tokens", a->check_tokens, "Tokens per row of the self-check (at most the model's length)")
      ->capture_default_str();
  cmd->add_flag("--ema", a->ema, "Export the EMA weights instead of the live ones");
  cmd->callback([a, home] { run_export(*a, home); });
}

}  // namespace nanotrn::cli
