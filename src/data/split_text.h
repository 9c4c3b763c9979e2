// One plain text as many documents, for a single text file given where documents are expected
// (`nanotrn tokenizer train --input book.txt`): the tokenizer trainer caps each document at its first characters, so
// a whole book taken as one document would train on its first page.
//
//   SplitText s = split_text({"book.txt", text});   // s.docs: ids "book.txt#0", "book.txt#1", ...
//
// Paragraphs: lines up to a blank line (a line of only spaces, tabs and '\r') form one document. A text without any
// blank line is split into its lines instead. Empty pieces are dropped. A document's lines are joined with '\n'
// (a CRLF text's '\r' line ends are dropped); nothing else changes.
#pragma once

#include <vector>

#include "data/document.h"

namespace nanotrn::data {

struct SplitText {
  std::vector<Document> docs;
  bool by_paragraphs = false;  // false: the text had no blank line and was split into lines
};

SplitText split_text(const Document& whole);

}  // namespace nanotrn::data
