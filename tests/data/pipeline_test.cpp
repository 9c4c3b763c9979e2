// The pipeline stages end to end: corpus folder -> BPE tokenizer -> train/val shards -> loader; reuse of valid
// outputs; and the default Brown corpus (installed by scripts/setup.sh; this test fails when it is missing).
#include <gtest/gtest.h>

#include <filesystem>

#include "base/file.h"
#include "data/brown.h"
#include "data/corpus.h"
#include "data/jsonl.h"
#include "data/loader.h"
#include "data/shard.h"
#include "data/temp_dir.h"
#include "data/tokenize_corpus.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/text_gen.h"

namespace nanotrn::data {
namespace {

TEST(Pipeline, CorpusTokenizerShardsLoader) {
  testing::TempDir dir;
  std::vector<Document> docs;
  for (int i = 0; i < 200; ++i) {
    Document d;
    d.id = "d";
    d.id += std::to_string(i);
    d.text = tokenizer::testing::synthetic_text(50 + i % 30, 300 + i);
    docs.push_back(std::move(d));
  }
  const std::string jsonl = format_jsonl(docs);
  write_file_atomic(dir / "in.jsonl", jsonl.data(), jsonl.size());

  const CorpusInfo info = prepare_corpus({dir / "in.jsonl"}, dir / "corpus", {.val_fraction = 0.2});
  ASSERT_EQ(info.train.docs + info.val.docs, 200);
  const auto train_docs = read_corpus_split(dir / "corpus", "train");
  std::vector<std::string_view> texts;
  for (const auto& d : train_docs) texts.push_back(d.text);
  tokenizer::BpeTrainOptions o;
  o.vocab_size = 512;
  const tokenizer::Tokenizer tok(tokenizer::train_bpe(texts, o));

  TokenizeOptions t;
  t.shard_tokens = 3000;  // several shards, documents never split
  const ShardSet s = tokenize_corpus(dir / "corpus", tok, dir / "shards", t);
  EXPECT_FALSE(s.reused);
  EXPECT_GT(s.train_shards.size(), 1u);
  // The shards hold exactly BOS + encode(text) per document, in order.
  std::vector<int32_t> all;
  for (const std::string& p : s.train_shards) {
    const MappedShard m(p, tok.vocab_size());
    EXPECT_LE(m.view().count, 3000);
    EXPECT_EQ(m.view().at(0), tok.bos_id());
    for (int64_t i = 0; i < m.view().count; ++i) all.push_back(m.view().at(i));
  }
  std::vector<int32_t> want;
  for (const auto& d : train_docs) {
    want.push_back(tok.bos_id());
    const auto ids = tok.encode(d.text);
    want.insert(want.end(), ids.begin(), ids.end());
  }
  EXPECT_EQ(all, want);
  EXPECT_EQ(s.train_tokens, static_cast<int64_t>(want.size()));
  EXPECT_EQ(read_shard_set(dir / "shards").train_shards, s.train_shards);
  EXPECT_TRUE(tokenize_corpus(dir / "corpus", tok, dir / "shards", t).reused);

  LoaderOptions lo;
  lo.rows = 2;
  lo.seq_len = 64;
  lo.bos = tok.bos_id();
  lo.vocab_size = tok.vocab_size();
  Loader loader(s.train_shards, lo);
  std::vector<int32_t> x(128), y(128);
  loader.next(x.data(), y.data());
  EXPECT_EQ(x[0], tok.bos_id());
  EXPECT_EQ(x[64], tok.bos_id());
  Loader val(s.val_shards, lo);
  val.next(x.data(), y.data());
}

TEST(Pipeline, DefaultBrownCorpus) {
  testing::TempDir dir;
  const CorpusInfo info = prepare_default_corpus(dir / "corpus");
  EXPECT_EQ(info.train.docs + info.val.docs, 500);  // the 500 samples of the Brown corpus
  EXPECT_GT(info.val.docs, 25);
  EXPECT_LT(info.val.docs, 80);
  EXPECT_GT(info.train.bytes, 5'000'000);
  const auto val = read_corpus_split(dir / "corpus", "val");
  for (const Document& d : val) {
    EXPECT_EQ(d.id.rfind("brown/c", 0), 0u);
    EXPECT_EQ(d.text.find("/nn"), std::string::npos) << d.id;  // tags are gone
    EXPECT_EQ(d.text.find("``"), std::string::npos) << d.id;
    EXPECT_NE(d.text.find("\n\n"), std::string::npos) << d.id;  // paragraphs kept
  }
  EXPECT_TRUE(prepare_default_corpus(dir / "corpus").reused);
  // The pre-split's ASCII fast path agrees with plain PCRE2 on real text.
  const tokenizer::Pretokenizer split;
  for (const Document& d : val) {
    std::vector<std::string_view> fast, slow;
    split.split(d.text, &fast);
    split.split_pcre2(d.text, &slow);
    ASSERT_EQ(fast, slow) << d.id;
  }
}

}  // namespace
}  // namespace nanotrn::data

namespace nanotrn::data {
namespace {

TEST(Pipeline, RetokenizingRemovesStaleShards) {
  testing::TempDir dir;
  std::vector<Document> docs;
  for (int i = 0; i < 60; ++i) {
    Document d;
    d.id = "doc";
    d.id += std::to_string(i);
    d.text = tokenizer::testing::synthetic_text(80, 900 + i);
    docs.push_back(std::move(d));
  }
  const std::string jsonl = format_jsonl(docs);
  write_file_atomic(dir / "in.jsonl", jsonl.data(), jsonl.size());
  prepare_corpus({dir / "in.jsonl"}, dir / "corpus", {.val_fraction = 0.1});
  std::vector<std::string_view> texts;
  for (const auto& d : docs) texts.push_back(d.text);
  tokenizer::BpeTrainOptions o;
  o.vocab_size = 400;
  const tokenizer::Tokenizer tok(tokenizer::train_bpe(texts, o));
  TokenizeOptions small;
  small.shard_tokens = 500;
  const ShardSet many = tokenize_corpus(dir / "corpus", tok, dir / "shards", small);
  ASSERT_GT(many.train_shards.size(), 3u);
  TokenizeOptions big;
  big.force = true;
  const ShardSet one = tokenize_corpus(dir / "corpus", tok, dir / "shards", big);
  EXPECT_EQ(one.train_shards.size(), 1u);
  int bins = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "shards")) bins += e.path().extension() == ".bin";
  EXPECT_EQ(bins, 2);  // train_000000.bin and val_000000.bin only
}

}  // namespace
}  // namespace nanotrn::data
