// A document of a text corpus: a stable id (used for the train/validation split) and its UTF-8 text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nanotrn::data {

struct Document {
  std::string id;
  std::string text;
};

// The byte offset of the first invalid UTF-8 sequence in s (overlongs, surrogates and > U+10FFFF are invalid), or
// std::string_view::npos when s is valid.
size_t find_invalid_utf8(std::string_view s);

// Number of UTF-8 characters (bytes that are not continuation bytes 10xxxxxx).
size_t count_utf8_chars(std::string_view s);

}  // namespace nanotrn::data
