// One plain text as documents: paragraphs at blank lines, lines when there is no blank line, nothing lost or added
// but the separators.
#include "data/split_text.h"

#include <gtest/gtest.h>

namespace nanotrn::data {
namespace {

std::vector<std::string> texts(const SplitText& s) {
  std::vector<std::string> out;
  for (const Document& d : s.docs) out.push_back(d.text);
  return out;
}

TEST(SplitText, ParagraphsAtBlankLinesKeepTheirInnerLines) {
  const SplitText s = split_text({"book.txt", "\n\nFirst line\nsecond line\n\n\n  \t\nNext one\n\nLast\n"});
  EXPECT_TRUE(s.by_paragraphs);
  EXPECT_EQ(texts(s), (std::vector<std::string>{"First line\nsecond line", "Next one", "Last"}));
  ASSERT_EQ(s.docs.size(), 3u);
  EXPECT_EQ(s.docs[0].id, "book.txt#0");
  EXPECT_EQ(s.docs[2].id, "book.txt#2");
}

TEST(SplitText, LinesWhenThereIsNoBlankLine) {
  const SplitText s = split_text({"list.txt", "alpha\nbeta\r\ngamma"});
  EXPECT_FALSE(s.by_paragraphs);
  EXPECT_EQ(texts(s), (std::vector<std::string>{"alpha", "beta", "gamma"}));
}

TEST(SplitText, CrlfBlankLinesSeparateParagraphs) {
  const SplitText s = split_text({"dos.txt", "one\r\ntwo\r\n\r\nthree\r\n"});
  EXPECT_TRUE(s.by_paragraphs);
  EXPECT_EQ(texts(s), (std::vector<std::string>{"one\ntwo", "three"}));
}

TEST(SplitText, EveryNonBlankByteSurvives) {
  std::string text;
  size_t letters = 0;
  for (int i = 0; i < 500; ++i) {
    const std::string p = "paragraph " + std::to_string(i) + " has some words";
    text += p + (i % 7 == 0 ? "\n\n\n" : "\n\n");
    letters += p.size();
  }
  const SplitText s = split_text({"big.txt", text});
  ASSERT_EQ(s.docs.size(), 500u);
  size_t got = 0;
  for (const Document& d : s.docs) got += d.text.size();
  EXPECT_EQ(got, letters);
  EXPECT_TRUE(split_text({"empty.txt", "\n\n \n"}).docs.empty());
}

}  // namespace
}  // namespace nanotrn::data
