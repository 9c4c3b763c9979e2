// JSON text parsed with a bound on its nesting. nlohmann's parser is iterative, but dumping, comparing and
// formatting a value recurse once per level: a file nested 10^5 deep (a checkpoint header, an HF config, a recipe)
// parsed fine and then overflowed the stack while its error message was built. Every JSON a user can hand nanotrn
// goes through here, so no nested value deeper than kMaxJsonDepth ever exists in the process.
// Not here: what the JSON means (each format's own reader), YAML (yaml-cpp bounds its own recursion).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace nanotrn {

// The deepest nesting of arrays and objects accepted. Every nanotrn format and every Hugging Face config uses fewer
// than ten levels; 256 leaves room for any honest file and bounds recursion at a few kilobytes of stack per level.
inline constexpr int kMaxJsonDepth = 256;

// The byte offset of the bracket that opens level max_depth + 1 (outside strings), or std::string_view::npos when
// the text never nests that deep. Malformed text is not judged here: the parser reports it.
std::size_t json_too_deep_at(std::string_view text, int max_depth = kMaxJsonDepth);

// nlohmann::json::parse with the nesting bound. Too deep is reported as the parser reports any malformation, a
// nlohmann::json::parse_error (id 101) at that byte, so a caller's existing handler names the file; the
// non-throwing form returns a discarded value as the parser does.
nlohmann::json parse_json(std::string_view text);
nlohmann::json parse_json_or_discarded(std::string_view text);
// The same for a file's bytes as read_file returns them.
nlohmann::json parse_json(const std::vector<uint8_t>& bytes);
nlohmann::json parse_json_or_discarded(const std::vector<uint8_t>& bytes);

// The bound alone, for a caller that parses with its own callback: throws the parse_error parse_json would.
void check_json_depth(std::string_view text);

}  // namespace nanotrn
