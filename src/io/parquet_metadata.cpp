// Decoding of parquet_metadata.h: one function per Thrift struct, each reading the fields it knows and skipping the
// rest, then checking that its required fields came.
#include "io/parquet_metadata.h"

#include <cstdint>
#include <iterator>

#include "io/thrift_compact.h"

namespace nanotrn::io::parquet {
namespace {

std::string enum_name(int32_t value, const char* const* names, size_t count, const char* kind) {
  if (value >= 0 && static_cast<size_t>(value) < count && names[value][0] != '\0') return names[value];
  return std::string(kind) + " " + std::to_string(value);
}

// The field ids a struct has seen, for its required ones.
class Seen {
 public:
  void mark(int16_t id) {
    if (id >= 0 && id < 64) bits_ |= uint64_t{1} << id;
  }
  void require(ThriftReader& r, int16_t id, const char* field) const {
    if (id < 0 || id >= 64 || (bits_ >> id & 1) == 0) r.fail(std::string("required field ") + field + " is missing");
  }

 private:
  uint64_t bits_ = 0;
};

int64_t non_negative(ThriftReader& r, int64_t v, const char* what) {
  if (v < 0) r.fail(std::string(what) + " is negative (" + std::to_string(v) + ")");
  return v;
}
int32_t non_negative32(ThriftReader& r, int32_t v, const char* what) {
  return static_cast<int32_t>(non_negative(r, v, what));
}

int32_t read_count(ThriftReader& r, ThriftType t, const char* what) {
  return non_negative32(r, r.read_i32(t, what), what);
}

SchemaElement parse_schema_element(ThriftReader& r) {
  SchemaElement e;
  Seen seen;
  r.read_struct([&](int16_t id, ThriftType t) {
    seen.mark(id);
    switch (id) {
      case 1:
        e.type = read_count(r, t, "SchemaElement.type");
        break;
      case 3:
        e.repetition = read_count(r, t, "SchemaElement.repetition_type");
        break;
      case 4:
        e.name = std::string(r.read_binary(t, "SchemaElement.name"));
        break;
      case 5:
        e.num_children = read_count(r, t, "SchemaElement.num_children");
        break;
      case 6:
        e.converted_type = r.read_i32(t, "SchemaElement.converted_type");
        break;
      case 10:  // LogicalType, a union: which member is set is all that matters here
        if (t != ThriftType::kStruct) r.fail("SchemaElement.logicalType: expected a struct");
        r.read_struct([&](int16_t member, ThriftType mt) {
          (member == 1 ? e.logical_string : e.logical_other) = true;
          r.skip(mt);
        });
        break;
      default:
        r.skip(t);
    }
  });
  seen.require(r, 4, "SchemaElement.name");
  return e;
}

int64_t read_size(ThriftReader& r, ThriftType t, const char* what) {
  return non_negative(r, r.read_i64(t, what), what);
}

ColumnChunkMeta parse_column_metadata(ThriftReader& r, ColumnChunkMeta c) {
  Seen seen;
  r.read_struct([&](int16_t id, ThriftType t) {
    seen.mark(id);
    switch (id) {
      case 1:
        c.type = r.read_i32(t, "ColumnMetaData.type");
        break;
      case 3:
        r.read_list(t, "ColumnMetaData.path_in_schema",
                    [&](ThriftType e) { c.path.emplace_back(r.read_binary(e, "ColumnMetaData.path_in_schema")); });
        break;
      case 4:
        c.codec = r.read_i32(t, "ColumnMetaData.codec");
        break;
      case 5:
        c.num_values = read_size(r, t, "ColumnMetaData.num_values");
        break;
      case 7:
        c.total_compressed_size = read_size(r, t, "ColumnMetaData.total_compressed_size");
        break;
      case 9:
        c.data_page_offset = read_size(r, t, "ColumnMetaData.data_page_offset");
        break;
      case 11:
        c.dictionary_page_offset = read_size(r, t, "ColumnMetaData.dictionary_page_offset");
        break;
      default:
        r.skip(t);
    }
  });
  for (auto [id, field] : {std::pair<int16_t, const char*>{1, "type"},
                           {3, "path_in_schema"},
                           {4, "codec"},
                           {5, "num_values"},
                           {7, "total_compressed_size"},
                           {9, "data_page_offset"}}) {
    seen.require(r, id, (std::string("ColumnMetaData.") + field).c_str());
  }
  return c;
}

ColumnChunkMeta parse_column_chunk(ThriftReader& r) {
  ColumnChunkMeta c;
  c.meta_offset = r.offset();
  bool has_meta = false;
  r.read_struct([&](int16_t id, ThriftType t) {
    switch (id) {
      case 1:  // file_path: the data is in another file
        c.external = true;
        r.skip(t);
        break;
      case 3:
        if (t != ThriftType::kStruct) r.fail("ColumnChunk.meta_data: expected a struct");
        c = parse_column_metadata(r, c);
        has_meta = true;
        break;
      case 8:  // crypto_metadata
      case 9:  // encrypted_column_metadata
        c.encrypted = true;
        r.skip(t);
        break;
      default:
        r.skip(t);
    }
  });
  if (!has_meta && !c.encrypted) r.fail("required field ColumnChunk.meta_data is missing");
  return c;
}

RowGroupMeta parse_row_group(ThriftReader& r) {
  RowGroupMeta g;
  Seen seen;
  r.read_struct([&](int16_t id, ThriftType t) {
    seen.mark(id);
    switch (id) {
      case 1:
        r.read_list(t, "RowGroup.columns", [&](ThriftType e) {
          if (e != ThriftType::kStruct) r.fail("RowGroup.columns: expected structs");
          g.columns.push_back(parse_column_chunk(r));
        });
        break;
      case 3:
        g.num_rows = read_size(r, t, "RowGroup.num_rows");
        break;
      default:
        r.skip(t);
    }
  });
  seen.require(r, 1, "RowGroup.columns");
  seen.require(r, 3, "RowGroup.num_rows");
  return g;
}

}  // namespace

std::string type_name(int32_t type) {
  static constexpr const char* kNames[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                           "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  return enum_name(type, kNames, std::size(kNames), "type");
}
std::string codec_name(int32_t codec) {
  static constexpr const char* kNames[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
  return enum_name(codec, kNames, std::size(kNames), "codec");
}
std::string encoding_name(int32_t encoding) {
  static constexpr const char* kNames[] = {"PLAIN",
                                           "",
                                           "PLAIN_DICTIONARY",
                                           "RLE",
                                           "BIT_PACKED",
                                           "DELTA_BINARY_PACKED",
                                           "DELTA_LENGTH_BYTE_ARRAY",
                                           "DELTA_BYTE_ARRAY",
                                           "RLE_DICTIONARY",
                                           "BYTE_STREAM_SPLIT",
                                           "ALP"};
  return enum_name(encoding, kNames, std::size(kNames), "encoding");
}
std::string repetition_name(int32_t repetition) {
  static constexpr const char* kNames[] = {"REQUIRED", "OPTIONAL", "REPEATED", "VECTOR"};
  return enum_name(repetition, kNames, std::size(kNames), "repetition");
}
std::string page_type_name(int32_t type) {
  static constexpr const char* kNames[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE", "DATA_PAGE_V2"};
  return enum_name(type, kNames, std::size(kNames), "page type");
}

FileMeta parse_file_metadata(std::string_view footer, uint64_t file_offset, const std::string& name) {
  ThriftReader r(footer, file_offset, name);
  FileMeta m;
  Seen seen;
  r.read_struct([&](int16_t id, ThriftType t) {
    seen.mark(id);
    switch (id) {
      case 1:
        m.version = r.read_i32(t, "FileMetaData.version");
        break;
      case 2:
        r.read_list(t, "FileMetaData.schema", [&](ThriftType e) {
          if (e != ThriftType::kStruct) r.fail("FileMetaData.schema: expected structs");
          m.schema.push_back(parse_schema_element(r));
        });
        break;
      case 3:
        m.num_rows = read_size(r, t, "FileMetaData.num_rows");
        break;
      case 4:
        r.read_list(t, "FileMetaData.row_groups", [&](ThriftType e) {
          if (e != ThriftType::kStruct) r.fail("FileMetaData.row_groups: expected structs");
          m.row_groups.push_back(parse_row_group(r));
        });
        break;
      case 8:  // encryption_algorithm: a plaintext footer over encrypted columns
        m.encrypted = true;
        r.skip(t);
        break;
      default:
        r.skip(t);
    }
  });
  seen.require(r, 2, "FileMetaData.schema");
  seen.require(r, 3, "FileMetaData.num_rows");
  seen.require(r, 4, "FileMetaData.row_groups");
  if (r.consumed() != footer.size()) {
    r.fail(std::to_string(footer.size() - r.consumed()) + " bytes after the FileMetaData inside the footer");
  }
  return m;
}

namespace {

DataPageV1 parse_v1(ThriftReader& r) {
  DataPageV1 h;
  Seen seen;
  r.read_struct([&](int16_t id, ThriftType t) {
    seen.mark(id);
    switch (id) {
      case 1:
        h.num_values = read_count(r, t, "DataPageHeader.num_values");
        break;
      case 2:
        h.encoding = r.read_i32(t, "DataPageHeader.encoding");
        break;
      case 3:
        h.definition_encoding = r.read_i32(t, "DataPageHeader.definition_level_encoding");
        break;
      case 4:
        h.repetition_encoding = r.read_i32(t, "DataPageHeader.repetition_level_encoding");
        break;
      default:
        r.skip(t);
    }
  });
  seen.require(r, 1, "DataPageHeader.num_values");
  seen.require(r, 2, "DataPageHeader.encoding");
  seen.require(r, 3, "DataPageHeader.definition_level_encoding");
  return h;
}

DictionaryPage parse_dictionary(ThriftReader& r) {
  DictionaryPage h;
  Seen seen;
  r.read_struct([&](int16_t id, ThriftType t) {
    seen.mark(id);
    switch (id) {
      case 1:
        h.num_values = read_count(r, t, "DictionaryPageHeader.num_values");
        break;
      case 2:
        h.encoding = r.read_i32(t, "DictionaryPageHeader.encoding");
        break;
      default:
        r.skip(t);
    }
  });
  seen.require(r, 1, "DictionaryPageHeader.num_values");
  seen.require(r, 2, "DictionaryPageHeader.encoding");
  return h;
}

DataPageV2 parse_v2(ThriftReader& r) {
  DataPageV2 h;
  Seen seen;
  r.read_struct([&](int16_t id, ThriftType t) {
    seen.mark(id);
    switch (id) {
      case 1:
        h.num_values = read_count(r, t, "DataPageHeaderV2.num_values");
        break;
      case 2:
        h.num_nulls = read_count(r, t, "DataPageHeaderV2.num_nulls");
        break;
      case 3:
        h.num_rows = read_count(r, t, "DataPageHeaderV2.num_rows");
        break;
      case 4:
        h.encoding = r.read_i32(t, "DataPageHeaderV2.encoding");
        break;
      case 5:
        h.definition_bytes = read_count(r, t, "DataPageHeaderV2.definition_levels_byte_length");
        break;
      case 6:
        h.repetition_bytes = read_count(r, t, "DataPageHeaderV2.repetition_levels_byte_length");
        break;
      case 7:
        h.is_compressed = r.read_bool(t, "DataPageHeaderV2.is_compressed");
        break;
      default:
        r.skip(t);
    }
  });
  for (auto [id, field] : {std::pair<int16_t, const char*>{1, "num_values"},
                           {2, "num_nulls"},
                           {3, "num_rows"},
                           {4, "encoding"},
                           {5, "definition_levels_byte_length"},
                           {6, "repetition_levels_byte_length"}}) {
    seen.require(r, id, (std::string("DataPageHeaderV2.") + field).c_str());
  }
  return h;
}

void expect_struct(ThriftReader& r, ThriftType t, const char* what) {
  if (t != ThriftType::kStruct) r.fail(std::string(what) + ": expected a struct, found " + thrift_type_name(t));
}

}  // namespace

PageHeader parse_page_header(std::string_view bytes, uint64_t file_offset, const std::string& name) {
  ThriftReader r(bytes, file_offset, name);
  PageHeader h;
  Seen seen;
  r.read_struct([&](int16_t id, ThriftType t) {
    seen.mark(id);
    switch (id) {
      case 1:
        h.type = r.read_i32(t, "PageHeader.type");
        break;
      case 2:
        h.uncompressed_size = read_count(r, t, "PageHeader.uncompressed_page_size");
        break;
      case 3:
        h.compressed_size = read_count(r, t, "PageHeader.compressed_page_size");
        break;
      case 5:
        expect_struct(r, t, "PageHeader.data_page_header");
        h.v1 = parse_v1(r);
        h.has_v1 = true;
        break;
      case 7:
        expect_struct(r, t, "PageHeader.dictionary_page_header");
        h.dictionary = parse_dictionary(r);
        h.has_dictionary = true;
        break;
      case 8:
        expect_struct(r, t, "PageHeader.data_page_header_v2");
        h.v2 = parse_v2(r);
        h.has_v2 = true;
        break;
      default:
        r.skip(t);
    }
  });
  seen.require(r, 1, "PageHeader.type");
  seen.require(r, 2, "PageHeader.uncompressed_page_size");
  seen.require(r, 3, "PageHeader.compressed_page_size");
  if (h.type == kDataPage && !h.has_v1) r.fail("a DATA_PAGE without its data_page_header");
  if (h.type == kDictionaryPage && !h.has_dictionary) r.fail("a DICTIONARY_PAGE without its dictionary_page_header");
  if (h.type == kDataPageV2 && !h.has_v2) r.fail("a DATA_PAGE_V2 without its data_page_header_v2");
  h.header_size = r.consumed();
  return h;
}

}  // namespace nanotrn::io::parquet
