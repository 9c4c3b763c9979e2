// The CSV reader of csv.h: one pass over the bytes, a record at a time, counting lines as it goes.
#include "io/csv.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "base/error.h"
#include "base/file.h"
#include "base/utf8.h"

namespace nanotrn::io {
namespace {

// "1 field", "2 fields".
std::string count(size_t n, const std::string& noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

struct Record {
  std::vector<std::string> fields;
  size_t line = 0;     // where it starts
  bool blank = false;  // an empty line: one unquoted, empty field
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  bool done() const { return pos_ >= text_.size(); }

  // The record starting at pos_ (which is not at the end); pos_ moves past its line break.
  Record next() {
    Record record;
    record.line = line_;
    const bool first_quoted = pos_ < text_.size() && text_[pos_] == '"';
    for (;;) {
      const bool quoted = pos_ < text_.size() && text_[pos_] == '"';
      record.fields.push_back(quoted ? quoted_field(record.fields.size() + 1)
                                     : unquoted_field(record.fields.size() + 1));
      if (done()) break;
      const char c = text_[pos_++];
      if (c == ',') continue;
      if (c == '\r') {
        if (done() || text_[pos_] != '\n') {
          fail(line_, "a carriage return not followed by a line feed (outside quotes)");
        }
        pos_++;
      }
      line_++;  // c was '\n', or '\r' and then '\n'
      break;
    }
    record.blank = record.fields.size() == 1 && record.fields[0].empty() && !first_quoted;
    return record;
  }

  [[noreturn]] void fail(size_t line, const std::string& what) const {
    throw Error(name_ + ":" + std::to_string(line) + ": " + what);
  }

 private:
  // Field number `number` (from 1) of its record, unquoted: up to the next ',', CR or LF.
  std::string unquoted_field(size_t number) {
    const size_t start = pos_;
    while (!done()) {
      const char c = text_[pos_];
      if (c == ',' || c == '\n' || c == '\r') break;
      if (c == '"') {
        fail(line_, "a '\"' inside unquoted field " + std::to_string(number) +
                        (pos_ > start && text_[pos_ - 1] == ' ' ? " (a space before an opening quote?)" : "") +
                        "; a field holding quotes must be quoted whole, each '\"' doubled");
      }
      pos_++;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  // The same, quoted: from the '"' at pos_ to its closing quote, which must end the field.
  std::string quoted_field(size_t number) {
    const size_t start_line = line_;
    pos_++;  // the opening quote
    std::string field;
    for (;;) {
      if (done()) fail(start_line, "field " + std::to_string(number) + " opens a quote that is never closed");
      const char c = text_[pos_++];
      if (c == '"') {
        if (done() || text_[pos_] != '"') break;
        pos_++;  // "" is one quote
      } else if (c == '\n') {
        line_++;
      }
      field += c;
    }
    if (!done() && text_[pos_] != ',' && text_[pos_] != '\n' && text_[pos_] != '\r') {
      fail(line_, "text after the closing quote of field " + std::to_string(number) +
                      " (a '\"' inside a quoted field is written \"\")");
    }
    return field;
  }

  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0, line_ = 1;
};

}  // namespace

CsvTable parse_csv(std::string_view text, const std::string& name) {
  if (const size_t bad = find_invalid_utf8(text); bad != std::string_view::npos) {
    const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + bad, '\n'));
    throw Error(name + ":" + std::to_string(line) + ": invalid UTF-8 at byte " + std::to_string(bad));
  }
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  Parser parser(text, name);
  std::vector<Record> records;
  while (!parser.done()) records.push_back(parser.next());
  while (!records.empty() && records.back().blank) records.pop_back();
  if (records.empty()) parser.fail(1, "no header row (the input is empty or only blank lines)");

  CsvTable table;
  table.name = name;
  for (const Record& r : records) {
    if (r.blank) {
      parser.fail(r.line, "blank line inside the table (a row of one empty field is written \"\")");
    }
  }
  table.header = std::move(records[0].fields);
  std::unordered_map<std::string_view, size_t> seen;  // column name -> its index
  for (size_t i = 0; i < table.header.size(); i++) {
    const auto [it, fresh] = seen.emplace(table.header[i], i);
    if (!fresh) {
      parser.fail(records[0].line, "columns " + std::to_string(it->second + 1) + " and " + std::to_string(i + 1) +
                                       " are both named '" + table.header[i] + "'");
    }
  }
  for (size_t r = 1; r < records.size(); r++) {
    if (records[r].fields.size() != table.header.size()) {
      parser.fail(records[r].line, "a row of " + count(records[r].fields.size(), "field") + ", but the header has " +
                                       count(table.header.size(), "field"));
    }
    table.rows.push_back(std::move(records[r].fields));
    table.row_lines.push_back(records[r].line);
  }
  return table;
}

CsvTable read_csv(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  return parse_csv(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

size_t CsvTable::column(const std::string& header_name) const {
  for (size_t i = 0; i < header.size(); i++) {
    if (header[i] == header_name) return i;
  }
  std::string columns;
  for (const std::string& h : header) columns += (columns.empty() ? "'" : ", '") + h + "'";
  throw Error(name + ": no column '" + header_name + "'; the columns are " + columns);
}

const std::string& CsvTable::cell(size_t row, size_t column) const {
  if (row >= rows.size() || column >= header.size()) {
    throw Error(name + ": no cell (row " + std::to_string(row) + ", column " + std::to_string(column) +
                "): the table has " + count(rows.size(), "row") + " of " + count(header.size(), "column"));
  }
  return rows[row][column];
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

}  // namespace nanotrn::io
