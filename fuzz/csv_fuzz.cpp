// libFuzzer target: the strict CSV reader (src/io/csv.h). Either the input parses into a table whose rows all have
// the header's width, whose cells are valid UTF-8 and whose row lines increase, and which written back as CSV
// (every field quoted, each '"' doubled) parses to the same table; or it throws nanotrn::Error. Any other exception
// escapes and fails the run. Built and run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/utf8.h"
#include "io/csv.h"

namespace {

void append_record(std::string& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); i++) {
    out += i == 0 ? "\"" : ",\"";
    for (char c : fields[i]) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    out += '"';
  }
  out += "\r\n";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const nanotrn::io::CsvTable t = nanotrn::io::parse_csv(text, "fuzz.csv");
    if (t.header.empty() || t.rows.size() != t.row_lines.size()) __builtin_trap();
    for (size_t r = 0; r < t.rows.size(); r++) {
      if (t.rows[r].size() != t.header.size()) __builtin_trap();
      if (t.row_lines[r] < 2 || (r > 0 && t.row_lines[r] <= t.row_lines[r - 1])) __builtin_trap();
      for (const std::string& cell : t.rows[r]) {
        if (nanotrn::find_invalid_utf8(cell) != std::string_view::npos) __builtin_trap();
      }
    }
    std::string again_text;
    append_record(again_text, t.header);
    for (const auto& row : t.rows) append_record(again_text, row);
    const nanotrn::io::CsvTable again = nanotrn::io::parse_csv(again_text, "again.csv");
    if (again.header != t.header || again.rows != t.rows) __builtin_trap();
    for (size_t c = 0; c < t.header.size(); c++) {
      if (t.column(t.header[c]) != c) __builtin_trap();
    }
  } catch (const nanotrn::Error&) {
  }
  return 0;
}
