// The Parquet text reader against files written by independent writers (tests/io/parquet/: parquet-wasm, i.e.
// arrow-rs, and hyparquet-writer; make_fixtures.mjs wrote them with a .jsonl of the values each was written from and
// fixtures.json, what another reader saw), then against small files built here byte by byte, each malformed in one
// way the reader must refuse with the message it names.
#include "io/parquet.h"

#include <gtest/gtest.h>
#include <snappy-c.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/error_of.h"
#include "support/source_path.h"

namespace nanotrn::io::parquet_test {
namespace {

using nlohmann::json;
using testing_support::error_message_of;

const std::string kDir = testing_support::source_path("tests/io/parquet/");

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "parquet_test_" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

struct Read {
  std::vector<std::string> values;
  ParquetReadStats stats;
};

Read read(const std::string& path, const std::string& column) {
  Read r;
  r.stats = read_parquet_strings(path, column, [&](std::string_view v) { r.values.emplace_back(v); });
  return r;
}

Read read_memory(const std::string& bytes, const std::string& column, uint64_t max_page = kParquetMaxPageBytes) {
  Read r;
  r.stats = read_parquet_strings_from_memory(
      bytes, "mem.parquet", column, [&](std::string_view v) { r.values.emplace_back(v); }, max_page);
  return r;
}

// The non-null values of `column` in a fixture's .jsonl, and its nulls.
struct Expected {
  std::vector<std::string> values;
  uint64_t nulls = 0;
};

Expected expected(const std::string& jsonl, const std::string& column) {
  Expected e;
  std::istringstream lines(slurp(kDir + jsonl));
  for (std::string line; std::getline(lines, line);) {
    const json row = json::parse(line);
    if (row.at(column).is_null())
      e.nulls++;
    else
      e.values.push_back(row.at(column).get<std::string>());
  }
  return e;
}

json manifest() { return json::parse(slurp(kDir + "fixtures.json")); }

// Calls check(fixture, path, column) for every text column of every fixture that is not refused; the count.
template <class Check>
int for_each_fixture_column(Check check) {
  int checked = 0;
  const json all = manifest();
  for (const json& f : all.at("fixtures")) {
    if (f.contains("refused")) continue;
    const std::string path = kDir + f.at("file").get<std::string>();
    for (const std::string column : f.at("text_columns")) {
      SCOPED_TRACE(path + " column " + column);
      check(f, path, column);
      checked++;
    }
  }
  return checked;
}

TEST(Parquet, ReadsEveryFixtureAsItsWriterWroteIt) {
  const int checked = for_each_fixture_column([](const json& f, const std::string& path, const std::string& column) {
    const Expected want = expected(f.at("expected"), column);
    const Read got = read(path, column);
    EXPECT_EQ(got.values, want.values);
    EXPECT_EQ(got.stats.nulls, want.nulls);
    EXPECT_EQ(got.stats.values, want.values.size());
    EXPECT_EQ(got.stats.rows, f.at("rows").get<uint64_t>());
    EXPECT_EQ(got.stats.row_groups, f.at("row_groups").get<uint64_t>());
    // The page counts the writer recorded (ColumnMetaData.encoding_stats, read by hyparquet).
    if (f.at("columns").contains(column)) {
      const json& pages = f.at("columns").at(column).at("pages");
      EXPECT_EQ(got.stats.dictionary_pages, pages.value("DICTIONARY_PAGE", 0u));
      EXPECT_EQ(got.stats.data_pages_v1, pages.value("DATA_PAGE", 0u));
      EXPECT_EQ(got.stats.data_pages_v2, pages.value("DATA_PAGE_V2", 0u));
    }
    EXPECT_EQ(read_memory(slurp(path), column).values, want.values);
  });
  EXPECT_GE(checked, 20);
}

// read_parquet_rows: each value with its row in the file, i.e. its line in the writer's .jsonl (nulls counted, across
// pages and row groups).
TEST(Parquet, RowsAreTheWritersRowsNullsCounted) {
  const int checked = for_each_fixture_column([](const json& f, const std::string& path, const std::string& column) {
    std::vector<uint64_t> want;
    std::istringstream lines(slurp(kDir + f.at("expected").get<std::string>()));
    uint64_t row = 0;
    for (std::string line; std::getline(lines, line); row++) {
      if (!json::parse(line).at(column).is_null()) want.push_back(row);
    }
    std::vector<uint64_t> rows;
    std::vector<std::string> values;
    const ParquetReadStats s = read_parquet_rows(path, column, [&](uint64_t r, std::string_view v) {
      rows.push_back(r);
      values.emplace_back(v);
    });
    EXPECT_EQ(rows, want);
    EXPECT_EQ(values, expected(f.at("expected"), column).values);
    EXPECT_EQ(s.rows, row);
  });
  EXPECT_GE(checked, 20);
}

// The shapes the issue asks for, each present among the fixtures.
TEST(Parquet, FixturesCoverPageVersionsCodecsAndDictionaries) {
  std::set<std::string> seen;
  const json all = manifest();
  for (const json& f : all.at("fixtures")) {
    if (f.contains("refused") || !f.at("columns").contains("text")) continue;
    const json& c = f.at("columns").at("text");
    const std::string pages = c.at("pages").contains("DATA_PAGE_V2") ? "v2" : "v1";
    const bool dictionary = c.at("pages").contains("DICTIONARY_PAGE");
    seen.insert(pages + " " + c.at("codec").get<std::string>() + (dictionary ? " dictionary" : " no-dictionary"));
    for (const std::string encoding : c.at("encodings")) seen.insert(encoding);
  }
  for (const char* want : {"v1 SNAPPY no-dictionary", "v1 ZSTD dictionary", "v2 ZSTD no-dictionary",
                           "v2 SNAPPY dictionary", "v1 UNCOMPRESSED no-dictionary", "v2 UNCOMPRESSED dictionary",
                           "PLAIN", "RLE_DICTIONARY", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY"}) {
    EXPECT_TRUE(seen.count(want)) << want;
  }
}

TEST(Parquet, ReadsSeveralRowGroupsWithSeveralPagesAndADictionaryFallback) {
  for (const char* name : {"row_groups_pages_v1.parquet", "row_groups_pages_v2.parquet"}) {
    const Read r = read(kDir + name, "text");
    EXPECT_EQ(r.stats.row_groups, 4u) << name;
    EXPECT_EQ(r.stats.dictionary_pages, 4u) << name;
    EXPECT_GE(r.stats.data_pages_v1 + r.stats.data_pages_v2, 8u) << name;
    EXPECT_EQ(r.stats.rows, 200u) << name;
  }
}

TEST(Parquet, KeepsUnicodeLineBreaksAndNulBytesExactly) {
  const Read r = read(kDir + "v1_plain_snappy.parquet", "text");
  auto any = [&](const std::string& part) {
    for (const std::string& v : r.values) {
      if (v.find(part) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(any("中文文本, 日本語のテキスト, 한국어, emoji 🙂🚀"));
  EXPECT_TRUE(any("line two\n\nparagraph two"));
  EXPECT_TRUE(any("\r\nline endings\r\n"));
  EXPECT_TRUE(any(std::string("nul\0byte", 8)));
  EXPECT_TRUE(any("e\xcc\x81"));  // e + combining acute accent
}

TEST(Parquet, SkipsAndCountsNulls) {
  const Read some = read(kDir + "nulls_v1_dict_snappy.parquet", "text");
  EXPECT_GT(some.stats.nulls, 0u);
  EXPECT_EQ(some.stats.nulls + some.stats.values, some.stats.rows);
  const Read all = read(kDir + "all_nulls_v2.parquet", "text");
  EXPECT_TRUE(all.values.empty());
  EXPECT_EQ(all.stats.nulls, 12u);
  const Read none = read(kDir + "empty.parquet", "text");
  EXPECT_TRUE(none.values.empty());
  EXPECT_EQ(none.stats.row_groups, 0u);
}

TEST(Parquet, ListsColumnsAndReadsTheOneNamed) {
  const std::string path = kDir + "columns.parquet";
  EXPECT_EQ(parquet_column_names(path), (std::vector<std::string>{"id", "title", "text", "tags", "score"}));
  const std::vector<ParquetColumnInfo> columns = parquet_columns(path);
  ASSERT_EQ(columns.size(), 5u);
  EXPECT_EQ(columns[0].type, "INT32");
  EXPECT_EQ(columns[0].repetition, "REQUIRED");
  EXPECT_FALSE(columns[0].readable);
  EXPECT_EQ(columns[1].type, "BYTE_ARRAY");
  EXPECT_EQ(columns[1].annotation, "STRING");
  EXPECT_EQ(columns[1].repetition, "OPTIONAL");
  EXPECT_TRUE(columns[1].readable);
  EXPECT_EQ(columns[3].type, "group");
  EXPECT_FALSE(columns[3].readable);
  const Read title = read(path, "title"), text = read(path, "text");
  EXPECT_EQ(title.values, expected("columns.jsonl", "title").values);
  EXPECT_EQ(text.values, expected("columns.jsonl", "text").values);
  EXPECT_NE(title.values, text.values);
}

TEST(Parquet, InfoCountsRowsAndRowGroupsFromTheFooter) {
  const ParquetFileInfo info = parquet_info(kDir + "row_groups_pages_v2.parquet");
  EXPECT_EQ(info.rows, 200u);
  EXPECT_EQ(info.row_groups, 4u);
  ASSERT_EQ(info.columns.size(), 1u);
  EXPECT_EQ(info.columns[0].name, "text");
  EXPECT_TRUE(info.columns[0].readable);
  // A codec the reader lacks is only refused when pages are read.
  EXPECT_EQ(parquet_info(kDir + "codec_gzip.parquet").rows, 20u);
}

TEST(Parquet, LooksLikeParquetChecksTheMagicOnly) {
  EXPECT_TRUE(looks_like_parquet(kDir + "v1_plain_snappy.parquet"));
  EXPECT_TRUE(looks_like_parquet(kDir + "codec_gzip.parquet"));
  EXPECT_FALSE(looks_like_parquet(kDir + "v1_plain_snappy.jsonl"));
  EXPECT_FALSE(looks_like_parquet(kDir + "no_such_file.parquet"));
  EXPECT_FALSE(looks_like_parquet(write_temp("empty", "")));
}

// ---- refusals of the writers' files ----

TEST(Parquet, RefusesCodecsAndEncodingsItLacksNamingThem) {
  int refused = 0;
  const json all = manifest();
  for (const json& f : all.at("fixtures")) {
    if (!f.contains("refused")) continue;
    const std::string path = kDir + f.at("file").get<std::string>();
    const std::string column = f.at("refused").at("column"), what = f.at("refused").at("error");
    const std::string message = error_message_of([&] { read(path, column); });
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("'" + column + "'"), std::string::npos) << message;
    refused++;
  }
  EXPECT_EQ(refused, 4);  // GZIP, LZ4_RAW, BROTLI, BYTE_STREAM_SPLIT
}

TEST(Parquet, RefusesAPlainTextFile) {
  const std::string path = kDir + "v1_plain_snappy.jsonl";
  EXPECT_EQ(error_message_of([&] { read(path, "text"); }),
            "not a Parquet file: " + path + " (no PAR1 magic at offset 0)");
  EXPECT_EQ(error_message_of([&] { parquet_columns(path); }),
            "not a Parquet file: " + path + " (no PAR1 magic at offset 0)");
  const std::string empty = write_temp("empty.parquet", "");
  EXPECT_EQ(error_message_of([&] { read(empty, "text"); }),
            "not a Parquet file: " + empty + " (no PAR1 magic at offset 0)");
  EXPECT_NE(error_message_of([&] { read(kDir + "missing.parquet", "text"); }).find("cannot open"), std::string::npos);
}

TEST(Parquet, RefusesAMissingColumnListingTheColumns) {
  const std::string path = kDir + "columns.parquet";
  EXPECT_EQ(error_message_of([&] { read(path, "body"); }),
            path +
                ": no column 'body'; the file's columns: id (INT32, REQUIRED), title (BYTE_ARRAY STRING, OPTIONAL), "
                "text (BYTE_ARRAY STRING, OPTIONAL), tags (group, OPTIONAL), score (DOUBLE, OPTIONAL)");
}

TEST(Parquet, RefusesColumnsThatAreNotFlatText) {
  const std::string path = kDir + "columns.parquet";
  EXPECT_NE(error_message_of([&] { read(path, "id"); }).find("column 'id' has type INT32, not text (BYTE_ARRAY)"),
            std::string::npos);
  EXPECT_NE(error_message_of([&] { read(path, "score"); }).find("has type DOUBLE"), std::string::npos);
  EXPECT_NE(error_message_of([&] { read(path, "tags"); }).find("column 'tags' is nested"), std::string::npos);
}

TEST(Parquet, RefusesTruncatedFilesAtEveryLength) {
  const std::string bytes = slurp(kDir + "v1_dict_zstd.parquet");
  for (size_t n = 0; n < bytes.size(); n++) {
    const std::string message = error_message_of([&] { read_memory(bytes.substr(0, n), "text"); });
    ASSERT_FALSE(message.empty()) << "cut at " << n;
  }
  const std::string path = write_temp("cut.parquet", bytes.substr(0, bytes.size() - 1));
  EXPECT_EQ(error_message_of([&] { read(path, "text"); }),
            path + ": byte " + std::to_string(bytes.size() - 5) +
                ": no PAR1 magic at the end of the file (truncated or unfinished)");
}

TEST(Parquet, RefusesACorruptFooterLength) {
  const std::string bytes = slurp(kDir + "v1_plain_snappy.parquet");
  std::string big = bytes;
  big[big.size() - 5] = '\x7f';  // the length's high byte
  EXPECT_NE(error_message_of([&] { read_memory(big, "text"); }).find("a footer length of"), std::string::npos);
  std::string off = bytes;
  off[off.size() - 8]++;  // one more byte than the footer has: the FileMetaData no longer starts where it says
  EXPECT_FALSE(error_message_of([&] { read_memory(off, "text"); }).empty());
}

// Every byte of a file changed, one at a time: the reader reads or throws an Error, and never crashes (the fuzz
// target does this at random; this keeps a deterministic sweep in the test suite).
TEST(Parquet, SurvivesEveryByteFlippedInAFixture) {
  for (const char* name : {"v1_dict_zstd.parquet", "nulls_v2_plain_zstd.parquet", "v1_delta_length_snappy.parquet"}) {
    const std::string bytes = slurp(kDir + name);
    for (size_t i = 0; i < bytes.size(); i++) {
      std::string changed = bytes;
      changed[i] = static_cast<char>(changed[i] ^ 0x5a);
      try {
        read_memory(changed, "text", 1 << 20);
      } catch (const Error&) {
      }
    }
  }
}

// ---- files built here, one defect each ----

// A Thrift compact-protocol writer: just enough for a footer and page headers.
class Compact {
 public:
  std::string out;

  void field(int id, int type) {
    const int delta = id - last_.back();
    if (delta > 0 && delta <= 15) {
      out += static_cast<char>(delta << 4 | type);
    } else {
      out += static_cast<char>(type);
      varint(zigzag(id));
    }
    last_.back() = id;
  }
  void i32(int id, int64_t v) {
    field(id, 5);
    varint(zigzag(v));
  }
  void i64(int id, int64_t v) {
    field(id, 6);
    varint(zigzag(v));
  }
  void binary(int id, const std::string& s) {
    field(id, 8);
    varint(s.size());
    out += s;
  }
  void list(int id, int element_type, size_t size) {  // then the elements
    field(id, 9);
    out += static_cast<char>(size << 4 | element_type);  // fewer than 15 elements
  }
  void begin(int id) {  // a struct field
    field(id, 12);
    begin();
  }
  void begin() { last_.push_back(0); }  // a struct as a list element
  void end() {
    out += '\0';
    last_.pop_back();
  }
  void varint(uint64_t v) {
    for (; v >= 0x80; v >>= 7) out += static_cast<char>(v | 0x80);
    out += static_cast<char>(v);
  }

 private:
  static uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
  std::vector<int> last_{0};
};

std::string plain(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) {
    for (int i = 0; i < 4; i++) out += static_cast<char>(v.size() >> (8 * i));
    out += v;
  }
  return out;
}

std::string compress(int codec, const std::string& raw) {
  if (codec == 0) return raw;
  std::string out;
  if (codec == 1) {
    size_t n = snappy_max_compressed_length(raw.size());
    out.resize(n);
    EXPECT_EQ(snappy_compress(raw.data(), raw.size(), out.data(), &n), SNAPPY_OK);
    out.resize(n);
  } else {
    out.resize(ZSTD_compressBound(raw.size()));
    out.resize(ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), 3));
  }
  return out;
}

struct Page {
  int type = 0;  // DATA_PAGE; 2 DICTIONARY_PAGE
  std::string raw;
  int32_t num_values = 0;
  int32_t encoding = 0;
  int32_t size_error = 0;  // added to uncompressed_page_size
};

struct File {
  int codec = 0;
  int repetition = 0;  // REQUIRED
  std::vector<Page> pages;
  int64_t num_rows = 0;
  int64_t file_rows_error = 0, chunk_size_error = 0;
  int depth = 0;  // an unknown FileMetaData field of nested structs this deep
};

void write_page_header(Compact& c, const Page& p, size_t stored) {
  c.begin();
  c.i32(1, p.type);
  c.i32(2, static_cast<int64_t>(p.raw.size()) + p.size_error);
  c.i32(3, static_cast<int64_t>(stored));
  c.begin(p.type == 2 ? 7 : 5);
  c.i32(1, p.num_values);
  c.i32(2, p.encoding);
  if (p.type == 0) {
    c.i32(3, 3);  // definition and repetition levels: RLE
    c.i32(4, 3);
  }
  c.end();
  c.end();
}

void write_schema(Compact& c, int repetition) {
  c.list(2, 12, 2);
  c.begin();  // the root
  c.binary(4, "schema");
  c.i32(5, 1);
  c.end();
  c.begin();  // the column: BYTE_ARRAY
  c.i32(1, 6);
  c.i32(3, repetition);
  c.binary(4, "text");
  c.end();
}

std::string build(const File& f) {
  std::string bytes = "PAR1";
  for (const Page& p : f.pages) {
    const std::string stored = compress(f.codec, p.raw);
    Compact header;
    write_page_header(header, p, stored.size());
    bytes += header.out + stored;
  }
  Compact m;
  m.begin();
  m.i32(1, 1);
  write_schema(m, f.repetition);
  m.i64(3, f.num_rows + f.file_rows_error);
  m.list(4, 12, 1);
  m.begin();  // RowGroup
  m.list(1, 12, 1);
  m.begin();  // ColumnChunk
  m.i64(2, 4);
  m.begin(3);  // ColumnMetaData
  m.i32(1, 6);
  m.list(2, 5, 1);  // encodings: PLAIN
  m.varint(0);
  m.list(3, 8, 1);  // path_in_schema: text
  m.varint(4);
  m.out += "text";
  m.i32(4, f.codec);
  m.i64(5, f.num_rows);
  m.i64(6, 0);
  m.i64(7, static_cast<int64_t>(bytes.size()) - 4 + f.chunk_size_error);
  m.i64(9, 4);
  m.end();  // ColumnMetaData
  m.end();  // ColumnChunk
  m.i64(2, 0);
  m.i64(3, f.num_rows);
  m.end();  // RowGroup
  if (f.depth > 0) {
    for (int i = 0; i < f.depth; i++) m.begin(i == 0 ? 99 : 1);
    for (int i = 0; i < f.depth; i++) m.end();
  }
  m.end();
  const auto length = static_cast<uint32_t>(m.out.size());
  bytes += m.out;
  for (int i = 0; i < 4; i++) bytes += static_cast<char>(length >> (8 * i));
  return bytes + "PAR1";
}

const std::vector<std::string> kValues = {"alpha", "", "gamma\ndelta", "ε"};

File simple(int codec = 0) {
  return File{.codec = codec, .pages = {Page{.raw = plain(kValues), .num_values = 4}}, .num_rows = 4};
}

TEST(ParquetBuilt, TheBuilderWritesWhatTheReaderReads) {
  for (int codec : {0, 1, 6}) EXPECT_EQ(read_memory(build(simple(codec)), "text").values, kValues) << codec;
  File dict = simple();
  dict.pages = {Page{.type = 2, .raw = plain({"x", "y"}), .num_values = 2},
                Page{.raw = std::string("\x01\x03\x09", 3), .num_values = 4, .encoding = 8}};  // width 1: 1,0,0,1
  EXPECT_EQ(read_memory(build(dict), "text").values, (std::vector<std::string>{"y", "x", "x", "y"}));
  File deep = simple();
  deep.depth = 20;  // an unknown field, skipped
  EXPECT_EQ(read_memory(build(deep), "text").values, kValues);
}

TEST(ParquetBuilt, RefusesADecompressedSizeOtherThanTheHeaders) {
  for (int codec : {1, 6}) {
    File f = simple(codec);
    f.pages[0].size_error = 1;
    const std::string message = error_message_of([&] { read_memory(build(f), "text"); });
    EXPECT_NE(message.find("expected " + std::to_string(plain(kValues).size() + 1) + " bytes"), std::string::npos)
        << message;
  }
  File f = simple();
  f.pages[0].size_error = -1;
  EXPECT_NE(error_message_of([&] { read_memory(build(f), "text"); }).find("an uncompressed page of"),
            std::string::npos);
}

TEST(ParquetBuilt, RefusesValuesPastTheirPage) {
  File f = simple();
  f.pages[0].raw = plain(kValues).substr(0, plain(kValues).size() - 1);
  const std::string message = error_message_of([&] { read_memory(build(f), "text"); });
  EXPECT_NE(message.find("mem.parquet: byte "), std::string::npos) << message;
  EXPECT_NE(message.find("column 'text': value 3 of 4 has length 2, past the end of the page"), std::string::npos)
      << message;
  f = simple();
  f.pages[0].raw += "xx";
  EXPECT_NE(error_message_of([&] { read_memory(build(f), "text"); }).find("2 bytes after the page's 4 values"),
            std::string::npos);
}

TEST(ParquetBuilt, RefusesDictionaryIndicesPastTheDictionary) {
  File f = simple();
  f.pages = {Page{.type = 2, .raw = plain({"x"}), .num_values = 1},
             Page{.raw = std::string("\x02\x08\x03", 3), .num_values = 4, .encoding = 8}};  // RLE run of 4 × 3
  EXPECT_NE(error_message_of([&] { read_memory(build(f), "text"); }).find("dictionary index 3 of value 0"),
            std::string::npos);
  f.pages.erase(f.pages.begin());
  EXPECT_NE(error_message_of([&] { read_memory(build(f), "text"); }).find("without a dictionary page"),
            std::string::npos);
}

TEST(ParquetBuilt, RefusesMetadataThatDisagreesWithTheFile) {
  File rows = simple();
  rows.file_rows_error = 1;
  EXPECT_NE(
      error_message_of([&] { read_memory(build(rows), "text"); }).find("the row groups hold 4 rows, the file says 5"),
      std::string::npos);
  File past = simple();
  past.chunk_size_error = 1000;
  EXPECT_NE(error_message_of([&] { read_memory(build(past), "text"); }).find("lie outside the column data"),
            std::string::npos);
  past.chunk_size_error = INT64_MAX - 1000;  // no overflow on the way
  EXPECT_NE(error_message_of([&] { read_memory(build(past), "text"); }).find("lie outside the column data"),
            std::string::npos);
  File short_chunk = simple();
  short_chunk.chunk_size_error = -3;
  EXPECT_NE(error_message_of([&] { read_memory(build(short_chunk), "text"); }).find("runs past the end of its column"),
            std::string::npos);
}

TEST(ParquetBuilt, RefusesThriftNestedTooDeep) {
  File f = simple();
  f.depth = 40;
  EXPECT_NE(error_message_of([&] { read_memory(build(f), "text"); }).find("nested deeper than 32"), std::string::npos);
}

TEST(ParquetBuilt, RefusesPagesOverTheLimit) {
  EXPECT_NE(error_message_of([&] { read_memory(build(simple(1)), "text", 8); }).find("more than the limit of 8"),
            std::string::npos);
}

TEST(ParquetBuilt, RefusesEncryptedFiles) {
  std::string bytes = build(simple());
  bytes.replace(0, 4, "PARE");
  EXPECT_NE(error_message_of([&] { read_memory(bytes, "text"); }).find("an encrypted Parquet file"), std::string::npos);
}

}  // namespace
}  // namespace nanotrn::io::parquet_test
