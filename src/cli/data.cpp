// `nanotrn data setup|prepare|stats|tokenize`: everything a recipe names (pipeline/data_stages.h), or the corpus and
// shard stages one at a time (src/data/).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "base/error.h"
#include "base/file.h"
#include "cli/commands.h"
#include "cli/recipe_args.h"
#include "data/corpus.h"
#include "data/tokenize_corpus.h"
#include "pipeline/data_stages.h"
#include "recipe/recipe.h"
#include "tokenizer/tokenizer.h"

namespace nanotrn::cli {

namespace {

void print_split(const char* name, const data::SplitCounts& c) {
  std::printf("%-5s  %8lld docs  %12lld bytes  %12lld chars\n", name, static_cast<long long>(c.docs),
              static_cast<long long>(c.bytes), static_cast<long long>(c.chars));
}

void add_data_setup(CLI::App& data, const Home& home) {
  auto* cmd = data.add_subcommand(
      "setup",
      "Build exactly the data a recipe names, skipping what is already valid: its corpus (data.corpus; the Brown "
      "corpus unless a prepared corpus is there), a BPE tokenizer of model.vocab_size tokens (data.tokenizer) and "
      "the token shards it reads (data.train, data.val)");
  auto a = std::make_shared<RecipeArgs>();
  auto write_recipe = std::make_shared<std::string>();
  add_recipe_flags(cmd, *a, home);
  cmd->add_option("--write-recipe", *write_recipe,
                  "Also write the recipe with the paths the data ended in (never over an existing file), and name it "
                  "in the next command");
  cmd->callback([a, home, write_recipe] {
    check(write_recipe->empty() || !std::filesystem::exists(*write_recipe),
          "--write-recipe " + *write_recipe + " exists; nanotrn does not overwrite it (choose a new name)");
    recipe::Recipe r = open_recipe(*a, home);
    const pipeline::DataSetup d = pipeline::setup_data(r, [](const std::string& line) { std::cerr << line << "\n"; });
    std::vector<std::string> sets = a->sets;
    for (const std::string& s : pipeline::setup_overrides(r, d)) sets.push_back(s);
    std::string next = command_line("train", a->recipe, sets);
    if (!write_recipe->empty()) {
      pipeline::use_setup_shards(r, d);
      const std::string text = recipe::recipe_to_json(r).dump(2) + "\n";
      write_file_atomic(*write_recipe, text.data(), text.size());
      next = command_line("train", *write_recipe, {});
    }
    std::printf("data setup: corpus %s, tokenizer %s, shards %s; next: %s\n", d.corpus.reused ? "kept" : "prepared",
                d.tokenizer_reused ? "kept" : "trained", d.shards.reused ? "kept" : "written", next.c_str());
  });
}

void add_data_prepare(CLI::App& data, const Home& home) {
  auto* cmd = data.add_subcommand("prepare",
                                  "Build a corpus folder (train.jsonl, val.jsonl) from plain text files, folders, "
                                  "JSONL or Parquet files; with no sources, the default corpus (Brown, from "
                                  "scripts/setup.sh)");
  struct Args {
    std::vector<std::string> sources;
    std::string out;
    double val_fraction = 0.1;
    bool force = false;
    std::string field = data::kDefaultTextField;
  };
  auto a = std::make_shared<Args>();
  a->out = home.path(data::kDefaultCorpusDir);
  cmd->add_option("sources", a->sources,
                  "Plain UTF-8 text files, folders, .jsonl files or Parquet files (default: the Brown corpus); any "
                  "other file is an error");
  cmd->add_option("--out", a->out, "Corpus folder")->capture_default_str();
  cmd->add_option("--val-fraction", a->val_fraction, "Fraction of documents (by id hash) in validation")
      ->capture_default_str();
  add_text_field_flag(cmd, a->field);
  cmd->add_flag("--force", a->force, "Rebuild even when the folder is already valid");
  cmd->callback([a] {
    check(!a->sources.empty() || a->field == data::kDefaultTextField,
          "data prepare: --field names the text of JSONL and Parquet sources; the default corpus has none");
    const data::PrepareOptions o{
        .val_fraction = a->val_fraction, .force = a->force, .field = a->field, .say = [](const std::string& line) {
          std::printf("%s\n", line.c_str());
        }};
    const data::CorpusInfo info =
        a->sources.empty() ? data::prepare_default_corpus(a->out, o) : data::prepare_corpus(a->sources, a->out, o);
    if (!info.rebuilt_because.empty())
      std::printf("rebuilding %s: %s\n", info.dir.c_str(), info.rebuilt_because.c_str());
    std::printf("%s %s\n", info.reused ? "kept" : "wrote", info.dir.c_str());
    print_split("train", info.train);
    print_split("val", info.val);
  });
}

void add_data_stats(CLI::App& data, const Home& home) {
  auto* cmd = data.add_subcommand("stats",
                                  "Documents, bytes and characters per split; tokens and bytes/token "
                                  "once tokenized");
  auto corpus = std::make_shared<std::string>(home.path(data::kDefaultCorpusDir));
  auto shards = std::make_shared<std::string>(home.path(data::kDefaultShardDir));
  cmd->add_option("--corpus", *corpus, "Corpus folder")->capture_default_str();
  cmd->add_option("--shards", *shards, "Shard folder (skipped when it has no shards.json)")->capture_default_str();
  cmd->callback([corpus, shards] {
    const data::CorpusInfo info = data::verify_corpus(*corpus);
    const std::string field = info.field == data::kDefaultTextField ? "" : ", field '" + info.field + "'";
    std::printf("corpus %s (val fraction %g%s)\n", corpus->c_str(), info.val_fraction, field.c_str());
    print_split("train", info.train);
    print_split("val", info.val);
    if (std::filesystem::exists(*shards + "/shards.json")) {
      const data::ShardSet s = data::read_shard_set(*shards);
      std::printf("shards %s (vocab %d, BOS %d)\n", shards->c_str(), s.vocab_size, s.bos);
      // Tokens include one BOS per document; bytes/token counts text tokens only, as val_bpb does.
      const double train_bpt =
          static_cast<double>(s.train_bytes) / static_cast<double>(s.train_tokens - info.train.docs);
      const double val_bpt = static_cast<double>(s.val_bytes) / static_cast<double>(s.val_tokens - info.val.docs);
      std::printf("train  %12lld tokens  %6.3f bytes/token  %zu shards\n", static_cast<long long>(s.train_tokens),
                  train_bpt, s.train_shards.size());
      std::printf("val    %12lld tokens  %6.3f bytes/token  %zu shards\n", static_cast<long long>(s.val_tokens),
                  val_bpt, s.val_shards.size());
    }
  });
}

void add_data_tokenize(CLI::App& data, const Home& home) {
  auto* cmd = data.add_subcommand("tokenize", "Tokenize a corpus folder into train/val .bin shards");
  struct Args {
    explicit Args(const Home& h)
        : corpus(h.path(data::kDefaultCorpusDir)),
          tokenizer(h.path(data::kDefaultTokenizerDir)),
          out(h.path(data::kDefaultShardDir)) {}
    std::string corpus, tokenizer, out;
    int64_t shard_tokens = 100'000'000;
    int threads = 0;
    bool force = false;
  };
  auto a = std::make_shared<Args>(home);
  cmd->add_option("--corpus", a->corpus, "Corpus folder")->capture_default_str();
  cmd->add_option("--tokenizer", a->tokenizer, "Tokenizer folder or file (.tiktoken, .model)")->capture_default_str();
  cmd->add_option("--out", a->out, "Shard folder")->capture_default_str();
  cmd->add_option("--shard-tokens", a->shard_tokens, "Tokens per shard at most")->capture_default_str();
  cmd->add_option("--threads", a->threads, "Encoder threads (0: all)");
  cmd->add_flag("--force", a->force, "Rebuild even when the shards are up to date");
  cmd->callback([a] {
    const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(a->tokenizer);
    const data::ShardSet s = data::tokenize_corpus(a->corpus, tok, a->out, {a->shard_tokens, a->threads, a->force});
    std::printf("%s %s: train %lld tokens in %zu shards, val %lld tokens in %zu shards\n", s.reused ? "kept" : "wrote",
                s.dir.c_str(), static_cast<long long>(s.train_tokens), s.train_shards.size(),
                static_cast<long long>(s.val_tokens), s.val_shards.size());
  });
}

}  // namespace

void add_data(CLI::App& app, const Home& home) {
  auto* data = app.add_subcommand("data", "Corpora and token shards");
  data->require_subcommand(1);
  add_data_setup(*data, home);
  add_data_prepare(*data, home);
  add_data_stats(*data, home);
  add_data_tokenize(*data, home);
}

}  // namespace nanotrn::cli
