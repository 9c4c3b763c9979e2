// One plain text as documents: paragraphs (or lines, without a blank line) grouped up to a size, joined with the
// break they had; nothing lost or added but repeated blank lines and '\r' line ends. The reference here rebuilds the
// expected documents from the paragraph list by hand.
#include "data/split_text.h"

#include <gtest/gtest.h>

namespace nanotrn::data {
namespace {

std::vector<std::string> texts(const SplitText& s) {
  std::vector<std::string> out;
  for (const Document& d : s.docs) out.push_back(d.text);
  return out;
}

TEST(SplitText, ParagraphsKeepTheirBlankLineInsideADocument) {
  const SplitText s = split_text({"book.txt", "\n\nFirst line\nsecond line\n\n\n  \t\nNext one\n\nLast\n"});
  EXPECT_TRUE(s.by_paragraphs);
  EXPECT_EQ(s.pieces, 3u);
  EXPECT_EQ(texts(s), (std::vector<std::string>{"First line\nsecond line\n\nNext one\n\nLast"}));
  EXPECT_EQ(s.docs[0].id, "book.txt#0");
}

TEST(SplitText, DocumentsCloseBeforeTheSizeAndALongPieceStandsAlone) {
  // Paragraphs of 10, 10, 30 and 10 bytes with documents of up to 25: "a\n\nb" is 22, adding the third would pass 25.
  const std::string p1(10, 'a'), p2(10, 'b'), p3(30, 'c'), p4(10, 'd');
  const SplitText s = split_text({"t.txt", p1 + "\n\n" + p2 + "\n\n" + p3 + "\n\n" + p4}, 25);
  EXPECT_EQ(texts(s), (std::vector<std::string>{p1 + "\n\n" + p2, p3, p4}));
  EXPECT_EQ(s.docs[2].id, "t.txt#2");
}

TEST(SplitText, LinesWhenThereIsNoBlankLine) {
  const SplitText s = split_text({"list.txt", "alpha\nbeta\r\ngamma"});
  EXPECT_FALSE(s.by_paragraphs);
  EXPECT_EQ(s.pieces, 3u);
  EXPECT_EQ(texts(s), (std::vector<std::string>{"alpha\nbeta\ngamma"}));
  EXPECT_EQ(texts(split_text({"list.txt", "alpha\nbeta\r\ngamma"}, 8)),
            (std::vector<std::string>{"alpha", "beta", "gamma"}));
}

TEST(SplitText, CrlfBlankLinesSeparateParagraphs) {
  const SplitText s = split_text({"dos.txt", "one\r\ntwo\r\n\r\nthree\r\n"});
  EXPECT_TRUE(s.by_paragraphs);
  EXPECT_EQ(texts(s), (std::vector<std::string>{"one\ntwo\n\nthree"}));
}

TEST(SplitText, EveryNonBlankByteSurvivesAndEachBreakIsOneBlankLine) {
  std::string text;
  std::vector<std::string> paragraphs;
  for (int i = 0; i < 500; ++i) {
    paragraphs.push_back("paragraph " + std::to_string(i) + " has some words");
    text += paragraphs.back() + (i % 7 == 0 ? "\n\n\n" : "\n\n");
  }
  const SplitText s = split_text({"big.txt", text});
  EXPECT_EQ(s.pieces, 500u);
  std::string joined;
  for (const std::string& p : paragraphs) joined += (joined.empty() ? "" : "\n\n") + p;
  std::string rebuilt;
  for (const Document& d : s.docs) {
    EXPECT_LE(d.text.size(), kTextDocumentChars);
    rebuilt += (rebuilt.empty() ? "" : "\n\n") + d.text;
  }
  EXPECT_EQ(rebuilt, joined);
  EXPECT_GT(s.docs.size(), 1u);
  EXPECT_TRUE(split_text({"empty.txt", "\n\n \n"}).docs.empty());
}

}  // namespace
}  // namespace nanotrn::data
