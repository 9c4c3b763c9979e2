// Hugging Face tokenizer.json as an input tokenizer (tokenizer/hf_tokenizer_json.h), against an independent writer
// and encoder (tests/python/hf_bpe_reference.py: a textbook byte-level BPE trainer that writes the library's format,
// and the library's merge-priority encoding in Python): the same ids for every text, in both pre-tokenizer forms the
// library writes; and the files nanotrn cannot read exactly are refused by name.
#include "tokenizer/hf_tokenizer_json.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "base/file.h"
#include "data/temp_dir.h"
#include "support/error_of.h"
#include "support/python_reference.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/tokenizer.h"

namespace nanotrn::tokenizer {
namespace {

const char* kTrain =
    "The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs 12 laps, then 3 more!\n\n"
    "Tokenizers split text into chunks, then merge bytes: the the the then there these those. Naïve café déjà vu.\n"
    "It's what they're doing, isn't it? 2024-12-05 at 09:41 -- numbers 1234567 and 89.";

TEST(HfTokenizerJson, EncodesAsTheLibrarysAlgorithmInBothForms) {
  const std::vector<std::string> texts = {"The quick brown fox.", "the the then there; these those!",
                                          "Naïve café: déjà vu, 12 laps in 2024.",
                                          "It's    spaced\n\nand\tunseen words like zyxwv  ", ""};
  for (const char* form : {"byte_level", "split"}) {
    const nlohmann::json want = testing_support::python_reference(
        "hf_bpe_reference.py", "", {{"train", kTrain}, {"merges", 120}, {"texts", texts}, {"form", form}});
    const data::testing::TempDir dir;  // after the reference's own folder (the same name) is gone
    const std::string path = dir / "tokenizer.json", text = want["tokenizer_json"].get<std::string>();
    write_file_atomic(path, text.data(), text.size());
    const Tokenizer tok = Tokenizer::load(path);
    EXPECT_EQ(tok.vocab_size(), want["vocab_size"].get<int32_t>()) << form;
    EXPECT_EQ(tok.bos_id(), tok.vocab_size() - 1) << form;  // <|endoftext|>, the added token after the vocabulary
    EXPECT_GT(want["merges"].get<int>(), 60) << "the reference trained too few merges to test anything";
    for (size_t i = 0; i < texts.size(); i++) {
      EXPECT_EQ(tok.encode(texts[i]), want["ids"][i].get<std::vector<int32_t>>()) << form << ": " << texts[i];
      EXPECT_EQ(tok.decode(tok.encode(texts[i])), texts[i]);
    }
    // The folder holding it loads the same tokenizer.
    EXPECT_EQ(Tokenizer::load(dir.str()).encode(texts[0]), tok.encode(texts[0]));
  }
}

// The writer: a BPE nanotrn trained (the split pattern of the baseline, possessive quantifiers and all) written as a
// tokenizer.json encodes, under the reference's reading of the library's algorithm, to nanotrn's own ids; and it
// reads back to the same ranks.
TEST(HfTokenizerJson, WrittenFilesEncodeAsNanotrnDoes) {
  std::vector<std::string_view> docs;
  const std::string train = std::string(kTrain) + "\n" + kTrain + " More text: 3.14159, e-mail me@example.org!\n";
  docs.push_back(train);
  const Bpe bpe = train_bpe(docs, {.vocab_size = 256 + 150 + 4});
  const HfBpe spec{bpe.tokens(), bpe.specials(), bpe.pattern()};
  const std::string file = format_hf_tokenizer_json(spec);
  const std::vector<std::string> texts = {
      "The quick brown fox jumps over the lazy dog.", "the the then there; these those! 2024-12-05",
      "Naïve café: déjà vu,\n\n  spaced   out\ttabs", "isn't it? they're doing 1234567"};
  const nlohmann::json want =
      testing_support::python_reference("hf_bpe_reference.py", "", {{"tokenizer_json", file}, {"texts", texts}});
  for (size_t i = 0; i < texts.size(); i++) {
    EXPECT_EQ(bpe.encode(texts[i]), want["ids"][i].get<std::vector<int32_t>>()) << texts[i];
  }
  const HfBpe back = parse_hf_tokenizer_json(file, "written");
  EXPECT_EQ(back.tokens, bpe.tokens());
  EXPECT_EQ(back.specials, bpe.specials());
  EXPECT_EQ(back.pattern, bpe.pattern());
}

TEST(HfTokenizerJson, RefusesWhatItCannotReadExactly) {
  const std::string base = R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
      "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true}})";
  EXPECT_TRUE(is_hf_tokenizer_json(base));
  const HfBpe ok = parse_hf_tokenizer_json(base, "t.json");
  EXPECT_EQ(ok.tokens, (std::vector<std::string>{"a", "b", "ab"}));
  EXPECT_EQ(ok.pattern, std::string(kGpt2SplitPattern));
  auto error = [](const std::string& text) {
    return testing_support::error_message_of([&] { parse_hf_tokenizer_json(text, "t.json"); });
  };
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = base;
    return s.replace(s.find(from), from.size(), to);
  };
  EXPECT_NE(error(with("\"BPE\"", "\"WordPiece\"")).find("t.json: model.type \"WordPiece\" is not supported"),
            std::string::npos);
  EXPECT_NE(error(with("\"ab\": 2", "\"ab\": 7")).find("ids must be 0..2, each once"), std::string::npos);
  EXPECT_NE(error(with("\"a b\"", "\"b a\"")).find("model.merges[0]: its product is not in the vocabulary"),
            std::string::npos);
  EXPECT_NE(error(with("\"add_prefix_space\": false", "\"add_prefix_space\": true")).find("add_prefix_space"),
            std::string::npos);
  EXPECT_NE(error(with("\"model\":", "\"normalizer\": {\"type\": \"NFC\"}, \"model\":")).find("normalizer \"NFC\""),
            std::string::npos);
  EXPECT_NE(error(with("\"ByteLevel\"", "\"Whitespace\"")).find("type \"Whitespace\" is not supported"),
            std::string::npos);
  EXPECT_NE(error(with("\"a\": 0", "\"\\u4e00\": 0")).find("outside the byte-level alphabet"), std::string::npos);
  const std::string gap = with("\"model\":", R"("added_tokens": [{"id": 5, "content": "<s>"}], "model":)");
  EXPECT_NE(error(gap).find("added_tokens: id 5 leaves a gap after the vocabulary's 3 ids"), std::string::npos);
  EXPECT_FALSE(is_hf_tokenizer_json(R"({"format": "nanotrn-bpe", "version": 1})"));
  // nanotrn's own metadata named as a file is not taken for one.
  const data::testing::TempDir dir;
  write_file_atomic(dir / "tokenizer.json", "{\"format\": \"nanotrn-bpe\"}", 24);
  EXPECT_NE(testing_support::error_message_of([&] {
              Tokenizer::load(dir / "tokenizer.json");
            }).find("is not a Hugging Face tokenizer.json"),
            std::string::npos);
}

}  // namespace
}  // namespace nanotrn::tokenizer
