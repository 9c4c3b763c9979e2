// CRC-32C against the published check values (the CRC catalogue's "123456789", RFC 3720's 32-byte patterns) and
// against a bit-at-a-time reference for every length and alignment the table path handles.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "io/crc32c.h"

namespace nanotrn {
namespace {

uint32_t bitwise_crc32c(const uint8_t* p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
  }
  return ~c;
}

TEST(Crc32c, PublishedCheckValues) {
  const std::string check = "123456789";
  EXPECT_EQ(crc32c(check.data(), check.size()), 0xE3069283u);
  const std::vector<uint8_t> zeros(32, 0x00), ones(32, 0xFF);
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  EXPECT_EQ(crc32c(ones.data(), ones.size()), 0x62A8AB43u);
  EXPECT_EQ(crc32c(nullptr, 0), 0u);
}

TEST(Crc32c, MatchesTheBitwiseDefinitionAndContinues) {
  std::mt19937 rng(7);
  std::vector<uint8_t> buf(300);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (size_t start = 0; start < 8; start++) {
    for (size_t n = 0; n + start <= buf.size(); n += 13) {
      const uint8_t* p = buf.data() + start;
      EXPECT_EQ(crc32c(p, n), bitwise_crc32c(p, n)) << start << " " << n;
      const size_t half = n / 3;
      EXPECT_EQ(crc32c(p + half, n - half, crc32c(p, half)), bitwise_crc32c(p, n)) << start << " " << n;
    }
  }
}

}  // namespace
}  // namespace nanotrn
