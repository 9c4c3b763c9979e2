// What the BPE trainer reads under its per-document cap: the capped prefix of each document, counted for the logs.
#include <gtest/gtest.h>

#include "tokenizer/bpe_train.h"

namespace nanotrn::tokenizer {
namespace {

TEST(TrainUsage, CapCountsCharactersNotBytes) {
  EXPECT_EQ(capped_document("héllo", 2), "hé");  // 'é' is two bytes
  EXPECT_EQ(capped_document("héllo", 0), "héllo");
  EXPECT_EQ(capped_document("hi", 10), "hi");
}

TEST(TrainUsage, OneLongDocumentIsMostlyUnusedManyShortOnesAreUsedWhole) {
  const std::string book(30000, 'a');
  const std::vector<std::string_view> one = {book};
  const TrainTextUsage u = train_text_usage(one, 10000);
  EXPECT_EQ(u.docs, 1);
  EXPECT_EQ(u.bytes_used, 10000);
  EXPECT_EQ(u.bytes_total, 30000);
  EXPECT_NE(u.describe(10000).find("1 documents, 10000 of 30000 bytes used (33.3%; each document's first 10000"),
            std::string::npos)
      << u.describe(10000);

  std::vector<std::string_view> parts;
  for (size_t i = 0; i < book.size(); i += 300) parts.push_back(std::string_view(book).substr(i, 300));
  const TrainTextUsage w = train_text_usage(parts, 10000);
  EXPECT_EQ(w.docs, 100);
  EXPECT_EQ(w.bytes_used, 30000);
  EXPECT_NE(w.describe(10000).find("(100.0%"), std::string::npos);
  EXPECT_NE(train_text_usage(one, 0).describe(0).find("no per-document cap"), std::string::npos);
}

}  // namespace
}  // namespace nanotrn::tokenizer
