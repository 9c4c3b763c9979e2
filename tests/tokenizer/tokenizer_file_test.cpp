// Tokenizer files: tiktoken rank files and metadata (round trip, strict errors naming file and line), loading a
// directory, a bare rank file and a SentencePiece .model through the one Tokenizer interface.
#include "tokenizer/tokenizer.h"

#include <gtest/gtest.h>
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <filesystem>

#include "base/error.h"
#include "base/file.h"
#include "data/temp_dir.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/text_gen.h"
#include "tokenizer/tiktoken_file.h"

namespace nanotrn::tokenizer {
namespace {

using data::testing::TempDir;

void write_text(const std::string& path, const std::string& s) { write_file_atomic(path, s.data(), s.size()); }

std::string error_of(const std::string& text) {
  try {
    parse_tiktoken(text, "t.tiktoken");
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

TEST(Base64, RoundTripsAndRejectsNonCanonicalText) {
  for (const std::string& s : std::vector<std::string>{"", "a", "ab", "abc", "abcd", std::string("\0\xff\x80", 3)}) {
    std::string back;
    ASSERT_TRUE(base64_decode(base64_encode(s), &back));
    EXPECT_EQ(back, s);
  }
  EXPECT_EQ(base64_encode("hello"), "aGVsbG8=");
  std::string out;
  EXPECT_FALSE(base64_decode("aGVsbG9=", &out));  // non-zero padding bits
  EXPECT_FALSE(base64_decode("aGVsbG8", &out));   // length not a multiple of 4
  EXPECT_FALSE(base64_decode("aG=sbG8=", &out));  // padding inside
  EXPECT_FALSE(base64_decode("aGVs*G8=", &out));
}

TEST(Tiktoken, MalformedLinesNameFileAndLine) {
  EXPECT_EQ(error_of("YQ== 0\nYg==1\n"), "t.tiktoken:2: expected '<base64 token> <rank>', found no space");
  EXPECT_EQ(error_of("YQ== 0\nY!== 1\n"), "t.tiktoken:2: the token is not valid base64");
  EXPECT_EQ(error_of("YQ== 0\nYg== x\n"), "t.tiktoken:2: the rank 'x' is not a non-negative integer");
  EXPECT_EQ(error_of("YQ== 0\nYg== 0\n"), "t.tiktoken:2: rank 0 appears twice");
  EXPECT_EQ(error_of("YQ== 0\nYg== 1\nYQ== 2\n"), "t.tiktoken:3: the token repeats the bytes of line 1");
  EXPECT_EQ(error_of("YQ== 0\nYg== 2\nYw== 3\n"),
            "t.tiktoken:3: ranks are not dense: the largest is 3 but there are 3 tokens");
  EXPECT_EQ(error_of(""), "t.tiktoken:1: the rank file has no tokens");
  EXPECT_EQ(error_of("YQ== 0\n YQ== 1"), "t.tiktoken:2: the token is empty");
  EXPECT_EQ(parse_tiktoken("Yg== 1\r\nYQ== 0\n", "x"), (std::vector<std::string>{"a", "b"}));
}

TEST(Tiktoken, MetadataErrorsNameTheFile) {
  EXPECT_THROW(parse_bpe_meta("{", "m.json"), Error);
  try {
    parse_bpe_meta(R"({"format": "nanotrn-bpe", "version": 2, "pattern": "x", "specials": []})", "m.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "m.json: unsupported \"version\" (this build reads version 1)");
  }
  EXPECT_THROW(parse_bpe_meta(R"({"format": 3})", "m.json"), Error);
  const BpeMeta m = parse_bpe_meta(format_bpe_meta({"p", {"<|a|>", "<|b|>"}}), "m.json");
  EXPECT_EQ(m.pattern, "p");
  EXPECT_EQ(m.specials, (std::vector<std::string>{"<|a|>", "<|b|>"}));
}

TEST(TokenizerFiles, SaveLoadKeepsEveryIdAndKitStyleRankFilesGetFourSpecials) {
  TempDir dir;
  const std::string text = testing::synthetic_text(5000, 21);
  const std::vector<std::string_view> docs = {text};
  BpeTrainOptions o;
  o.vocab_size = 600;
  o.doc_cap_chars = 0;
  const Tokenizer tok(train_bpe(docs, o));
  tok.save(dir / "tok");
  const Tokenizer back = Tokenizer::load(dir / "tok");
  EXPECT_EQ(back.vocab_size(), 600);
  EXPECT_EQ(back.bos_id(), 596);
  EXPECT_EQ(back.encode(text), tok.encode(text));
  EXPECT_EQ(back.token_bytes(), tok.token_bytes());
  // A bare rank file, as the challenge kit ships it: 4 reserved specials follow the ranks.
  const Tokenizer bare = Tokenizer::load(dir / "tok/tokenizer.tiktoken");
  EXPECT_EQ(bare.vocab_size(), 600);
  EXPECT_EQ(bare.bos_id(), 596);
  // A broken rank file inside a tokenizer folder: the error names the file and line.
  std::string ranks(read_file(dir / "tok/tokenizer.tiktoken").size(), '\0');
  {
    const auto b = read_file(dir / "tok/tokenizer.tiktoken");
    ranks.assign(b.begin(), b.end());
  }
  write_text(dir / "tok/tokenizer.tiktoken", ranks.substr(0, ranks.find('\n', 100)) + "\n@@@ 9\n");
  try {
    Tokenizer::load(dir / "tok");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find(dir / "tok/tokenizer.tiktoken:"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find(": the token is not valid base64"), std::string::npos) << e.message();
  }
  EXPECT_THROW(Tokenizer::load(dir / "missing"), Error);
  // A metadata file whose pattern does not compile names the metadata file.
  tok.save(dir / "tok2");
  write_text(dir / "tok2/tokenizer.json", format_bpe_meta({"(unclosed", reserved_specials(4)}));
  try {
    Tokenizer::load(dir / "tok2");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message().rfind(dir / "tok2/tokenizer.json: \"pattern\": pretokenize: cannot compile", 0), 0u)
        << e.message();
  }
}

TEST(TokenizerFiles, SentencePieceModelsLoadAndEncodeLikeLibsentencepiece) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 400; ++i) text += testing::synthetic_text(30, 100 + i) + "\n";
  write_text(dir / "train.txt", text);
  const auto status = sentencepiece::SentencePieceTrainer::Train(
      "--input=" + dir / "train.txt" + " --model_prefix=" + dir / "sp" +
      " --vocab_size=400 --model_type=bpe --bos_id=1 --eos_id=2 --unk_id=0 --byte_fallback=true"
      " --character_coverage=1.0 --minloglevel=2 --num_threads=1");
  ASSERT_TRUE(status.ok()) << status.ToString();
  const Tokenizer tok = Tokenizer::load(dir / "sp.model");
  sentencepiece::SentencePieceProcessor sp;
  ASSERT_TRUE(sp.Load(dir / "sp.model").ok());
  EXPECT_EQ(tok.vocab_size(), 400);
  EXPECT_EQ(tok.bos_id(), 1);
  const std::string sample = testing::synthetic_text(300, 7);
  const std::vector<int> want = sp.EncodeAsIds(sample);
  EXPECT_EQ(tok.encode(sample), std::vector<int32_t>(want.begin(), want.end()));
  EXPECT_EQ(tok.decode(tok.encode("plain words here")), "plain words here");
  const std::vector<int32_t> tb = tok.token_bytes();
  EXPECT_EQ(tb[0], 0);  // <unk>
  EXPECT_EQ(tb[1], 0);  // <s>
  EXPECT_EQ(tb[2], 0);  // </s>
  // Each normal piece counts what it adds to decoded text after another piece (alone, decode drops a leading space).
  const int a = sp.PieceToId("a");
  ASSERT_FALSE(sp.IsUnknown(a));
  const size_t after = sp.DecodeIds({a}).size();
  for (int id = 3; id < 400; ++id) {
    if (sp.IsByte(id)) {
      EXPECT_EQ(tb[id], 1) << id;
      continue;
    }
    EXPECT_EQ(tb[id], static_cast<int32_t>(sp.DecodeIds({a, id}).size() - after)) << sp.IdToPiece(id);
  }
  // A directory holding tokenizer.model loads the same model; a corrupt .model names the file.
  std::filesystem::create_directories(dir / "kit");
  std::filesystem::copy_file(dir / "sp.model", dir / "kit/tokenizer.model");
  EXPECT_EQ(Tokenizer::load(dir / "kit").encode(sample), tok.encode(sample));
  write_text(dir / "bad.model", "not a protobuf at all");
  try {
    Tokenizer::load(dir / "bad.model");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message().rfind(dir / "bad.model" + ": not a valid SentencePiece model", 0), 0u) << e.message();
  }
}

