// CRC-32C, table-driven eight bytes at a time ("slicing by 8"). See crc32c.h.
#include "io/crc32c.h"

#include <array>

namespace nanotrn {

namespace {

using Tables = std::array<std::array<uint32_t, 256>, 8>;

// tables[0][b]: the CRC of byte b; tables[k][b]: the CRC of byte b followed by k zero bytes.
constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; b++) {
    uint32_t c = b;
    for (int i = 0; i < 8; i++) c = (c >> 1) ^ ((c & 1u) ? 0x82F63B78u : 0u);
    t[0][b] = c;
  }
  for (int k = 1; k < 8; k++) {
    for (uint32_t b = 0; b < 256; b++) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFFu];
  }
  return t;
}

constexpr Tables kTables = make_tables();

}  // namespace

uint32_t crc32c(const void* data, size_t size, uint32_t previous) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = ~previous;
  for (; size >= 8; size -= 8, p += 8) {
    const uint32_t lo = c ^ (uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24);
    c = kTables[7][lo & 0xFFu] ^ kTables[6][(lo >> 8) & 0xFFu] ^ kTables[5][(lo >> 16) & 0xFFu] ^ kTables[4][lo >> 24] ^
        kTables[3][p[4]] ^ kTables[2][p[5]] ^ kTables[1][p[6]] ^ kTables[0][p[7]];
  }
  for (; size > 0; size--, p++) c = (c >> 8) ^ kTables[0][(c ^ *p) & 0xFFu];
  return ~c;
}

}  // namespace nanotrn
