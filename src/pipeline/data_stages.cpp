// The data stages. See data_stages.h.
#include "pipeline/data_stages.h"
#include "base/stopwatch.h"

#include <chrono>
#include <filesystem>
#include <tuple>

#include "base/error.h"
#include "base/format.h"
#include "data/synthetic.h"
#include "tokenizer/bpe_train.h"

namespace nanotrn::pipeline {

namespace fs = std::filesystem;

namespace {

void tell(const Say& say, const std::string& line) {
  if (say) say(line);
}

data::CorpusInfo corpus_stage(const std::string& dir, const Say& say) {
  if (fs::exists(dir + "/corpus.json")) {
    try {
      data::CorpusInfo info = data::verify_corpus(dir);  // its files, not only corpus.json
      info.reused = true;
      return info;
    } catch (const Error& e) {
      tell(say, "corpus: " + dir + " is not usable (" + e.message() + "): preparing the default corpus");
    }
  }
  return data::prepare_default_corpus(dir);
}

tokenizer::Tokenizer train_tokenizer(const std::string& corpus_dir, const std::string& dir, int32_t vocab,
                                     const Say& say) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<data::Document> docs = data::read_corpus_split(corpus_dir, "train");
  std::vector<std::string_view> views;
  for (const data::Document& d : docs) views.push_back(d.text);
  const tokenizer::BpeTrainOptions options{.vocab_size = vocab};
  tokenizer::Tokenizer tok(tokenizer::train_bpe(views, options));
  tok.save(dir);
  tell(say, "tokenizer: trained a byte-level BPE with V = " + std::to_string(vocab) + " on " +
                tokenizer::train_text_usage(views, options.doc_cap_chars).describe(options.doc_cap_chars) + " in " +
                format_number("%.1f", seconds_since(t0)) + " s -> " + dir);
  return tok;
}

}  // namespace

DataPaths data_paths(const recipe::Recipe& r) {
  for (const auto& [key, glob, prefix] :
       {std::tuple{"data.train", r.data.train, "train_"}, std::tuple{"data.val", r.data.val, "val_"}}) {
    check(!data::is_synthetic_source(glob),
          std::string(key) + " is '" + glob + "': a synthetic source needs no data (nothing to set up)");
    const std::string want = std::string(prefix) + "*.bin";
    check(fs::path(glob).filename() == want, std::string(key) + " is '" + glob +
                                                 "': data setup writes shards as <dir>/" + want +
                                                 ", so the glob must end in /" + want);
  }
  const std::string train_dir = fs::path(r.data.train).parent_path().string(),
                    val_dir = fs::path(r.data.val).parent_path().string();
  check(train_dir == val_dir, "data.train ('" + r.data.train + "') and data.val ('" + r.data.val +
                                  "') must name one shard folder for data setup to build them");
  return {r.data.corpus, r.data.tokenizer, train_dir.empty() ? "." : train_dir};
}

std::optional<tokenizer::Tokenizer> reusable_tokenizer(const std::string& dir, int32_t vocab, const Say& say) {
  if (!fs::exists(dir)) return std::nullopt;
  try {
    tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(dir);
    if (tok.vocab_size() == vocab) return tok;
    tell(say, "tokenizer: " + dir + " has V = " + std::to_string(tok.vocab_size()) + ", " + std::to_string(vocab) +
                  " is needed");
  } catch (const Error& e) {
    tell(say, "tokenizer: " + dir + " is not usable (" + e.message() + ")");
  }
  return std::nullopt;
}

DataSetup setup_data(const recipe::Recipe& recipe, const Say& say) {
  const DataPaths p = data_paths(recipe);
  const int32_t vocab = static_cast<int32_t>(recipe.model.vocab_size);
  std::vector<std::pair<std::string, double>> seconds;

  auto t0 = std::chrono::steady_clock::now();
  const data::CorpusInfo corpus = corpus_stage(p.corpus, say);
  tell(say, "corpus: " + std::string(corpus.reused ? "reusing " : "prepared ") + p.corpus + " (" +
                std::to_string(corpus.train.docs) + " train / " + std::to_string(corpus.val.docs) + " val documents, " +
                std::to_string(corpus.train.bytes + corpus.val.bytes) + " bytes)");
  seconds.emplace_back("prepare corpus", seconds_since(t0));

  t0 = std::chrono::steady_clock::now();
  std::optional<tokenizer::Tokenizer> kept = reusable_tokenizer(p.tokenizer, vocab, say);
  const bool tokenizer_reused = kept.has_value();
  if (tokenizer_reused) tell(say, "tokenizer: reusing " + p.tokenizer + " (V = " + std::to_string(vocab) + ")");
  tokenizer::Tokenizer tok = tokenizer_reused ? *kept : train_tokenizer(p.corpus, p.tokenizer, vocab, say);
  seconds.emplace_back("train tokenizer", seconds_since(t0));

  t0 = std::chrono::steady_clock::now();
  data::ShardSet shards = data::tokenize_corpus(p.corpus, tok, p.shards);
  const std::string bytes_per_token =
      shards.val_tokens > 0
          ? format_number("%.3f", static_cast<double>(shards.val_bytes) / static_cast<double>(shards.val_tokens))
          : std::string("no");
  tell(say, "tokens: " + std::string(shards.reused ? "reusing " : "wrote ") + p.shards + " (" +
                std::to_string(shards.train_tokens) + " train / " + std::to_string(shards.val_tokens) +
                " val tokens, " + bytes_per_token + " val bytes/token)");
  seconds.emplace_back("tokenize", seconds_since(t0));
  return DataSetup{corpus, std::move(tok), tokenizer_reused, std::move(shards), std::move(seconds)};
}

}  // namespace nanotrn::pipeline
