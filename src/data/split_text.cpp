// Paragraphs or lines of a plain text. See split_text.h.
#include "data/split_text.h"

#include <string_view>
#include <utility>

namespace nanotrn::data {

namespace {

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

// The lines of s without their '\n' (and without a final '\r'); a final '\n' ends the last line.
std::vector<std::string_view> lines_of(std::string_view s) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (at < s.size()) {
    const size_t nl = s.find('\n', at);
    std::string_view line = s.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  return out;
}

// The paragraphs (lines up to a blank line, joined with '\n') or, with no blank line, the lines.
std::vector<std::string> pieces_of(const std::vector<std::string_view>& lines, bool paragraphs) {
  std::vector<std::string> pieces;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) pieces.push_back(std::move(current));
    current.clear();
  };
  for (std::string_view l : lines) {
    if (is_blank(l)) {
      flush();
      continue;
    }
    if (!current.empty()) current += '\n';
    current += l;
    if (!paragraphs) flush();
  }
  flush();
  return pieces;
}

}  // namespace

SplitText split_text(const Document& whole, size_t document_chars) {
  const std::vector<std::string_view> lines = lines_of(whole.text);
  bool paragraphs = false;
  for (std::string_view l : lines) paragraphs = paragraphs || is_blank(l);
  const std::vector<std::string> pieces = pieces_of(lines, paragraphs);
  const std::string_view sep = paragraphs ? "\n\n" : "\n";
  std::vector<Document> docs;
  std::string current;
  for (const std::string& piece : pieces) {
    if (!current.empty() && current.size() + sep.size() + piece.size() > document_chars) {
      docs.push_back({whole.id + "#" + std::to_string(docs.size()), std::move(current)});
      current.clear();
    }
    if (!current.empty()) current += sep;
    current += piece;
  }
  if (!current.empty()) docs.push_back({whole.id + "#" + std::to_string(docs.size()), std::move(current)});
  return {std::move(docs), paragraphs, pieces.size()};
}

}  // namespace nanotrn::data
