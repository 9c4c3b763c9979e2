// The unigram baseline of a recipe's data. See baseline.h.
#include "report/baseline.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include "data/shard.h"
#include "eval/unigram.h"
#include "tokenizer/tokenizer.h"

namespace nanotrn::report {

Baseline unigram_baseline(const recipe::Recipe& r) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (r.data.tokenizer.empty() || !std::filesystem::exists(r.data.tokenizer)) {
    return {nan, "data.tokenizer '" + r.data.tokenizer + "' not found"};
  }
  const std::vector<std::string> train = data::glob_shards(r.data.train), val = data::glob_shards(r.data.val);
  if (train.empty()) return {nan, "data.train '" + r.data.train + "' matches no shard"};
  if (val.empty()) return {nan, "data.val '" + r.data.val + "' matches no shard"};
  const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(r.data.tokenizer);
  UnigramModel u(tok.vocab_size());
  u.count(data::read_shard_ids(train, tok.vocab_size()));
  return {u.bpb(data::read_shard_ids(val, tok.vocab_size()), tok.token_bytes()), ""};
}

}  // namespace nanotrn::report
