// The Parquet text reader of parquet.h: the file's frame and footer, the schema's top-level fields, and the chosen
// column's chunks row group by row group (each read by parquet_chunk.h).
#include "io/parquet.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "base/error.h"
#include "io/parquet_chunk.h"
#include "io/parquet_metadata.h"

namespace nanotrn::io::parquet {
namespace {

constexpr std::string_view kMagic = "PAR1";
constexpr std::string_view kEncryptedMagic = "PARE";

std::string str(uint64_t n) { return std::to_string(n); }

[[noreturn]] void fail_at(const std::string& name, uint64_t offset, const std::string& what) {
  throw Error(name + ": byte " + str(offset) + ": " + what);
}

// A whole file mapped read-only (nothing mapped for an empty file).
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error("cannot open " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw Error("cannot read " + path + ": not a regular file");
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) map_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int e = errno;
    ::close(fd);
    if (map_ == MAP_FAILED) throw Error("cannot mmap " + path + ": " + std::strerror(e));
    if (map_ != nullptr) ::madvise(map_, size_, MADV_SEQUENTIAL);
  }
  ~MappedFile() {
    if (map_ != nullptr && map_ != MAP_FAILED) ::munmap(map_, size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view bytes() const { return map_ ? std::string_view(static_cast<const char*>(map_), size_) : ""; }

 private:
  void* map_ = nullptr;
  size_t size_ = 0;
};

struct Footer {
  FileMeta meta;
  uint64_t offset = 0;  // where the FileMetaData starts: the column chunks end before it
};

Footer read_footer(std::string_view bytes, const std::string& name) {
  if (bytes.substr(0, 4) == kEncryptedMagic) {
    throw Error(name + ": an encrypted Parquet file (PARE magic at offset 0); encrypted files are not read");
  }
  if (bytes.substr(0, 4) != kMagic) throw Error("not a Parquet file: " + name + " (no PAR1 magic at offset 0)");
  if (bytes.size() < 12) {
    fail_at(name, bytes.size(),
            "a Parquet file of " + str(bytes.size()) + " bytes has no room for its footer (truncated)");
  }
  const uint64_t tail = bytes.size() - 4;
  if (bytes.substr(tail) != kMagic)
    fail_at(name, tail, "no PAR1 magic at the end of the file (truncated or unfinished)");
  uint64_t length = 0;
  for (int i = 3; i >= 0; i--) length = length << 8 | static_cast<uint8_t>(bytes[tail - 4 + i]);
  if (length > tail - 8) {
    fail_at(name, tail - 4,
            "a footer length of " + str(length) + " bytes, more than the " + str(tail - 8) +
                " bytes between the magic numbers");
  }
  Footer f;
  f.offset = tail - 4 - length;
  f.meta = parse_file_metadata(bytes.substr(f.offset, length), f.offset, name);
  if (f.meta.encrypted) fail_at(name, f.offset, "encrypted columns (FileMetaData.encryption_algorithm); not read");
  return f;
}

// A top-level field and the leaf columns (column chunks, in schema order) under it.
struct TopField {
  size_t element = 0;  // index in the schema
  size_t first_leaf = 0, leaves = 0;
};

struct Schema {
  std::vector<TopField> fields;
  size_t leaves = 0;
};

Schema walk_schema(const Footer& f, const std::string& name) {
  const std::vector<SchemaElement>& s = f.meta.schema;
  auto fail = [&](const std::string& what) { fail_at(name, f.offset, "schema: " + what); };
  if (s.empty() || s[0].type >= 0 || s[0].num_children < 0) fail("the root is missing or not a group");
  Schema out;
  size_t i = 1;
  for (int32_t child = 0; child < s[0].num_children; child++) {
    TopField field{i, out.leaves, 0};
    for (uint64_t pending = 1; pending > 0; pending--) {  // the field's subtree, depth first
      if (i >= s.size()) fail("the tree needs more than its " + str(s.size()) + " elements");
      const SchemaElement& e = s[i++];
      if (e.type < 0) {
        pending += static_cast<uint64_t>(std::max(e.num_children, 0));
      } else {
        if (e.num_children > 0) fail("element '" + e.name + "' has both a type and children");
        field.leaves++;
        out.leaves++;
      }
      if (e.repetition < 0) fail("element '" + e.name + "' has no repetition_type");
    }
    out.fields.push_back(field);
  }
  if (i != s.size()) fail(str(s.size() - i) + " elements after the root's last child");
  return out;
}

ParquetColumnInfo describe(const SchemaElement& e) {
  ParquetColumnInfo c;
  c.name = e.name;
  c.type = e.type < 0 ? "group" : type_name(e.type);
  c.annotation = e.logical_string ? "STRING" : e.converted_type == kConvertedUtf8 ? "UTF8" : "";
  c.repetition = repetition_name(e.repetition);
  c.readable = e.type == kByteArray && (e.repetition == kRequired || e.repetition == kOptional);
  return c;
}

// "text (BYTE_ARRAY STRING, OPTIONAL), id (INT64, REQUIRED)".
std::string column_list(const Footer& f, const Schema& schema) {
  std::string out;
  for (const TopField& field : schema.fields) {
    const ParquetColumnInfo c = describe(f.meta.schema[field.element]);
    out += (out.empty() ? "" : ", ") + c.name + " (" + c.type + (c.annotation.empty() ? "" : " " + c.annotation) +
           ", " + c.repetition + ")";
  }
  return out.empty() ? "none" : out;
}

const TopField& select_column(const Footer& f, const Schema& schema, const std::string& name,
                              const std::string& column) {
  const TopField* found = nullptr;
  for (const TopField& field : schema.fields) {
    if (f.meta.schema[field.element].name != column) continue;
    if (found) throw Error(name + ": two top-level columns are named '" + column + "'");
    found = &field;
  }
  if (!found) throw Error(name + ": no column '" + column + "'; the file's columns: " + column_list(f, schema));
  const SchemaElement& e = f.meta.schema[found->element];
  const std::string what = name + ": column '" + column + "' ";
  if (e.type < 0) throw Error(what + "is nested (a group: struct, list or map); only flat text columns are read");
  if (e.repetition != kRequired && e.repetition != kOptional) {
    throw Error(what + "is " + repetition_name(e.repetition) + "; only REQUIRED and OPTIONAL columns are read");
  }
  if (e.type != kByteArray) {
    throw Error(what + "has type " + type_name(e.type) +
                ", not text (BYTE_ARRAY); the file's columns: " + column_list(f, schema));
  }
  return *found;
}

// Every row group's row count adds up to the file's.
void check_rows(const Footer& f, const std::string& name) {
  uint64_t rows = 0;
  for (const RowGroupMeta& g : f.meta.row_groups) {
    if (__builtin_add_overflow(rows, static_cast<uint64_t>(g.num_rows), &rows)) {
      fail_at(name, f.offset, "the row groups' row counts overflow");
    }
  }
  if (rows != static_cast<uint64_t>(f.meta.num_rows)) {
    fail_at(name, f.offset, "the row groups hold " + str(rows) + " rows, the file says " + str(f.meta.num_rows));
  }
}

ChunkSpec chunk_spec(const Footer& f, const RowGroupMeta& g, size_t group, const ColumnChunkMeta& c,
                     const SchemaElement& e, const std::string& name) {
  const std::string what = "column '" + e.name + "' in row group " + str(group) + ": ";
  auto fail = [&](const std::string& why) { fail_at(name, c.meta_offset, what + why); };
  if (c.external) fail("its data is in another file (ColumnChunk.file_path); only self-contained files are read");
  if (c.encrypted) fail("encrypted column data; not read");
  if (c.path.size() != 1 || c.path[0] != e.name) fail("the column chunk is for another column");
  if (c.type != e.type) fail("chunk type " + type_name(c.type) + " differs from the schema's " + type_name(e.type));
  if (c.codec != kUncompressed && c.codec != kSnappy && c.codec != kZstd) {
    fail("compressed with " + codec_name(c.codec) +
         ", which this reader does not read (it reads UNCOMPRESSED, "
         "SNAPPY and ZSTD)");
  }
  if (c.num_values != g.num_rows) fail(str(c.num_values) + " values for " + str(g.num_rows) + " rows");
  ChunkSpec s;
  s.start = static_cast<uint64_t>(c.data_page_offset);
  if (c.dictionary_page_offset > 0 && c.dictionary_page_offset < c.data_page_offset) {
    s.start = static_cast<uint64_t>(c.dictionary_page_offset);
  }
  const auto size = static_cast<uint64_t>(c.total_compressed_size);
  if (s.start < kMagic.size() || s.start > f.offset || size > f.offset - s.start) {
    fail("its bytes [" + str(s.start) + ", " + str(s.start) + " + " + str(size) + ") lie outside the column data [4, " +
         str(f.offset) + ")");
  }
  s.end = s.start + size;
  s.num_values = c.num_values;
  s.codec = c.codec;
  s.optional = e.repetition == kOptional;
  return s;
}

ParquetFileInfo file_info(std::string_view bytes, const std::string& name) {
  const Footer f = read_footer(bytes, name);
  check_rows(f, name);
  ParquetFileInfo info;
  info.rows = static_cast<uint64_t>(f.meta.num_rows);
  info.row_groups = f.meta.row_groups.size();
  for (const TopField& field : walk_schema(f, name).fields) {
    info.columns.push_back(describe(f.meta.schema[field.element]));
  }
  return info;
}

ParquetReadStats read_column(std::string_view bytes, const std::string& name, const std::string& column,
                             const RowValueFn& each, uint64_t max_page_bytes) {
  const Footer f = read_footer(bytes, name);
  const Schema schema = walk_schema(f, name);
  const TopField& field = select_column(f, schema, name, column);
  check_rows(f, name);
  ChunkReader reader;
  ParquetReadStats stats;
  for (size_t i = 0; i < f.meta.row_groups.size(); i++) {
    const RowGroupMeta& g = f.meta.row_groups[i];
    if (g.columns.size() != schema.leaves) {
      fail_at(name, f.offset,
              "row group " + str(i) + " has " + str(g.columns.size()) + " column chunks, the schema " +
                  str(schema.leaves) + " columns");
    }
    ChunkSpec spec = chunk_spec(f, g, i, g.columns[field.first_leaf], f.meta.schema[field.element], name);
    spec.file = bytes;
    spec.name = &name;
    spec.column = &column;
    spec.max_page_bytes = max_page_bytes;
    spec.first_row = stats.rows;
    const ChunkCounts n = reader.read(spec, each);
    stats.row_groups++;
    stats.dictionary_pages += n.dictionary_pages;
    stats.data_pages_v1 += n.data_pages_v1;
    stats.data_pages_v2 += n.data_pages_v2;
    stats.values += n.values;
    stats.nulls += n.nulls;
    stats.rows += static_cast<uint64_t>(g.num_rows);
  }
  return stats;
}

}  // namespace
}  // namespace nanotrn::io::parquet

