// Byte-level BPE: pre-split, training against a naive full-recount reference, encoding against tiktoken's loop,
// lossless round trips for random bytes, the special-token layout and token_bytes.
#include "tokenizer/bpe.h"

#include <gtest/gtest.h>

#include <map>

#include "base/error.h"
#include "base/rng.h"
#include "tokenizer/bpe_reference.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/text_gen.h"

namespace nanotrn::tokenizer {
namespace {

std::string random_bytes(size_t n, uint64_t seed, uint32_t modulo = 256) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(random_u32(seed, 7, i) % modulo);
  return s;
}

BpeTrainOptions options(int32_t vocab, int64_t cap = 0) {
  BpeTrainOptions o;
  o.vocab_size = vocab;
  o.doc_cap_chars = cap;
  return o;
}

std::vector<std::string_view> views(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

TEST(Pretokenize, SplitsLikeTheGpt4PatternWithTwoDigitNumbers) {
  const Pretokenizer split;
  EXPECT_EQ(
      split.split("Hello world's 12345!!!\n\n  x'LL"),
      (std::vector<std::string_view>{"Hello", " world", "'s", " ", "12", "34", "5", "!!!\n\n", " ", " x", "'LL"}));
  EXPECT_EQ(split.split(" étude 中文"), (std::vector<std::string_view>{" étude", " 中文"}));
  EXPECT_EQ(split.split("a  \n b"), (std::vector<std::string_view>{"a", "  \n", " b"}));
}

TEST(Pretokenize, ChunksTileAnyByteString) {
  const Pretokenizer split;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    const std::string s = random_bytes(1 + seed * 37, seed);
    std::string joined;
    for (std::string_view c : split.split(s)) {
      EXPECT_FALSE(c.empty());
      joined += c;
    }
    EXPECT_EQ(joined, s) << "seed " << seed;
  }
}

TEST(BpeTrain, IncrementalMergesEqualNaiveFullRecount) {
  const Pretokenizer split;
  for (uint64_t seed : {1, 2, 3}) {
    const std::string text = testing::synthetic_text(3000, seed);
    const std::vector<std::string_view> docs = {text};
    const auto chunks = count_chunks(docs, split, 0, 1);
    const auto fast = learn_merges(chunks, 300);
    const auto slow = testing::naive_merges(chunks, 300);
    ASSERT_EQ(fast.size(), 300u);
    EXPECT_EQ(fast, slow) << "seed " << seed;
  }
}

TEST(BpeTrain, OverlappingPairsAndExhaustionMatchTheReference) {
  // Runs of one letter exercise overlapping pairs (aaaa) and the ban on duplicate token bytes; a tiny text runs out
  // of pairs before n_merges.
  const std::vector<std::pair<std::string, int64_t>> chunks = {{"aaaa", 5}, {"aaa", 3}, {"abab", 2}, {"ba", 7},
                                                               {"aab", 4},  {"abc", 1}, {"bcab", 2}};
  EXPECT_EQ(learn_merges(chunks, 100), testing::naive_merges(chunks, 100));
  EXPECT_LT(learn_merges(chunks, 100).size(), 100u);
}

TEST(BpeTrain, DefaultLayoutPutsBosAt8188) {
  const std::string text = testing::synthetic_text(60000, 11) + random_bytes(20000, 11, 128);
  const std::vector<std::string_view> docs = {text};
  const Bpe bpe = train_bpe(docs, options(8192));
  EXPECT_EQ(bpe.vocab_size(), 8192);
  EXPECT_EQ(bpe.n_ranks(), 8188);
  EXPECT_EQ(bpe.bos_id(), 8188);
  EXPECT_EQ(bpe.token(8188), "<|reserved_0|>");
  EXPECT_EQ(bpe.token(8191), "<|reserved_3|>");
  const std::vector<int32_t> tb = bpe.token_bytes();
  for (int id = 8188; id < 8192; ++id) EXPECT_EQ(tb[id], 0);
}

TEST(BpeTrain, TooSmallTextIsAnError) {
  const std::vector<std::string_view> docs = {"ab ab"};
  EXPECT_THROW(train_bpe(docs, options(1000)), Error);
}

class TrainedBpe : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    text_ = new std::string(testing::synthetic_text(20000, 5));
    const std::vector<std::string_view> docs = {*text_};
    bpe_ = new Bpe(train_bpe(docs, options(1024)));
  }
  static void TearDownTestSuite() {
    delete bpe_;
    delete text_;
  }
  static std::string* text_;
  static Bpe* bpe_;
};
std::string* TrainedBpe::text_ = nullptr;
Bpe* TrainedBpe::bpe_ = nullptr;

