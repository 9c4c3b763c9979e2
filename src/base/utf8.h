// The one UTF-8 decoding step that corpus validation, recipe overrides and the token-bytes table share.
//
//   for (size_t i = 0; i < s.size();) { Utf8Step st = utf8_step(s, i); ...; i += st.length; }
//
// At s[i] (i < s.size()) there is either a well-formed character (1-4 bytes; no overlongs, surrogates or code
// points above U+10FFFF) or an ill-formed sequence: then `length` is its maximal subpart, the unit a decoder
// replaces with one U+FFFD (Unicode §3.9 / Python's errors="replace"), at least 1 byte.
#pragma once

#include <cstddef>
#include <string_view>

namespace nanotrn {

struct Utf8Step {
  size_t length = 1;
  bool valid = true;
};

Utf8Step utf8_step(std::string_view s, size_t i);

// The byte offset of the first invalid UTF-8 sequence in s (overlongs, surrogates and > U+10FFFF are invalid), or
// std::string_view::npos when s is valid.
size_t find_invalid_utf8(std::string_view s);

// The byte offset of the first control character in s (C0 U+0000-U+001F, DEL U+007F, C1 U+0080-U+009F), or npos.
// A name that reaches a terminal (a task label) must hold none: ESC starts the escape sequences that recolour, move
// or retitle a terminal. s must be valid UTF-8.
size_t find_control_character(std::string_view s);

}  // namespace nanotrn
