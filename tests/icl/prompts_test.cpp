// CORE prompts: Python's strip, the seeded subset and few-shot draws against CPython itself, the rendered text of
// each task type, and the token rows with their answer spans.
#include "icl/prompts.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "data/temp_dir.h"
#include "icl/core_eval.h"
#include "icl/rows.h"
#include "support/error_of.h"
#include "tokenizer/bpe_train.h"

namespace nanotrn::icl {
namespace {

using testing_support::error_message_of;

// stdout of a Python program run by Debian's interpreter (the test fails, naming it, when there is none).
std::string python_output(const std::string& program) {
  data::testing::TempDir dir;
  const std::string file = dir / "p.py";
  std::ofstream(file) << program;
  FILE* p = popen(("/usr/bin/python3 " + file + " 2>&1").c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (p && fgets(buf, sizeof buf, p)) out += buf;
  EXPECT_EQ(p ? pclose(p) : -1, 0) << "/usr/bin/python3 failed: " << out;
  return out;
}

TEST(PythonStrip, StripsWhatStrStripStrips) {
  EXPECT_EQ(python_strip("  \t a b \n"), "a b");
  EXPECT_EQ(python_strip("\xc2\xa0x\xe3\x80\x80"), "x");      // U+00A0, U+3000
  EXPECT_EQ(python_strip("\x1c\x1dx\x1e\x1f\x0b\x0c"), "x");  // the separators and VT/FF are whitespace
  EXPECT_EQ(python_strip("\xe2\x80\x8bx"), "\xe2\x80\x8bx");  // U+200B (zero-width space) is not
  EXPECT_EQ(python_strip("\xe2\x80\xa8x\xc2\x85"), "x");      // U+2028, U+0085
  EXPECT_EQ(python_strip(" \xe2\x80\x89 "), "");              // U+2009 only
  EXPECT_EQ(python_strip("\xc3\xa9 "), "\xc3\xa9");           // a multi-byte letter before the space stays
}

TEST(PythonStrip, AgreesWithCPython) {
  const std::string text = "\xe2\x80\x83\xe1\x9a\x80 x\xc2\xa0y \xe2\x80\xaf\xe2\x81\x9f\r\n";
  std::string hex;
  for (unsigned char c : text) {
    char b[4];
    std::snprintf(b, sizeof b, "%02x", c);
    hex += b;
  }
  const std::string out =
      python_output("import sys\nsys.stdout.write(bytes.fromhex('" + hex + "').decode().strip().encode().hex())\n");
  std::string mine;
  for (unsigned char c : python_strip(text)) {
    char b[4];
    std::snprintf(b, sizeof b, "%02x", c);
    mine += b;
  }
  EXPECT_EQ(mine, out);
}

TEST(FewShot, SubsetAndDrawsAreCPythons) {
  // nanochat: random.Random(1337).shuffle(data); data[:max]; then Random(1234 + idx).sample(others, k).
  std::vector<Example> data(57);
  for (size_t i = 0; i < data.size(); ++i) data[i].line = static_cast<int64_t>(i);
  const std::vector<Example> sub = task_subset(data, 20);
  std::string mine;
  for (const Example& e : sub) mine += std::to_string(e.line) + " ";
  mine += "\n";
  for (size_t idx : {0, 7, 19}) {
    for (size_t s : fewshot_indices(sub.size(), idx, 10)) mine += std::to_string(s) + " ";
    mine += "\n";
  }
  const std::string py = python_output(
      "import random\n"
      "d = list(range(57)); random.Random(1337).shuffle(d); d = d[:20]\n"
      "print(' '.join(map(str, d)) + ' ')\n"
      "for idx in (0, 7, 19):\n"
      "    rng = random.Random(1234 + idx)\n"
      "    print(' '.join(map(str, rng.sample([i for i in range(20) if i != idx], 10))) + ' ')\n");
  EXPECT_EQ(mine, py);
}

TEST(FewShot, MoreShotsThanExamplesUsesAllOthers) {
  // max_per_task at or below the shot count: nanochat's sample() would raise; every other example is used.
  for (size_t idx = 0; idx < 3; ++idx) {
    std::vector<size_t> s = fewshot_indices(3, idx, 10);
    ASSERT_EQ(s.size(), 2u);
    std::sort(s.begin(), s.end());
    EXPECT_NE(s[0], idx);
    EXPECT_NE(s[1], idx);
    EXPECT_NE(s[0], s[1]);
  }
  EXPECT_TRUE(fewshot_indices(1, 0, 5).empty());
  EXPECT_TRUE(fewshot_indices(10, 3, 0).empty());
}

TaskSpec spec(TaskType type, const std::string& delim) {
  TaskSpec t;
  t.label = "t";
  t.type = type;
  t.delimiter = delim;
  return t;
}

TEST(Render, MultipleChoiceShotsUseTheGoldAnswer) {
  std::vector<Example> d(3);
  d[0].query = "Q0";
  d[0].choices = {"a", "b"};
  d[1].query = "Q1";
  d[1].choices = {"x", "y", "z"};
  d[1].gold = 2;
  d[2].query = "Q2";
  d[2].choices = {"m"};
  const Prompts p = render_prompts(spec(TaskType::multiple_choice, "\nAnswer: "), d, 0, {2, 1});
  ASSERT_EQ(p.texts.size(), 2u);
  EXPECT_EQ(p.texts[0], "Q2\nAnswer: m\n\nQ1\nAnswer: z\n\nQ0\nAnswer: a");
  EXPECT_EQ(p.texts[1], "Q2\nAnswer: m\n\nQ1\nAnswer: z\n\nQ0\nAnswer: b");
}

TEST(Render, SchemaPutsEachOptionBeforeTheContinuation) {
  std::vector<Example> d(2);
  d[0].context_options = {"He said", "She said"};
  d[0].continuation = "hello.";
  d[1].context_options = {"A", "B"};
  d[1].continuation = "c";
  d[1].gold = 1;
  const Prompts p = render_prompts(spec(TaskType::schema, " "), d, 0, {1});
  EXPECT_EQ(p.texts, (std::vector<std::string>{"B c\n\nHe said hello.", "B c\n\nShe said hello."}));
}

TEST(Render, LanguageModellingTrimsContextsAndStripsThePromptWithout) {
  std::vector<Example> d(2);
  d[0].context = "  The cat sat on the \n";
  d[0].continuation = "mat";
  d[1].context = "One plus one is ";
  d[1].continuation = "two";
  const Prompts p = render_prompts(spec(TaskType::language_modeling, " "), d, 0, {1});
  ASSERT_EQ(p.texts.size(), 2u);
  EXPECT_EQ(p.texts[0], "One plus one is two\n\nThe cat sat on the");  // stripped: the delimiter's space goes
  EXPECT_EQ(p.texts[1], "One plus one is two\n\nThe cat sat on the mat");
  const Prompts q = render_prompts(spec(TaskType::language_modeling, "\nA:"), d, 1, {});
  EXPECT_EQ(q.texts[0], "One plus one is\nA:");
  EXPECT_EQ(q.texts[1], "One plus one is\nA:two");
}

tokenizer::Tokenizer small_tokenizer() {
  const std::vector<std::string> texts = {"the cat sat on the mat. the dog sat on the log.",
                                          "Answer: yes. Answer: no. one plus one is two", "He said hello. She said."};
  std::vector<std::string_view> views(texts.begin(), texts.end());
  tokenizer::BpeTrainOptions o;
  o.vocab_size = 280;
  return tokenizer::Tokenizer(tokenizer::train_bpe(views, o));
}

TEST(Rows, SpansAreTheCommonPrefixSuffixOrContinuation) {
  const tokenizer::Tokenizer tok = small_tokenizer();
  const int32_t bos = tok.bos_id();
  const ScoredRows mc = tokenize_prompts(TaskType::multiple_choice,
                                         {{"the cat sat on the mat", "the cat sat on the log"}}, tok, 1024, "mc");
  ASSERT_EQ(mc.rows.size(), 2u);
  EXPECT_EQ(mc.rows[0][0], bos);
  EXPECT_EQ(mc.start[0], mc.start[1]);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(mc.end[i], static_cast<int64_t>(mc.rows[i].size()));
    // the prefix is shared and the first answer token differs
    for (int64_t t = 0; t < mc.start[0]; ++t) EXPECT_EQ(mc.rows[0][t], mc.rows[1][t]);
  }
  EXPECT_NE(mc.rows[0][mc.start[0]], mc.rows[1][mc.start[1]]);
  std::vector<int32_t> body = tok.encode("the cat sat on the mat");
  body.insert(body.begin(), bos);
  EXPECT_EQ(mc.rows[0], body);

  const ScoredRows sc =
      tokenize_prompts(TaskType::schema, {{"He said hello.", "She said hello."}}, tok, 1024, "schema");
  const int64_t suffix = sc.end[0] - sc.start[0];
  EXPECT_EQ(sc.end[1] - sc.start[1], suffix);
  EXPECT_GT(suffix, 0);
  for (int64_t t = 1; t <= suffix; ++t) EXPECT_EQ(sc.rows[0][sc.rows[0].size() - t], sc.rows[1][sc.rows[1].size() - t]);

  const ScoredRows lm =
      tokenize_prompts(TaskType::language_modeling, {{"one plus one is", "one plus one is two"}}, tok, 1024, "lm");
  ASSERT_EQ(lm.rows.size(), 1u);
  std::vector<int32_t> without = tok.encode("one plus one is");
  EXPECT_EQ(lm.start[0], static_cast<int64_t>(without.size()) + 1);
  EXPECT_EQ(lm.end[0], static_cast<int64_t>(lm.rows[0].size()));
}

TEST(Rows, LongRowsKeepTheirEndAndShiftTheSpan) {
  const tokenizer::Tokenizer tok = small_tokenizer();
  const ScoredRows full =
      tokenize_prompts(TaskType::multiple_choice,
                       {{"the cat sat on the mat. the dog", "the cat sat on the mat. the log"}}, tok, 1024, "mc");
  const int64_t len = static_cast<int64_t>(full.rows[0].size());
  const ScoredRows cut =
      tokenize_prompts(TaskType::multiple_choice,
                       {{"the cat sat on the mat. the dog", "the cat sat on the mat. the log"}}, tok, len - 3, "mc");
  EXPECT_EQ(static_cast<int64_t>(cut.rows[0].size()), len - 3);
  EXPECT_EQ(cut.start[0], full.start[0] - 3);
  EXPECT_EQ(cut.end[0], full.end[0] - 3);
  EXPECT_EQ(std::vector<int32_t>(full.rows[0].begin() + 3, full.rows[0].end()), cut.rows[0]);
  EXPECT_NE(
      error_message_of([&] {
        tokenize_prompts(TaskType::language_modeling, {{"one plus one is", "one plus one is two"}}, tok, 2, "lm 4");
      }).find("lm 4: option 0 has no answer tokens to score"),
      std::string::npos);
}

TEST(Rows, AContinuationThatMergesIntoTheContextIsAnError) {
  const tokenizer::Tokenizer tok = small_tokenizer();
  // "the ca" + "t": the tokens of "the cat" do not start with those of "the ca" (the BPE merged across the seam).
  const std::string msg = error_message_of([&] {
    tokenize_prompts(TaskType::language_modeling, {{"the ca", "the cat"}}, tok, 1024, "lm 7");
  });
  const std::vector<int32_t> a = tok.encode("the ca"), b = tok.encode("the cat");
  ASSERT_FALSE(a.size() < b.size() && std::equal(a.begin(), a.end(), b.begin())) << "pick a seam this BPE merges";
  EXPECT_NE(msg.find("lm 7: the prompt without its continuation is not a token prefix"), std::string::npos) << msg;
}

TEST(Centered, GoldenArithmeticOfTheBundleBaselines) {
  // recipe-spec §12: an all-wrong language_identification (rb 9.1) is -0.1001, agi_eval_lsat_ar (rb 20) -0.25.
  EXPECT_NEAR(centered_accuracy(0.0, 9.1), -0.1001, 5e-5);
  EXPECT_DOUBLE_EQ(centered_accuracy(0.0, 20.0), -0.25);
  EXPECT_DOUBLE_EQ(centered_accuracy(1.0, 62.0), 1.0);
  EXPECT_NEAR(centered_accuracy(0.25, 25.0), 0.0, 1e-15);
}

}  // namespace
}  // namespace nanotrn::icl
