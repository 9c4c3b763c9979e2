#include "base/json_parse.h"

#include <string>

namespace nanotrn {

std::size_t json_too_deep_at(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return std::string_view::npos;
}

void check_json_depth(std::string_view text) {
  const std::size_t at = json_too_deep_at(text);
  if (at == std::string_view::npos) return;
  throw nlohmann::json::parse_error::create(
      101, at + 1, "arrays and objects nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
      static_cast<const nlohmann::json*>(nullptr));
}

nlohmann::json parse_json(std::string_view text) {
  check_json_depth(text);
  return nlohmann::json::parse(text.begin(), text.end());
}

nlohmann::json parse_json_or_discarded(std::string_view text) {
  if (json_too_deep_at(text) != std::string_view::npos) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

namespace {
std::string_view as_text(const std::vector<uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}
}  // namespace

nlohmann::json parse_json(const std::vector<uint8_t>& bytes) { return parse_json(as_text(bytes)); }
nlohmann::json parse_json_or_discarded(const std::vector<uint8_t>& bytes) {
  return parse_json_or_discarded(as_text(bytes));
}

}  // namespace nanotrn