namespace nanotrn::io {

bool looks_like_parquet(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[4] = {};
  return in.read(head, 4) && std::string_view(head, 4) == parquet::kMagic;
}

ParquetFileInfo parquet_info_from_memory(std::string_view bytes, const std::string& name) {
  return parquet::file_info(bytes, name);
}

ParquetReadStats read_parquet_strings_from_memory(std::string_view bytes, const std::string& name,
                                                  const std::string& column,
                                                  const std::function<void(std::string_view)>& each,
                                                  uint64_t max_page_bytes) {
  return parquet::read_column(
      bytes, name, column, [&](uint64_t, std::string_view v) { each(v); }, max_page_bytes);
}

ParquetFileInfo parquet_info(const std::string& path) {
  const parquet::MappedFile file(path);
  return parquet::file_info(file.bytes(), path);
}

std::vector<ParquetColumnInfo> parquet_columns(const std::string& path) { return parquet_info(path).columns; }

std::vector<std::string> parquet_column_names(const std::string& path) {
  std::vector<std::string> names;
  for (const ParquetColumnInfo& c : parquet_columns(path)) names.push_back(c.name);
  return names;
}

ParquetReadStats read_parquet_strings(const std::string& path, const std::string& column,
                                      const std::function<void(std::string_view)>& each) {
  return read_parquet_rows(path, column, [&](uint64_t, std::string_view v) { each(v); });
}

ParquetReadStats read_parquet_rows(const std::string& path, const std::string& column,
                                   const std::function<void(uint64_t row, std::string_view value)>& each) {
  const parquet::MappedFile file(path);
  return parquet::read_column(file.bytes(), path, column, each, kParquetMaxPageBytes);
}

}  // namespace nanotrn::io
