// .bin shards: the byte layout of both variants, and an error naming file and byte offset for every malformation.
#include "data/shard.h"

#include <gtest/gtest.h>

#include <cstring>

#include "base/error.h"
#include "base/file.h"
#include "data/temp_dir.h"

namespace nanotrn::data {
namespace {

int32_t word(const std::vector<uint8_t>& b, size_t i) {
  int32_t v;
  std::memcpy(&v, b.data() + 4 * i, 4);  // little-endian host (x86-64)
  return v;
}

std::string error_of(const std::vector<uint8_t>& bytes, int32_t vocab) {
  try {
    parse_shard(bytes.data(), bytes.size(), "x.bin", vocab);
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

TEST(Shard, Uint16LayoutIsLlmcs) {
  const std::vector<int32_t> tokens = {0, 1, 8188, 65535, 300};
  const std::vector<uint8_t> b = encode_shard(tokens, 65536);
  ASSERT_EQ(b.size(), 1024 + 2 * tokens.size());
  EXPECT_EQ(word(b, 0), 20240520);
  EXPECT_EQ(word(b, 1), 1);
  EXPECT_EQ(word(b, 2), 5);
  for (size_t i = 3; i < 256; ++i) ASSERT_EQ(word(b, i), 0) << i;
  EXPECT_EQ(b[1024 + 4], 8188 & 0xFF);
  EXPECT_EQ(b[1024 + 5], 8188 >> 8);
  EXPECT_EQ(b[1024 + 6], 0xFF);
  const ShardView v = parse_shard(b.data(), b.size(), "x", 65536);
  ASSERT_EQ(v.count, 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(v.at(i), tokens[i]);
}

TEST(Shard, Uint32VariantForLargeVocabularies) {
  const std::vector<int32_t> tokens = {70000, 3, 100276};
  const std::vector<uint8_t> b = encode_shard(tokens, 100277);
  ASSERT_EQ(b.size(), 1024 + 4 * tokens.size());
  EXPECT_EQ(word(b, 0), 20240801);
  EXPECT_EQ(word(b, 1), 7);
  EXPECT_EQ(word(b, 2), 3);
  EXPECT_EQ(word(b, 256), 70000);
  const ShardView v = parse_shard(b.data(), b.size(), "x", 100277);
  EXPECT_EQ(v.width, 4);
  EXPECT_EQ(v.at(2), 100276);
  EXPECT_THROW(encode_shard(std::vector<int32_t>{5}, 5), Error);
}

TEST(Shard, MappedFileRoundTrip) {
  testing::TempDir dir;
  std::vector<int32_t> tokens(10000);
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int32_t>((i * 7919) % 8192);
  write_shard(dir / "a.bin", tokens, 8192);
  const MappedShard m(dir / "a.bin", 8192);
  ASSERT_EQ(m.view().count, 10000);
  std::vector<int32_t> back(10000);
  m.view().copy(0, 10000, back.data());
  EXPECT_EQ(back, tokens);
  EXPECT_EQ(read_file(dir / "a.bin").size(), 1024u + 20000u);
}

TEST(Shard, EveryMalformationNamesFileAndByteOffset) {
  const std::vector<uint8_t> good = encode_shard(std::vector<int32_t>{1, 2, 3, 4}, 100);
  EXPECT_EQ(error_of(good, 100), "");
  // Truncated header.
  EXPECT_EQ(error_of(std::vector<uint8_t>(good.begin(), good.begin() + 100), 100),
            "x.bin: byte 100: truncated header: the file has 100 bytes, a shard header needs 1024");
  // Truncated payload: 4 tokens promised, 3.5 present; the first incomplete token starts at byte 1030.
  EXPECT_EQ(error_of(std::vector<uint8_t>(good.begin(), good.end() - 1), 100),
            "x.bin: byte 1030: truncated: the header says 4 tokens (1032 bytes) but the file has 1031 bytes");
  // Trailing bytes.
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  EXPECT_EQ(error_of(longer, 100), "x.bin: byte 1032: 1 trailing bytes after the header's 4 tokens");
  // Wrong magic and wrong version.
  std::vector<uint8_t> magic = good;
  magic[0] ^= 1;
  EXPECT_NE(error_of(magic, 100).find("x.bin: byte 0: wrong magic 20240521"), std::string::npos);
  std::vector<uint8_t> version = good;
  version[4] = 7;
  EXPECT_NE(error_of(version, 100).find("x.bin: byte 4: version 7"), std::string::npos);
  // Negative count.
  std::vector<uint8_t> negative = good;
  negative[11] = 0x80;
  EXPECT_NE(error_of(negative, 100).find("x.bin: byte 8: negative token count"), std::string::npos);
  // A token >= vocab: token 2 (value 3) against a vocabulary of 3 sits at byte 1024 + 2*2.
  EXPECT_EQ(error_of(good, 3), "x.bin: byte 1028: token 2 is 3, not below the vocabulary size 3");
}

TEST(Shard, MissingAndEmptyFilesAreErrors) {
  testing::TempDir dir;
  EXPECT_THROW(MappedShard(dir / "none.bin", 10), Error);
  write_file_atomic(dir / "empty.bin", std::vector<uint8_t>{});
  try {
    MappedShard m(dir / "empty.bin", 10);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("empty.bin: byte 0: truncated header"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace nanotrn::data
