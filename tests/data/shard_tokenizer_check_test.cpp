// The shards-against-tokenizer rule (data/shard_tokenizer_check.h): shards read with the tokenizer that wrote them
// pass; another tokenizer (another vocabulary size, or the same size trained on other text) or a shards.json that
// does not record its tokenizer is an Error naming both files and both values.
#include "data/shard_tokenizer_check.h"

#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "data/corpus.h"
#include "data/jsonl.h"
#include "data/temp_dir.h"
#include "data/tokenize_corpus.h"
#include "support/error_of.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/text_gen.h"

namespace nanotrn::data {
namespace {

tokenizer::Tokenizer train_tokenizer(int32_t vocab, int seed) {
  std::vector<std::string> texts;
  for (int i = 0; i < 30; ++i) texts.push_back(tokenizer::testing::synthetic_text(60, seed + i));
  std::vector<std::string_view> views(texts.begin(), texts.end());
  return tokenizer::Tokenizer(tokenizer::train_bpe(views, {.vocab_size = vocab}));
}

TEST(ShardTokenizerCheck, RefusesShardsOfAnotherTokenizerNamingBoth) {
  testing::TempDir dir;
  std::vector<Document> docs;
  for (int i = 0; i < 40; ++i) docs.push_back({"d" + std::to_string(i), tokenizer::testing::synthetic_text(40, i)});
  const std::string jsonl = format_jsonl(docs);
  write_file_atomic(dir / "in.jsonl", jsonl.data(), jsonl.size());
  prepare_corpus({dir / "in.jsonl"}, dir / "corpus", {.val_fraction = 0.2});
  const tokenizer::Tokenizer small = train_tokenizer(300, 1), big = train_tokenizer(400, 1),
                             same_size = train_tokenizer(300, 500);
  ASSERT_EQ(small.vocab_size(), same_size.vocab_size());
  ASSERT_NE(tokenizer_fingerprint_hex(small), tokenizer_fingerprint_hex(same_size));
  tokenize_corpus(dir / "corpus", small, dir / "shards");
  const std::string fix = "nanotrn data setup --recipe x";

  EXPECT_EQ(
      testing_support::error_message_of([&] { check_shards_match_tokenizer(dir / "shards", small, "tokA", fix); }), "");

  const std::string bigger =
      testing_support::error_message_of([&] { check_shards_match_tokenizer(dir / "shards", big, "tokB", fix); });
  EXPECT_NE(
      bigger.find(dir / "shards/shards.json" + " records vocab 300, fingerprint " + tokenizer_fingerprint_hex(small)),
      std::string::npos)
      << bigger;
  EXPECT_NE(bigger.find("the tokenizer at tokB has vocab 400, fingerprint " + tokenizer_fingerprint_hex(big)),
            std::string::npos)
      << bigger;
  EXPECT_NE(bigger.find("; run: " + fix), std::string::npos) << bigger;

  // Same vocabulary size, other merges: the fingerprint tells them apart.
  const std::string other =
      testing_support::error_message_of([&] { check_shards_match_tokenizer(dir / "shards", same_size, "tokC", fix); });
  EXPECT_NE(other.find("the tokenizer at tokC has vocab 300, fingerprint " + tokenizer_fingerprint_hex(same_size)),
            std::string::npos)
      << other;

  // A shards.json that predates the fingerprint: cannot be checked, so it must be re-tokenized.
  const std::vector<uint8_t> bytes = read_file(dir / "shards/shards.json");
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end());
  j.erase("tokenizer");
  const std::string old = j.dump();
  write_file_atomic(dir / "shards/shards.json", old.data(), old.size());
  const std::string stale =
      testing_support::error_message_of([&] { check_shards_match_tokenizer(dir / "shards", small, "tokA", fix); });
  EXPECT_NE(stale.find(dir / "shards/shards.json" + " does not record the tokenizer"), std::string::npos) << stale;
  EXPECT_NE(stale.find("nanotrn data tokenize"), std::string::npos) << stale;

  // Shards without a shards.json come from another tool: nothing to compare, and the caller is told so.
  EXPECT_EQ(testing_support::error_message_of([&] { check_shards_match_tokenizer(dir / "corpus", big, "tokB", fix); }),
            "");
  EXPECT_FALSE(check_shards_match_tokenizer(dir / "corpus", big, "tokB", fix));
  write_file_atomic(dir / "shards/shards.json", bytes.data(), bytes.size());
  EXPECT_TRUE(check_shards_match_tokenizer(dir / "shards", small, "tokA", fix));
}

}  // namespace
}  // namespace nanotrn::data
