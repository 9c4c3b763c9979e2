// Token sources over the data pipeline's shards (data/loader.h) and the tokenizer's token-bytes table.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"
#include "data/loader.h"
#include "data/shard.h"
#include "data/shard_tokenizer_check.h"
#include "data/tokenize_corpus.h"
#include "tokenizer/tokenizer.h"
#include "train/data_setup.h"

namespace nanotrn::train {

namespace {

std::vector<std::string> expand(const std::string& pattern, const std::string& field, const std::string& setup) {
  std::vector<std::string> out = data::glob_shards(pattern);
  check(!out.empty(),
        field + " '" + pattern + "' matches no shard file; run: " + setup + " (or point " + field + " at .bin shards)");
  return out;
}

class ShardSource final : public TokenSource {
 public:
  ShardSource(std::vector<std::string> paths, data::LoaderOptions o) : loader_(std::move(paths), o), rows_(o.rows) {}
  void next(int64_t rows, int64_t seq_len, int32_t* inputs, int32_t* targets) override {
    check(rows == rows_ && seq_len == loader_.options().seq_len,
          "shard source: opened for " + std::to_string(rows_) + " x " + std::to_string(loader_.options().seq_len) +
              " batches, asked for " + std::to_string(rows) + " x " + std::to_string(seq_len));
    loader_.next(inputs, targets);
  }
  nlohmann::json state() const override { return loader_.state(); }
  void restore(const nlohmann::json& s) override { loader_.restore(s); }
  std::string describe() const override { return std::to_string(loader_.documents()) + " documents"; }

 private:
  data::Loader loader_;
  int64_t rows_;
};

}  // namespace

TrainerData open_shard_data(const recipe::Recipe& r, const std::string& setup_command, bool with_train) {
  const std::string setup = setup_command.empty() ? "nanotrn data setup --recipe " + r.name : setup_command;
  check(std::filesystem::exists(r.data.tokenizer),
        "data.tokenizer: no tokenizer at " + r.data.tokenizer + "; run: " + setup);
  const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(r.data.tokenizer);
  check(tok.vocab_size() == r.model.vocab_size,
        "the tokenizer at " + r.data.tokenizer + " has " + std::to_string(tok.vocab_size()) +
            " tokens but model.vocab_size is " + std::to_string(r.model.vocab_size) +
            " (set model.vocab_size to match, or run: " + setup + " to retrain it with model.vocab_size tokens)");
  TrainerData d;
  std::vector<std::string> unchecked;  // shard globs without a shards.json to check against the tokenizer
  d.bos = tok.bos_id();
  d.token_bytes = tok.token_bytes();
  auto open = [&](const std::string& glob, const std::string& field, int64_t rows, bool shuffle) {
    std::vector<std::string> paths = expand(glob, field, setup);
    if (!data::check_shard_glob_matches_tokenizer(glob, tok, r.data.tokenizer, setup)) unchecked.push_back(glob);
    return std::make_unique<ShardSource>(std::move(paths), data::LoaderOptions{.rows = rows,
                                                                               .seq_len = r.batch.seq_len,
                                                                               .layout = r.data.layout,
                                                                               .seed = r.seed,
                                                                               .shuffle = shuffle,
                                                                               .bos = d.bos,
                                                                               .vocab_size = tok.vocab_size()});
  };
  if (with_train) d.train = open(r.data.train, "data.train", r.batch.rows, true);
  d.val = open(r.data.val, "data.val", r.eval.rows, false);  // fixed order: every evaluation sees the same rows
  for (const std::string& glob : unchecked) {
    d.warnings.push_back(glob +
                         ": no shards.json beside these shards, so nothing checks that they were tokenized with " +
                         r.data.tokenizer +
                         "; shards of another tokenizer train and score (val_bpb) silently wrong. "
                         "Shards nanotrn makes always carry one (nanotrn data tokenize)");
  }
  if (with_train) {
    if (std::optional<std::string> other = data::shard_corpus_mismatch(r.data.train, r.data.corpus)) {
      d.warnings.push_back(*other);
    }
  }
  d.description = with_train ? "train " + r.data.train + " (" + d.train->describe() + "), " : "";
  d.description += "val " + r.data.val + " (" + d.val->describe() + "), tokenizer " + r.data.tokenizer + ", layout " +
                   std::string(data::layout_name(r.data.layout));
  return d;
}

}  // namespace nanotrn::train