TEST_F(TrainedBpe, EncodeEqualsTiktokensLoopChunkByChunk) {
  std::map<std::string, int32_t> rank;
  for (int32_t i = 0; i < bpe_->n_ranks(); ++i) rank[bpe_->token(i)] = i;
  const Pretokenizer split;
  // Long chunks (over the heap threshold) come from long space runs, long words and random bytes.
  const std::string text = testing::synthetic_text(3000, 99) + std::string(300, ' ') + "x" + std::string(100, 'a') +
                           "b " + random_bytes(3000, 3) + random_bytes(500, 4, 128);
  std::vector<int32_t> want;
  for (std::string_view c : split.split(text)) {
    for (int32_t id : testing::naive_encode_chunk(rank, std::string(c))) want.push_back(id);
  }
  EXPECT_EQ(bpe_->encode(text), want);
}

TEST_F(TrainedBpe, RoundTripIsLosslessForRandomBytes) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const uint32_t modulo = seed % 3 == 0 ? 128 : 256;
    const std::string s = random_bytes(random_u32(seed, 9, 0) % 2000, seed, modulo);
    const std::vector<int32_t> ids = bpe_->encode(s);
    for (int32_t id : ids) ASSERT_LT(id, bpe_->n_ranks());
    ASSERT_EQ(bpe_->decode(ids), s) << "seed " << seed;
  }
  EXPECT_EQ(bpe_->decode(bpe_->encode(*text_)), *text_);
  EXPECT_TRUE(bpe_->encode("").empty());
}

TEST_F(TrainedBpe, BatchEqualsOneByOne) {
  std::vector<std::string> docs;
  for (uint64_t s = 0; s < 40; ++s) docs.push_back(testing::synthetic_text(200 + s * 10, 100 + s));
  const auto batch = bpe_->encode_batch(views(docs), 2);
  ASSERT_EQ(batch.size(), docs.size());
  for (size_t i = 0; i < docs.size(); ++i) EXPECT_EQ(batch[i], bpe_->encode(docs[i]));
}

TEST_F(TrainedBpe, TokenBytesSumToTheTextLengthForAsciiText) {
  // Every token of ASCII text is valid UTF-8 on its own, so both token_bytes variants count its bytes exactly.
  const std::string ascii = random_bytes(5000, 77, 128) + "plain words, 12345 and more";
  const std::vector<int32_t> tb = bpe_->token_bytes(), raw = bpe_->token_bytes(TokenBytes::raw);
  int64_t sum = 0, sum_raw = 0;
  for (int32_t id : bpe_->encode(ascii)) {
    sum += tb[id];
    sum_raw += raw[id];
  }
  EXPECT_EQ(sum, static_cast<int64_t>(ascii.size()));
  EXPECT_EQ(sum_raw, static_cast<int64_t>(ascii.size()));
}

TEST_F(TrainedBpe, CompressesItsTrainingText) {
  const double bytes_per_token = static_cast<double>(text_->size()) / bpe_->encode(*text_).size();
  EXPECT_GT(bytes_per_token, 1.8);  // random-letter words: far less compressible than prose
}

TEST(TokenBytes, DecodeThenReencodeLengths) {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.push_back(std::string(1, static_cast<char>(b)));
  tokens.push_back("ab");                 // 256: ASCII
  tokens.push_back("\xc3\xa9");           // 257: é, valid 2-byte
  tokens.push_back("\xe2\x82");           // 258: truncated 3-byte sequence: one U+FFFD
  tokens.push_back("\x80\x80");           // 259: two stray continuation bytes: two U+FFFD
  tokens.push_back("\xf0\x9f\x99\x82!");  // 260: emoji + '!'
  tokens.push_back("\xed\xa0\x80");       // 261: a UTF-16 surrogate: three U+FFFD (0xA0 is not valid after 0xED)
  const Bpe bpe(tokens, reserved_specials(2));
  const std::vector<int32_t> tb = bpe.token_bytes();
  ASSERT_EQ(tb.size(), 264u);
  EXPECT_EQ(tb['a'], 1);
  EXPECT_EQ(tb[0x80], 3);
  EXPECT_EQ(tb[0xff], 3);
  EXPECT_EQ(tb[256], 2);
  EXPECT_EQ(tb[257], 2);
  EXPECT_EQ(tb[258], 3);
  EXPECT_EQ(tb[259], 6);
  EXPECT_EQ(tb[260], 5);
  EXPECT_EQ(tb[261], 9);
  EXPECT_EQ(tb[262], 0);
  EXPECT_EQ(tb[263], 0);
  const std::vector<int32_t> raw = bpe.token_bytes(TokenBytes::raw);
  EXPECT_EQ(raw[0x80], 1);
  EXPECT_EQ(raw[258], 2);
  EXPECT_EQ(raw[262], 0);
}

