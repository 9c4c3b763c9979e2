// The one rule the tests hold a hardware number's source text to (device catalog numbers and NeuronCore
// parameters alike): either it cites, or it says plainly why it needs no citation.
//
//   const std::string why = citation_problem(num.source, catalog.sources());   // "" when acceptable
//   EXPECT_EQ(why, "") << d.name << "." << field;
//
// A citing source contains bracket groups, and every one of them must be well formed: "[derived]" (arithmetic on
// cited figures) or a reference tag, an upper-case letter followed by one or more upper-case letters, digits or
// '-' ("[TRN2]", "[ISA-2025-10]"), each a key of the catalog's sources table; brackets must pair up, and at least
// one tag must be cited ("[derived]" alone names no figure). A source without brackets must start with one of the
// plain reasons: "assumed:", "measured at run time", "not applicable", "not modelled", "one ", "roofline:",
// "this host". Stricter than hw::source_tags, which skips what is not a tag: here "[trn2]", "[TRN 2]", "[X]",
// "[TRN2" or an unknown tag is a problem, never silently not a citation.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

#include "hw/catalog.h"

namespace nanotrn::testing_support {

inline bool is_reference_tag(std::string_view s) {
  if (s.size() < 2 || !std::isupper(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s.substr(1))
    if (!std::isupper(static_cast<unsigned char>(c)) && !std::isdigit(static_cast<unsigned char>(c)) && c != '-')
      return false;
  return true;
}

// "" when `source` is acceptable, else what is wrong with it.
inline std::string citation_problem(std::string_view source, const hw::SourceTable& sources) {
  if (source.find_first_of("[]") == std::string_view::npos) {
    for (std::string_view reason :
         {"assumed:", "measured at run time", "not applicable", "not modelled", "one ", "roofline:", "this host"})
      if (source.substr(0, reason.size()) == reason) return "";
    return "no reference tag and no stated reason: '" + std::string(source) + "'";
  }
  int tags = 0;
  for (size_t at = 0; at < source.size(); ++at) {
    if (source[at] == ']')
      return "']' without '[' at offset " + std::to_string(at) + " of '" + std::string(source) + "'";
    if (source[at] != '[') continue;
    const size_t close = source.find_first_of("[]", at + 1);
    if (close == std::string_view::npos || source[close] != ']')
      return "unclosed '[' at offset " + std::to_string(at) + " of '" + std::string(source) + "'";
    const std::string_view inside = source.substr(at + 1, close - at - 1);
    if (inside != "derived") {
      if (!is_reference_tag(inside)) return "malformed tag '[" + std::string(inside) + "]'";
      if (sources.find(inside) == sources.end())
        return "tag [" + std::string(inside) + "] is not in the catalog's sources table";
      tags++;
    }
    at = close;
  }
  if (tags == 0) return "no reference tag cited: '" + std::string(source) + "'";
  return "";
}

}  // namespace nanotrn::testing_support
