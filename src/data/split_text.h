// One plain text as many documents, for a single text file given where documents are expected
// (`nanotrn tokenizer train --input book.txt`, `data prepare book.txt`): the tokenizer trainer caps each document at
// its first characters, so a whole book taken as one document would train on its first page.
//
//   SplitText s = split_text({"book.txt", text});   // s.docs: ids "book.txt#0", "book.txt#1", ...
//
// Pieces: paragraphs, the lines up to a blank line (a line of only spaces, tabs and '\r'), each paragraph's lines
// joined with '\n'; a text without any blank line has its lines as the pieces. Empty pieces are dropped; a CRLF
// text's '\r' line ends are dropped.
// Documents: consecutive pieces grouped up to `document_chars` bytes (a piece longer than that is a document alone),
// joined with the break they had: a blank line ("\n\n") between paragraphs, '\n' between lines. So the breaks stay
// in what the tokenizer learns and encodes (a document per paragraph had none: +2 % tokens on held-out text with
// blank lines); the default stays under the trainer's 10,000-character cap (bpe_train.h).
#pragma once

#include <cstddef>
#include <vector>

#include "data/document.h"

namespace nanotrn::data {

inline constexpr size_t kTextDocumentChars = 8000;

struct SplitText {
  std::vector<Document> docs;
  bool by_paragraphs = false;  // false: the text had no blank line and was split into lines
  size_t pieces = 0;           // paragraphs (or lines) grouped into docs
};

SplitText split_text(const Document& whole, size_t document_chars = kTextDocumentChars);

}  // namespace nanotrn::data
