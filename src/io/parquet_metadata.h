// The parts of Parquet's Thrift structures that the text reader (io/parquet.h) uses, decoded from the compact
// protocol (io/thrift_compact.h): the footer's FileMetaData and each page's PageHeader. Internal to the reader;
// field numbers from apache/parquet-format src/main/thrift/parquet.thrift. Fields not listed are skipped.
//
//   FileMeta meta = parse_file_metadata(footer, footer_offset, "shard.parquet");
//   PageHeader h = parse_page_header(bytes_from_page_start, page_offset, "shard.parquet");   // h.header_size ...
//
// A required field that is missing, or a negative count, size, offset, physical type or repetition is an Error naming
// the file and byte offset. Whether the values make sense together (offsets inside the
// file, the schema tree) is checked by the reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nanotrn::io::parquet {

// Enum values of parquet.thrift that the reader names or decides on.
enum PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7
};
enum Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };
enum Codec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,
  kZstd = 6,
  kLz4Raw = 7
};
enum Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8
};
enum PageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };
inline constexpr int32_t kConvertedUtf8 = 0;

// "BYTE_ARRAY", "GZIP", "DELTA_BYTE_ARRAY", "REPEATED", "DATA_PAGE_V2"; "type 42" (etc.) for values outside the enum.
std::string type_name(int32_t type);
std::string codec_name(int32_t codec);
std::string encoding_name(int32_t encoding);
std::string repetition_name(int32_t repetition);
std::string page_type_name(int32_t type);

struct SchemaElement {
  std::string name;
  int32_t type = -1;          // PhysicalType; -1 for a group
  int32_t repetition = -1;    // Repetition; -1 when absent (the root)
  int32_t num_children = -1;  // -1 when absent (a leaf)
  int32_t converted_type = -1;
  bool logical_string = false;  // LogicalType STRING
  bool logical_other = false;   // another LogicalType
};

struct ColumnChunkMeta {
  int32_t type = -1;
  int32_t codec = -1;
  std::vector<std::string> path;  // path_in_schema
  int64_t num_values = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  int64_t dictionary_page_offset = -1;  // -1 when absent
  bool external = false;                // ColumnChunk.file_path set: the data is in another file
  bool encrypted = false;               // crypto metadata present
  uint64_t meta_offset = 0;             // where this chunk's metadata starts in the file (for errors)
};

struct RowGroupMeta {
  std::vector<ColumnChunkMeta> columns;
  int64_t num_rows = 0;
};

struct FileMeta {
  int32_t version = 0;
  std::vector<SchemaElement> schema;  // depth first, schema[0] the root
  int64_t num_rows = 0;
  std::vector<RowGroupMeta> row_groups;
  bool encrypted = false;  // FileMetaData.encryption_algorithm set (plaintext footer, encrypted columns)
};

// The FileMetaData in `footer`, which starts at byte `file_offset` of the file `name`. Its encoded size must be
// exactly the footer's.
FileMeta parse_file_metadata(std::string_view footer, uint64_t file_offset, const std::string& name);

struct DataPageV1 {
  int32_t num_values = 0, encoding = -1, definition_encoding = -1, repetition_encoding = -1;
};
struct DictionaryPage {
  int32_t num_values = 0, encoding = -1;
};
struct DataPageV2 {
  int32_t num_values = 0, num_nulls = 0, num_rows = 0, encoding = -1;
  int32_t definition_bytes = 0, repetition_bytes = 0;
  bool is_compressed = true;
};

struct PageHeader {
  int32_t type = -1;
  int32_t uncompressed_size = 0, compressed_size = 0;
  bool has_v1 = false, has_dictionary = false, has_v2 = false;
  DataPageV1 v1;
  DictionaryPage dictionary;
  DataPageV2 v2;
  size_t header_size = 0;  // bytes the header took; the page's body follows
};

// The PageHeader at the start of `bytes` (which starts at byte `file_offset` of `name`); the header holding the
// sub-header its type needs.
PageHeader parse_page_header(std::string_view bytes, uint64_t file_offset, const std::string& name);

}  // namespace nanotrn::io::parquet