TEST(TokenizerFiles, SentencePieceTokenBytesSumToTheTextLength) {
  // The BPE tokenizer's TokenBytesSumToTheTextLengthForAsciiText, for a .model: without a dummy prefix and with the
  // identity normalisation, SentencePiece segments the text itself, so the bytes of its tokens must add up to it.
  TempDir dir;
  std::string text;
  for (int i = 0; i < 400; ++i) text += testing::synthetic_text(30, 100 + i) + "\n";
  write_text(dir / "train.txt", text);
  const auto status = sentencepiece::SentencePieceTrainer::Train(
      "--input=" + dir / "train.txt" + " --model_prefix=" + dir / "sp" +
      " --vocab_size=400 --model_type=bpe --bos_id=1 --eos_id=2 --unk_id=0 --byte_fallback=true"
      " --character_coverage=1.0 --minloglevel=2 --num_threads=1 --add_dummy_prefix=false"
      " --normalization_rule_name=identity --remove_extra_whitespaces=false");
  ASSERT_TRUE(status.ok()) << status.ToString();
  const Tokenizer tok = Tokenizer::load(dir / "sp.model");
  const std::vector<int32_t> tb = tok.token_bytes();
  for (const std::string& sample : {testing::synthetic_text(300, 7), std::string("plain words, 12345 and more")}) {
    const std::vector<int32_t> ids = tok.encode(sample);
    ASSERT_EQ(tok.decode(ids), sample);
    int64_t sum = 0, spaces_after_first = 0;
    for (int32_t id : ids) sum += tb[id];
    for (size_t i = 1; i < sample.size(); ++i) spaces_after_first += sample[i] == ' ';
    EXPECT_EQ(sum, static_cast<int64_t>(sample.size()));
    ASSERT_GT(spaces_after_first, 0);  // word-initial pieces are in the sum: the case the old count got wrong
  }
}

}  // namespace
}  // namespace nanotrn::tokenizer
