// A strict CSV reader (RFC 4180): a header row, then rows of exactly as many fields. For the CORE eval bundle's
// eval_meta_data.csv, whose descriptions hold quoted commas, doubled quotes and line breaks.
//
//   CsvTable t = read_csv("eval_bundle/eval_meta_data.csv");      // or parse_csv(text, name): from memory (fuzzable)
//   const size_t task = t.column("Eval Task"), shots = t.column("#shots");
//   for (size_t r = 0; r < t.rows.size(); r++) use(t.cell(r, task), t.cell(r, shots), t.row_lines[r]);
//
// Accepted: fields separated by ',' and records ended by LF or CRLF; a field either unquoted (no '"', CR or LF in
// it) or wholly quoted, where "" stands for one '"' and ',', CR and LF are kept verbatim; a UTF-8 byte-order mark
// at the very start (dropped); a last record with or without its line break; blank lines at the end (ignored).
// No whitespace is trimmed. Every other input is an Error "<name>:<line>: <what is wrong>", lines counted from 1
// as a text editor does (a line break inside quotes starts a new line):
//   a '"' inside an unquoted field; text after a closing quote; a quote never closed (the line where its field
//   started); a CR not followed by LF outside quotes; a blank line before the end of the table; a row whose number
//   of fields differs from the header's (both counts named); two columns with the same name; invalid UTF-8; an
//   input with no header row.
// Not here: other separators, type conversion of cells, writing CSV.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nanotrn::io {

struct CsvTable {
  std::string name;                            // the name errors carry (read_csv: the path)
  std::vector<std::string> header;             // the column names, in file order; never empty
  std::vector<std::vector<std::string>> rows;  // each exactly header.size() cells
  std::vector<size_t> row_lines;               // the line on which rows[r] starts, for callers' own errors

  // The index of the column named `header_name`; an unknown name is an Error listing the columns there are.
  size_t column(const std::string& header_name) const;
  // rows[row][column], bounds-checked (an Error naming the table and the sizes).
  const std::string& cell(size_t row, size_t column) const;
};

CsvTable parse_csv(std::string_view text, const std::string& name);
// The file at `path`, read whole; errors are named after `path`.
CsvTable read_csv(const std::string& path);

// The writer's side of the same rule: `s` as one field, unquoted when it holds no ',', '"', CR or LF, else wholly
// quoted with each '"' doubled, so parse_csv reads it back as `s`.
std::string csv_field(std::string_view s);

}  // namespace nanotrn::io
