// JSONL corpora. See jsonl.h.
#include "data/jsonl.h"
#include "base/json_parse.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "base/utf8.h"

namespace nanotrn::data {

size_t count_utf8_chars(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<uint8_t>(c) & 0xC0) != 0x80;
  return n;
}

void for_each_jsonl_object(
    std::string_view content, const std::string& name,
    const std::function<void(const nlohmann::json& object, int64_t line, const std::string& at)>& fn) {
  size_t pos = 0;
  int64_t line_no = 0;
  while (pos < content.size()) {
    ++line_no;
    size_t end = content.find('\n', pos);
    if (end == std::string_view::npos) end = content.size();
    const std::string_view line = content.substr(pos, end - pos);
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string at = name + ":" + std::to_string(line_no) + ": ";
    const size_t bad = find_invalid_utf8(line);
    check(bad == std::string_view::npos, at + "not valid UTF-8 at byte " + std::to_string(bad) + " of the line");
    nlohmann::json j;
    try {
      j = nanotrn::parse_json(line);
    } catch (const nlohmann::json::exception& e) {
      throw Error(at + "not valid JSON: " + e.what());
    }
    check(j.is_object(), at + "expected a JSON object");
    fn(j, line_no, at);
  }
}

std::vector<Document> parse_jsonl(std::string_view content, const std::string& name, const std::string& text_field,
                                  const std::string& id_name) {
  const std::string& id_base = id_name.empty() ? name : id_name;
  std::vector<Document> docs;
  for_each_jsonl_object(content, name, [&](const nlohmann::json& j, int64_t line_no, const std::string& where) {
    const auto it = j.find(text_field);
    check(it != j.end(), where + "no \"" + text_field + "\" field");
    check(it->is_string(), where + "the \"" + text_field + "\" field is not a string");
    Document d;
    d.text = it->get<std::string>();
    const size_t bad = find_invalid_utf8(d.text);  // \u escapes decode to UTF-8 of their own
    check(bad == std::string_view::npos, where + "the text is not valid UTF-8 at byte " + std::to_string(bad));
    const auto id = j.find("id");
    d.id = id != j.end() && id->is_string() ? id->get<std::string>() : id_base + ":" + std::to_string(line_no);
    docs.push_back(std::move(d));
  });
  return docs;
}

std::vector<Document> read_jsonl(const std::string& path, const std::string& text_field, const std::string& id_name) {
  const std::vector<uint8_t> bytes = read_file(path);
  return parse_jsonl(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path, text_field,
                     id_name.empty() ? std::filesystem::path(path).filename().string() : id_name);
}

std::string format_jsonl(const std::vector<Document>& docs) {
  std::string out;
  for (const Document& d : docs) {
    out += nlohmann::json{{"id", d.id}, {"text", d.text}}.dump();
    out += '\n';
  }
  return out;
}

}  // namespace nanotrn::data
