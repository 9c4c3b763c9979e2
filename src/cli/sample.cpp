// `nanotrn sample --ckpt C --prompt "..."`: text from a checkpoint with its recipe's tokenizer (model/sample.h).
#include <iostream>

#include "base/error.h"
#include "cli/commands.h"
#include "eval/finite_weights.h"
#include "model/sample.h"
#include "tokenizer/tokenizer.h"
#include "train/checkpoint.h"

namespace nanotrn::cli {

void add_sample(CLI::App& app, const Home& home) {
  struct Args {
    std::string ckpt, prompt = "The", tokenizer;
    int64_t max_tokens = 64, top_k = 0, count = 1;
    float temperature = 0.8f;
    uint64_t seed = 0;
  };
  auto args = std::make_shared<Args>();
  args->ckpt = home.path("out/run/checkpoint.safetensors");
  auto* cmd = app.add_subcommand("sample", "Generate text from a checkpoint (KV cache; greedy, temperature, top-k)");
  cmd->add_option("--ckpt", args->ckpt, "Checkpoint (safetensors)")->capture_default_str();
  cmd->add_option("--prompt", args->prompt, "Prompt text (BOS is prepended)")->capture_default_str();
  cmd->add_option("--tokenizer", args->tokenizer, "Tokenizer (default: the recipe's data.tokenizer)");
  cmd->add_option("--max-tokens", args->max_tokens, "New tokens per sample")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--temperature", args->temperature, "0 = greedy")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--top-k", args->top_k, "Sample among the k most likely tokens (0 = all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--count", args->count, "Number of samples")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--seed", args->seed, "Sampling seed")->capture_default_str();
  cmd->callback([args, home] {
    const train::Checkpoint c = train::load_checkpoint(args->ckpt);
    const tokenizer::Tokenizer tok =
        tokenizer::Tokenizer::load(args->tokenizer.empty() ? home.path(c.recipe.data.tokenizer) : args->tokenizer);
    check(tok.vocab_size() == c.recipe.model.vocab_size, "sample: the tokenizer has " +
                                                             std::to_string(tok.vocab_size()) + " tokens, the model " +
                                                             std::to_string(c.recipe.model.vocab_size));
    Engine engine;
    Ctx ctx{engine};
    model::Gpt gpt(ctx, model::resolve(c.recipe.model), c.recipe.seed);
    train::restore_model(gpt, c);
    check_finite_weights(gpt, args->ckpt);
    std::vector<int32_t> prompt = {tok.bos_id()};
    for (int32_t id : tok.encode(args->prompt)) prompt.push_back(id);
    for (int64_t i = 0; i < args->count; i++) {
      const std::vector<int32_t> out = model::generate(ctx, gpt, prompt,
                                                       {.max_tokens = args->max_tokens,
                                                        .temperature = args->temperature,
                                                        .top_k = args->top_k,
                                                        .seed = args->seed + static_cast<uint64_t>(i),
                                                        .stop_token = tok.bos_id()});
      std::cout << args->prompt << tok.decode(out) << "\n";
      if (i + 1 < args->count) std::cout << "---\n";
    }
  });
}

}  // namespace nanotrn::cli
