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

bool holds_anything(const std::string& dir) {
  return fs::exists(dir) && (!fs::is_directory(dir) || !fs::is_empty(dir));
}

// data.corpus: kept when it holds a prepared corpus; the default corpus is prepared only into a missing or empty
// folder (a folder holding anything else, an unusable corpus included, is the user's: never written over).
data::CorpusInfo corpus_stage(const std::string& dir) {
  if (fs::exists(dir + "/corpus.json")) {
    try {
      data::CorpusInfo info = data::verify_corpus(dir);  // its files, not only corpus.json
      info.reused = true;
      return info;
    } catch (const Error& e) {
      throw Error("data.corpus: " + dir + " holds a corpus that is not usable (" + e.message() +
                  "); nanotrn does not write over it: repair it (nanotrn data prepare --out " + dir +
                  " --force SOURCES), remove it, or name another folder (--set data.corpus=NEW)");
    }
  }
  check(!holds_anything(dir), "data.corpus: " + dir +
                                  " is not empty and holds no corpus.json; nanotrn does not write into it: prepare "
                                  "your text there (nanotrn data prepare --out " +
                                  dir + " SOURCES), or name a new folder (--set data.corpus=NEW)");
  return data::prepare_default_corpus(dir);
}

// The shard folder: the recipe's, unless it holds the shards of another tokenizer or corpus (a readable shards.json
// with other fingerprints); then a sibling keyed by both fingerprints, so that neither set is overwritten.
std::string shard_folder(const std::string& dir, const std::string& tokenizer_fp, const std::string& corpus_fp) {
  if (!fs::exists(dir + "/shards.json")) return dir;
  data::ShardSet there;
  try {
    there = data::read_shard_set(dir);
  } catch (const Error&) {
    return dir;  // a torn manifest: an interrupted tokenize of ours, rebuilt in place
  }
  if (there.tokenizer_fingerprint == tokenizer_fp && there.corpus_fingerprint == corpus_fp) return dir;
  return dir + "-" + tokenizer_fp.substr(0, 8) + corpus_fp.substr(0, 8);
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

std::optional<tokenizer::Tokenizer> reusable_tokenizer(const std::string& dir, int32_t vocab, const std::string& what,
                                                       const std::string& elsewhere) {
  if (!holds_anything(dir)) return std::nullopt;
  std::optional<tokenizer::Tokenizer> tok;
  try {
    tok = tokenizer::Tokenizer::load(dir);
  } catch (const Error& e) {
    throw Error(what + ": " + dir + " holds no usable tokenizer (" + e.message() +
                "); nanotrn does not write over it: name a new folder (" + elsewhere + ")");
  }
  const std::string have = std::to_string(tok->vocab_size()), want = std::to_string(vocab);
  check(tok->vocab_size() == vocab, what + ": " + dir + " holds a tokenizer of " + have + " tokens, not the " + want +
                                        " asked for; nanotrn does not write over it: ask for " + have +
                                        " tokens to use it (model.vocab_size, --vocab), or name a new folder for a " +
                                        want + "-token tokenizer (" + elsewhere + ")");
  return tok;
}

std::vector<std::string> setup_overrides(const recipe::Recipe& r, const DataSetup& d) {
  if (d.shards.dir == data_paths(r).shards) return {};
  return {"data.train=" + d.shards.dir + "/train_*.bin", "data.val=" + d.shards.dir + "/val_*.bin"};
}

void use_setup_shards(recipe::Recipe& r, const DataSetup& d) {
  r.data.train = d.shards.dir + "/train_*.bin";
  r.data.val = d.shards.dir + "/val_*.bin";
}

namespace {

// The three stages, the corpus's by `make_corpus` (the data root's rule, corpus_stage, or a data folder's sources).
DataSetup run_stages(const recipe::Recipe& recipe,
                     const std::function<data::CorpusInfo(const std::string&)>& make_corpus, const Say& say) {
  const DataPaths p = data_paths(recipe);
  const int32_t vocab = static_cast<int32_t>(recipe.model.vocab_size);
  std::vector<std::pair<std::string, double>> seconds;

  auto t0 = std::chrono::steady_clock::now();
  const data::CorpusInfo corpus = make_corpus(p.corpus);
  tell(say, "corpus: " + std::string(corpus.reused ? "reusing " : "prepared ") + p.corpus + " (" +
                std::to_string(corpus.train.docs) + " train / " + std::to_string(corpus.val.docs) + " val documents, " +
                std::to_string(corpus.train.bytes + corpus.val.bytes) + " bytes)");
  seconds.emplace_back("prepare corpus", seconds_since(t0));

  t0 = std::chrono::steady_clock::now();
  std::optional<tokenizer::Tokenizer> kept =
      reusable_tokenizer(p.tokenizer, vocab, "data.tokenizer", "--set data.tokenizer=NEW");
  const bool tokenizer_reused = kept.has_value();
  if (tokenizer_reused) tell(say, "tokenizer: reusing " + p.tokenizer + " (V = " + std::to_string(vocab) + ")");
  tokenizer::Tokenizer tok = tokenizer_reused ? *kept : train_tokenizer(p.corpus, p.tokenizer, vocab, say);
  seconds.emplace_back("train tokenizer", seconds_since(t0));

  t0 = std::chrono::steady_clock::now();
  const std::string folder =
      shard_folder(p.shards, data::tokenizer_fingerprint_hex(tok), data::corpus_fingerprint(p.corpus));
  if (folder != p.shards) {
    tell(say, "tokens: " + p.shards + " holds the shards of another tokenizer or corpus; writing " + folder +
                  " beside it (nothing is overwritten; the next command names it)");
  }
  data::ShardSet shards = data::tokenize_corpus(p.corpus, tok, folder);
  const std::string bytes_per_token =
      shards.val_tokens > 0
          ? format_number("%.3f", static_cast<double>(shards.val_bytes) / static_cast<double>(shards.val_tokens))
          : std::string("no");
  tell(say, "tokens: " + std::string(shards.reused ? "reusing " : "wrote ") + folder + " (" +
                std::to_string(shards.train_tokens) + " train / " + std::to_string(shards.val_tokens) +
                " val tokens, " + bytes_per_token + " val bytes/token)");
  seconds.emplace_back("tokenize", seconds_since(t0));
  return DataSetup{corpus, std::move(tok), tokenizer_reused, std::move(shards), std::move(seconds)};
}

}  // namespace

DataSetup setup_data(const recipe::Recipe& recipe, const Say& say) { return run_stages(recipe, corpus_stage, say); }

std::vector<std::string> data_folder_sets(const std::string& dir) {
  return {"data.corpus=" + dir + "/corpus", "data.tokenizer=" + dir + "/tokenizer",
          "data.train=" + dir + "/tokens/train_*.bin", "data.val=" + dir + "/tokens/val_*.bin"};
}

DataSetup setup_data_folder(const recipe::Recipe& recipe, const std::vector<std::string>& sources,
                            const data::PrepareOptions& options, const Say& say) {
  const DataPaths p = data_paths(recipe);
  const std::string dir = fs::path(p.corpus).parent_path().string();
  check(p.corpus == dir + "/corpus" && p.tokenizer == dir + "/tokenizer" && p.shards == dir + "/tokens",
        "a data folder's recipe reads " + p.corpus + ", " + p.tokenizer + " and " + p.shards +
            ": not one folder's corpus, tokenizer and tokens (data_folder_sets)");
  const DataSetup d = run_stages(
      recipe,
      [&](const std::string& corpus_dir) {
        data::CorpusInfo info = data::prepare_corpus(sources, corpus_dir, options);
        if (!info.rebuilt_because.empty()) tell(say, "corpus: rebuilding " + corpus_dir + ": " + info.rebuilt_because);
        return info;
      },
      say);
  check(d.shards.dir == p.shards, p.shards +
                                      " holds the shards of another tokenizer or corpus (nanotrn does not write "
                                      "over them; these went to " +
                                      d.shards.dir +
                                      "), and the job reads only its own folder's: give the job a new folder");
  return d;
}

}  // namespace nanotrn::pipeline
