// A strict reader of one text column of a Parquet file, for corpora distributed as Parquet shards (`nanotrn data
// prepare`). Dependency-light: the footer and page headers are decoded here (io/thrift_compact.h,
// io/parquet_metadata.h), pages decompressed by libsnappy and libzstd (io/parquet_pages.h).
//
//   if (looks_like_parquet(path)) {                               // "PAR1" at offset 0: cheap, for format detection
//     for (const ParquetColumnInfo& c : parquet_info(path).columns) print(c.name, c.type, c.readable);
//     ParquetReadStats s = read_parquet_strings(path, "text", [&](std::string_view doc) { add(doc); });
//     print(s.values, "documents,", s.nulls, "nulls skipped");
//     read_parquet_rows(path, "text", [&](uint64_t row, std::string_view doc) { add(row, doc); });  // with its row
//   }
//
// Format: apache/parquet-format (README.md: the file layout; src/main/thrift/parquet.thrift: the footer and page
// headers, in the Thrift compact protocol; Encodings.md; Compression.md). A file is "PAR1", the column chunks, the
// FileMetaData, its 4-byte little-endian length and "PAR1".
//
// Read:
//   columns    a top-level (flat) column of physical type BYTE_ARRAY, UTF8 / STRING annotated or not, REQUIRED or
//              OPTIONAL; nulls are skipped and counted
//   pages      DATA_PAGE (v1), DATA_PAGE_V2, DICTIONARY_PAGE (INDEX_PAGE skipped); definition levels RLE
//   codecs     UNCOMPRESSED, SNAPPY, ZSTD
//   encodings  PLAIN, PLAIN_DICTIONARY, RLE_DICTIONARY (a chunk may fall back from its dictionary to other pages),
//              DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY (io/parquet_delta.h): all the format defines for strings
// Values come out in file order, one row group and one page at a time: the file is memory-mapped and what is held at
// once is one page, decompressed, and its chunk's dictionary. `each` gets views that live only for its call.
//
// Refused, each an Error naming the file (and the byte offset, the column, the codec or the encoding where there is
// one):
//   - a file without "PAR1" at offset 0: "not a Parquet file: <path> (no PAR1 magic at offset 0)"; encrypted files
//     ("PARE", or encrypted columns); no "PAR1" at the end (a truncated file); a footer length past the file;
//   - metadata that does not decode (truncated, nested deeper than io/thrift_compact.h allows, a required field
//     missing) or disagrees with itself: row counts, the schema tree, column paths and types, chunk offsets and sizes
//     outside the file (sizes that would overflow included), column data in another file (ColumnChunk.file_path);
//   - a column name the file does not have (the message lists the columns there are), a nested column (a group:
//     struct, list, map), a REPEATED one, one of another physical type;
//   - codecs GZIP, LZO, BROTLI, LZ4, LZ4_RAW and unknown ones (named, with the column); other value encodings
//     (named); BIT_PACKED definition levels;
//   - in a page: a decompressed size other than the header's, a page larger than `max_page_bytes`, values, lengths or
//     levels running past the page or leaving bytes over, dictionary indices past the dictionary, more or fewer values
//     than the chunk's.
// Not here: writing, other column types, nested data, predicate push-down, page indexes, page CRCs (not checked).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace nanotrn::io {

// A top-level field of a Parquet file's schema.
struct ParquetColumnInfo {
  std::string name;
  std::string type;        // the physical type ("BYTE_ARRAY", "INT64", ...); "group" for a nested field
  std::string annotation;  // "STRING" (LogicalType) or "UTF8" (ConvertedType) when set, else ""
  std::string repetition;  // "REQUIRED", "OPTIONAL" or "REPEATED"
  bool readable = false;   // what read_parquet_strings reads: a flat, non-repeated BYTE_ARRAY column
};

// What one read went through.
struct ParquetReadStats {
  uint64_t row_groups = 0;
  uint64_t dictionary_pages = 0;
  uint64_t data_pages_v1 = 0;  // DATA_PAGE
  uint64_t data_pages_v2 = 0;  // DATA_PAGE_V2
  uint64_t rows = 0;
  uint64_t values = 0;  // the strings passed to `each`
  uint64_t nulls = 0;   // null rows skipped
};

// The largest page (compressed or not) a read accepts unless told otherwise: 1 GiB.
inline constexpr uint64_t kParquetMaxPageBytes = uint64_t{1} << 30;

// Whether the file at `path` starts with "PAR1" (false when it cannot be opened or is shorter).
bool looks_like_parquet(const std::string& path);

// What the footer says: rows, row groups and the top-level fields in schema order (the footer is checked as a read
// checks it; the pages are not read).
struct ParquetFileInfo {
  uint64_t rows = 0;
  uint64_t row_groups = 0;
  std::vector<ParquetColumnInfo> columns;
};
ParquetFileInfo parquet_info(const std::string& path);
std::vector<ParquetColumnInfo> parquet_columns(const std::string& path);  // parquet_info(path).columns
std::vector<std::string> parquet_column_names(const std::string& path);

// Every non-null value of the text column `column`, in order, passed to `each`.
ParquetReadStats read_parquet_strings(const std::string& path, const std::string& column,
                                      const std::function<void(std::string_view)>& each);
// The same, each value with its row in the file: 0-based across row groups, null rows counted (so a row names the
// same record as any other reader's row index).
ParquetReadStats read_parquet_rows(const std::string& path, const std::string& column,
                                   const std::function<void(uint64_t row, std::string_view value)>& each);

// The same over a whole file held in memory; errors name `name` (fuzzing, tests).
ParquetFileInfo parquet_info_from_memory(std::string_view bytes, const std::string& name);
ParquetReadStats read_parquet_strings_from_memory(std::string_view bytes, const std::string& name,
                                                  const std::string& column,
                                                  const std::function<void(std::string_view)>& each,
                                                  uint64_t max_page_bytes = kParquetMaxPageBytes);

}  // namespace nanotrn::io
