// tiktoken rank files and nanotrn tokenizer metadata. See tiktoken_file.h.
#include "tokenizer/tiktoken_file.h"
#include "base/json_parse.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "base/error.h"

namespace nanotrn::tokenizer {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

bool base64_decode(std::string_view text, std::string* out) {
  out->clear();
  if (text.size() % 4 != 0) return false;
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=' && last && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return false;  // data after padding
      v[k] = base64_value(c);
      if (v[k] < 0) return false;
    }
    const uint32_t w = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    // Non-canonical encodings (bits set in the padding) are rejected, so decode(encode(x)) is a bijection.
    if ((pad == 1 && (w & 0xFF) != 0) || (pad == 2 && (w & 0xFFFF) != 0)) return false;
    out->push_back(static_cast<char>(w >> 16));
    if (pad < 2) out->push_back(static_cast<char>((w >> 8) & 0xFF));
    if (pad < 1) out->push_back(static_cast<char>(w & 0xFF));
  }
  return true;
}

std::string format_tiktoken(const std::vector<std::string>& tokens) {
  std::string out;
  for (size_t i = 0; i < tokens.size(); ++i) out += base64_encode(tokens[i]) + " " + std::to_string(i) + "\n";
  return out;
}

std::vector<std::string> parse_tiktoken(std::string_view text, const std::string& name) {
  std::vector<std::string> tokens;
  std::vector<bool> seen;
  std::vector<std::pair<size_t, std::string>> by_line;  // (rank, bytes)
  std::unordered_map<std::string, size_t> first_line;   // bytes -> the line that defined them
  const size_t max_lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  size_t line_no = 0, pos = 0, max_rank_line = 1;
  while (pos < text.size()) {
    ++line_no;
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = name + ":" + std::to_string(line_no) + ": ";
    if (line.empty()) continue;  // tolerate blank lines (e.g. a trailing one)
    const size_t space = line.find(' ');
    check(space != std::string_view::npos, where + "expected '<base64 token> <rank>', found no space");
    std::string bytes;
    check(base64_decode(line.substr(0, space), &bytes), where + "the token is not valid base64");
    check(!bytes.empty(), where + "the token is empty");
    const std::string_view rank_text = line.substr(space + 1);
    size_t rank = 0;
    const auto [ptr, ec] = std::from_chars(rank_text.data(), rank_text.data() + rank_text.size(), rank);
    check(ec == std::errc() && ptr == rank_text.data() + rank_text.size() && !rank_text.empty(),
          where + "the rank '" + std::string(rank_text.substr(0, 32)) + "' is not a non-negative integer");
    check(rank < max_lines, where + "the rank " + std::to_string(rank) + " is larger than the number of lines");
    const auto [it, fresh] = first_line.emplace(bytes, line_no);
    check(fresh, where + "the token repeats the bytes of line " + std::to_string(it->second));
    by_line.push_back({rank, std::move(bytes)});
    if (seen.size() <= rank) {
      seen.resize(rank + 1, false);
      max_rank_line = line_no;
    }
    check(!seen[rank], where + "rank " + std::to_string(rank) + " appears twice");
    seen[rank] = true;
  }
  check(!by_line.empty(), name + ":1: the rank file has no tokens");
  check(seen.size() == by_line.size(), name + ":" + std::to_string(max_rank_line) +
                                           ": ranks are not dense: the largest is " + std::to_string(seen.size() - 1) +
                                           " but there are " + std::to_string(by_line.size()) + " tokens");
  tokens.resize(by_line.size());
  for (auto& [rank, bytes] : by_line) tokens[rank] = std::move(bytes);
  return tokens;
}

std::string format_bpe_meta(const BpeMeta& meta) {
  nlohmann::ordered_json j;
  j["format"] = "nanotrn-bpe";
  j["version"] = 1;
  j["pattern"] = meta.pattern;
  j["specials"] = meta.specials;
  return j.dump(2) + "\n";
}

BpeMeta parse_bpe_meta(std::string_view text, const std::string& name) {
  nlohmann::json j;
  try {
    j = nanotrn::parse_json(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(name + ": not valid JSON: " + e.what());
  }
  check(j.is_object(), name + ": expected a JSON object");
  check(j.contains("format") && j["format"] == "nanotrn-bpe", name + ": \"format\" is not \"nanotrn-bpe\"");
  check(j.contains("version") && j["version"].is_number_integer() && j["version"].get<int64_t>() == 1,
        name + ": unsupported \"version\" (this build reads version 1)");
  check(j.contains("pattern") && j["pattern"].is_string(), name + ": \"pattern\" must be a string");
  check(j.contains("specials") && j["specials"].is_array(), name + ": \"specials\" must be an array of strings");
  BpeMeta meta;
  meta.pattern = j["pattern"].get<std::string>();
  for (size_t i = 0; i < j["specials"].size(); ++i) {
    const auto& s = j["specials"][i];
    check(s.is_string() && !s.get<std::string>().empty(),
          name + ": specials[" + std::to_string(i) + "] must be a non-empty string");
    meta.specials.push_back(s.get<std::string>());
  }
  return meta;
}

}  // namespace nanotrn::tokenizer
