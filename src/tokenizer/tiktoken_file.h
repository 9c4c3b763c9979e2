// Tokenizer files as bytes in memory (the file reads and writes live in bpe.cpp / tokenizer.cpp), so that the
// parsers can be fuzzed (fuzz/tiktoken_fuzz.cpp).
//
// tiktoken rank file: one line per token, "<base64 of the token bytes> <rank>\n", ranks 0..n-1 each exactly once
// (any line order). Parse errors name `name` and the 1-based line.
// nanotrn metadata (tokenizer.json): {"format": "nanotrn-bpe", "version": 1, "pattern": "...",
//                                     "specials": ["<|reserved_0|>", ...]}  (specials take ids n_ranks, n_ranks+1, ...)
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nanotrn::tokenizer {

std::string base64_encode(std::string_view bytes);
// Strict standard-alphabet base64 with '=' padding to a multiple of 4; false on anything else.
bool base64_decode(std::string_view text, std::string* out);

// tokens[rank] -> the rank file's text, lines in rank order.
std::string format_tiktoken(const std::vector<std::string>& tokens);
// The rank file's text -> tokens[rank]. Throws Error "NAME:LINE: ..." on a malformed line, a repeated or missing
// rank, a repeated token, or an empty file.
std::vector<std::string> parse_tiktoken(std::string_view text, const std::string& name);

struct BpeMeta {
  std::string pattern;
  std::vector<std::string> specials;
};
std::string format_bpe_meta(const BpeMeta& meta);
// Throws Error naming `name` (and the JSON parser's line/column) on malformed or unsupported metadata.
BpeMeta parse_bpe_meta(std::string_view text, const std::string& name);

}  // namespace nanotrn::tokenizer
