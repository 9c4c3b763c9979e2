// UTF-8 decoding step. See utf8.h.
#include "base/utf8.h"

#include <cstdint>

namespace nanotrn {

Utf8Step utf8_step(std::string_view s, size_t i) {
  const uint8_t c = static_cast<uint8_t>(s[i]);
  if (c < 0x80) return {1, true};
  int need = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the first continuation byte
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0) lo = 0xA0;  // no overlongs
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0) lo = 0x90;  // no overlongs
    if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return {1, false};  // a byte that can never start a character
  }
  size_t j = i + 1;
  int got = 0;
  while (got < need && j < s.size()) {
    const uint8_t d = static_cast<uint8_t>(s[j]);
    if (d < (got == 0 ? lo : 0x80) || d > (got == 0 ? hi : 0xBF)) break;
    ++j;
    ++got;
  }
  return {j - i, got == need};
}

size_t find_invalid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const Utf8Step st = utf8_step(s, i);
    if (!st.valid) return i;
    i += st.length;
  }
  return std::string_view::npos;
}

size_t find_control_character(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) return i;
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9F) return i;  // U+0080-U+009F
  }
  return std::string_view::npos;
}

}  // namespace nanotrn