TEST(Bpe, RejectsVocabulariesWithoutByteFallbackOrWithDuplicates) {
  std::vector<std::string> tokens;
  for (int b = 0; b < 255; ++b) tokens.push_back(std::string(1, static_cast<char>(b)));
  EXPECT_THROW(Bpe(tokens, {}), Error);
  tokens.push_back(std::string(1, '\xff'));
  tokens.push_back("a");
  EXPECT_THROW(Bpe(tokens, {}), Error);
}

TEST(Bpe, DecodeRejectsIdsOutsideTheVocabulary) {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.push_back(std::string(1, static_cast<char>(b)));
  const Bpe bpe(tokens, reserved_specials(1));
  EXPECT_EQ(bpe.decode(std::vector<int32_t>{104, 105, 256}), "hi<|reserved_0|>");
  EXPECT_THROW(bpe.decode(std::vector<int32_t>{257}), Error);
  EXPECT_THROW(bpe.decode(std::vector<int32_t>{-1}), Error);
}

}  // namespace
}  // namespace nanotrn::tokenizer

namespace nanotrn::tokenizer {
namespace {

// Text from an alphabet that stresses every alternative of the pattern: all ASCII bytes, contractions, runs of
// spaces and newlines, Unicode letters/digits/spaces/punctuation next to ASCII, and invalid UTF-8.
std::string stress_text(size_t pieces, uint64_t seed) {
  static const char* const kPieces[] = {" ",
                                        "  ",
                                        "\n",
                                        "\r\n",
                                        "\t",
                                        "\v",
                                        "\f",
                                        "'s",
                                        "'S",
                                        "'ll",
                                        "'LL",
                                        "'ve",
                                        "'re",
                                        "'d",
                                        "'t",
                                        "'m",
                                        "'x",
                                        "''",
                                        "word",
                                        "Word",
                                        "a",
                                        "123",
                                        "4",
                                        "!",
                                        "?!.",
                                        "--",
                                        "(",
                                        ")",
                                        "\"",
                                        "\xc3\xa9",
                                        "\xe4\xb8\xad",  // é 中
                                        "\xc2\xa0",
                                        "\xe2\x80\xa8",
                                        "\xe2\x80\x9c",
                                        "\xd9\xa3",
                                        "\xc2\x85",
                                        "\xe2\x85\xa7",  // nbsp LS “ ٣ NEL Ⅷ
                                        "\xff",
                                        "\x80",
                                        "\xc3",
                                        "\x1c",
                                        "\x1f",
                                        "\x7f",
                                        std::string("\0", 1).c_str()};
  std::string out;
  for (size_t k = 0; k < pieces; ++k) {
    const uint32_t r = random_u32(seed, 11, k);
    if (r % 5 == 0) {
      out += static_cast<char>(random_u32(seed, 12, k) % 128);
    } else if (r % 97 == 1) {
      out += '\0';
    } else {
      out += kPieces[(r >> 8) % (sizeof(kPieces) / sizeof(kPieces[0]) - 1)];
    }
  }
  return out;
}

TEST(Pretokenize, AsciiFastPathEqualsPcre2) {
  const Pretokenizer split;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const std::string s = stress_text(1 + seed % 200, seed);
    std::vector<std::string_view> fast, slow;
    split.split(s, &fast);
    split.split_pcre2(s, &slow);
    ASSERT_EQ(fast, slow) << "seed " << seed;
  }
  // Every pair of ASCII bytes followed by a few context bytes.
  for (int a = 0; a < 128; ++a) {
    for (int b = 0; b < 128; b += 3) {
      for (const char* tail : {"", " x", "\xc3\xa9", "  \n", "'s"}) {
        const std::string s = std::string(1, static_cast<char>(a)) + static_cast<char>(b) + tail;
        std::vector<std::string_view> fast, slow;
        split.split(s, &fast);
        split.split_pcre2(s, &slow);
        ASSERT_EQ(fast, slow) << a << " " << b << " " << tail;
      }
    }
  }
}

}  // namespace
}  // namespace nanotrn::tokenizer
