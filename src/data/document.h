// A document of a text corpus: a stable id (used for the train/validation split) and its UTF-8 text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/utf8.h"  // find_invalid_utf8, which documents are checked with

namespace nanotrn::data {

struct Document {
  std::string id;
  std::string text;
};

// Number of UTF-8 characters (bytes that are not continuation bytes 10xxxxxx).
size_t count_utf8_chars(std::string_view s);

}  // namespace nanotrn::data
