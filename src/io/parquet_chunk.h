// One column chunk of a flat BYTE_ARRAY column, read page by page (internal to the text reader of io/parquet.h): the
// optional dictionary page first, then DATA_PAGE / DATA_PAGE_V2 pages until the chunk's values are all read.
//
//   ChunkReader reader;                                       // reused across chunks: its buffers and zstd context
//   ChunkCounts n = reader.read(spec, [&](uint64_t row, std::string_view value) { ... });   // row: in the file
//
// Pages must lie inside [start, end); the values of the pages must add up to num_values; a dictionary page may come
// only first; every page is checked as io/parquet_pages.h describes. Errors name the file, column and byte offset.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "io/parquet_metadata.h"
#include "io/parquet_pages.h"

namespace nanotrn::io::parquet {

// A non-null value and its row in the file (0-based; null rows counted).
using RowValueFn = std::function<void(uint64_t row, std::string_view value)>;

struct ChunkSpec {
  std::string_view file;                // the whole file
  const std::string* name = nullptr;    // the file's name, for errors
  const std::string* column = nullptr;  // the column's name, for errors
  uint64_t start = 0, end = 0;          // the chunk's bytes in the file (page headers included)
  int64_t num_values = 0;               // values in the chunk, nulls included
  uint64_t first_row = 0;               // the file row of the chunk's first value (its row group's first row)
  int32_t codec = kUncompressed;        // UNCOMPRESSED, SNAPPY or ZSTD
  bool optional = false;                // OPTIONAL: pages carry definition levels (max level 1)
  uint64_t max_page_bytes = 0;
};

struct ChunkCounts {
  uint64_t dictionary_pages = 0, data_pages_v1 = 0, data_pages_v2 = 0, values = 0, nulls = 0;
};

class ChunkReader {
 public:
  ChunkCounts read(const ChunkSpec& spec, const RowValueFn& each);

 private:
  PageBytes body(const ChunkSpec& spec, const PageHeader& h, uint64_t offset, uint64_t body_offset) const;
  void read_dictionary(const ChunkSpec& spec, const PageHeader& h, const PageBytes& body);
  void read_v1(const ChunkSpec& spec, const PageHeader& h, const PageBytes& body, uint64_t first_row,
               ChunkCounts& counts, const RowValueFn& each);
  void read_v2(const ChunkSpec& spec, const PageHeader& h, const PageBytes& body, uint64_t first_row,
               ChunkCounts& counts, const RowValueFn& each);
  void read_values(int32_t encoding, const PageBytes& values, uint64_t n,
                   const std::function<void(std::string_view)>& each) const;
  PageBytes decompressed(int32_t codec, const PageBytes& in, uint64_t size, std::string& buffer);

  Decompressor decompressor_;
  std::string page_;  // the current page's decompressed bytes
  std::string dictionary_bytes_;
  std::vector<std::string_view> dictionary_;  // views into dictionary_bytes_ (or the file)
  bool has_dictionary_ = false;
};

}  // namespace nanotrn::io::parquet
