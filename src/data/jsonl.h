// JSON Lines corpora: one JSON object per line, the document text in a string field ("text" by default).
//
//   std::vector<Document> docs = parse_jsonl(bytes, "corpus.jsonl");   // from memory (fuzzable)
//   std::vector<Document> docs = read_jsonl("corpus.jsonl");           // from a file
//
// The id of a document is its "id" field when that is a string, else "<id_name>:<line>", where id_name is name by
// default and read_jsonl's is the file's name without its folders (so that where a file lives never changes its
// documents' ids, nor so the train/validation split: corpus.h). Blank lines are allowed and
// ignored. Anything else that is not an object with a string text field is an Error "<name>:<line>: ...", as is text
// that is not valid UTF-8.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "data/document.h"

namespace nanotrn::data {

// The line rules every JSONL reader shares (documents here, CORE task files in icl/bundle.h): `fn` gets each non-blank
// line's JSON object, its 1-based line number and the "<name>:<line>: " prefix for its own messages. A line that is
// not valid UTF-8, not JSON or not an object is an Error with that prefix; blank lines (spaces, tabs, '\r') are
// skipped; '\n' ends a line, and a final line needs none.
void for_each_jsonl_object(
    std::string_view content, const std::string& name,
    const std::function<void(const nlohmann::json& object, int64_t line, const std::string& at)>& fn);

std::vector<Document> parse_jsonl(std::string_view content, const std::string& name,
                                  const std::string& text_field = "text", const std::string& id_name = "");
std::vector<Document> read_jsonl(const std::string& path, const std::string& text_field = "text",
                                 const std::string& id_name = "");

// One {"id": ..., "text": ...} object per line.
std::string format_jsonl(const std::vector<Document>& docs);

}  // namespace nanotrn::data
