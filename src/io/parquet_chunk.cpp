// The page loop of parquet_chunk.h.
#include "io/parquet_chunk.h"

#include <algorithm>

#include "base/error.h"
#include "io/parquet_delta.h"

namespace nanotrn::io::parquet {

ChunkCounts ChunkReader::read(const ChunkSpec& spec, const RowValueFn& each) {
  has_dictionary_ = false;
  dictionary_.clear();
  ChunkCounts counts;
  const PageBytes file{spec.file, spec.name, spec.column, 0};
  const auto total = static_cast<uint64_t>(spec.num_values);
  uint64_t pos = spec.start, values = 0;
  bool data_seen = false;
  while (values < total) {
    if (pos >= spec.end) {
      file.fail(pos, "the column chunk ends after " + std::to_string(values) + " of its " + std::to_string(total) +
                         " values");
    }
    const PageHeader h = parse_page_header(spec.file.substr(pos, spec.end - pos), pos, *spec.name);
    const uint64_t body_offset = pos + h.header_size;
    const PageBytes b = body(spec, h, pos, body_offset);
    if (h.type == kDictionaryPage) {
      counts.dictionary_pages++;
      if (has_dictionary_ || data_seen) file.fail(pos, "a dictionary page after the chunk's first page");
      read_dictionary(spec, h, b);
    } else if (h.type == kDataPage || h.type == kDataPageV2) {
      data_seen = true;
      (h.type == kDataPage ? counts.data_pages_v1 : counts.data_pages_v2)++;
      const uint64_t n = h.type == kDataPage ? h.v1.num_values : h.v2.num_values;
      if (n > total - values)
        file.fail(pos, "the chunk's pages hold more than its " + std::to_string(total) + " values");
      if (h.type == kDataPage)
        read_v1(spec, h, b, spec.first_row + values, counts, each);
      else
        read_v2(spec, h, b, spec.first_row + values, counts, each);
      values += n;
    } else if (h.type != kIndexPage) {
      file.fail(pos, "a page of unknown " + page_type_name(h.type));
    }
    pos = body_offset + static_cast<uint64_t>(h.compressed_size);
  }
  return counts;
}

// The page's stored bytes, checked to lie in the chunk and to respect the page size limit.
PageBytes ChunkReader::body(const ChunkSpec& spec, const PageHeader& h, uint64_t offset, uint64_t body_offset) const {
  const PageBytes file{spec.file, spec.name, spec.column, 0};
  const auto stored = static_cast<uint64_t>(h.compressed_size);
  if (stored > spec.end - body_offset) {
    file.fail(offset, "a page of " + std::to_string(stored) + " bytes runs past the end of its column chunk (byte " +
                          std::to_string(spec.end) + ")");
  }
  const uint64_t largest = std::max<uint64_t>(stored, static_cast<uint64_t>(h.uncompressed_size));
  if (largest > spec.max_page_bytes) {
    file.fail(offset, "a page of " + std::to_string(largest) + " bytes, more than the limit of " +
                          std::to_string(spec.max_page_bytes));
  }
  return file.slice(body_offset, stored);
}

PageBytes ChunkReader::decompressed(int32_t codec, const PageBytes& in, uint64_t size, std::string& buffer) {
  if (codec == kUncompressed) {
    if (in.bytes.size() != size) {
      in.fail(0, "an uncompressed page of " + std::to_string(in.bytes.size()) + " bytes whose header says " +
                     std::to_string(size));
    }
    return in;
  }
  decompressor_.decompress(codec, in, size, buffer);
  PageBytes out = in;
  out.bytes = buffer;
  out.decompressed = true;
  out.base = 0;
  return out;
}

void ChunkReader::read_dictionary(const ChunkSpec& spec, const PageHeader& h, const PageBytes& body) {
  if (h.dictionary.encoding != kPlain && h.dictionary.encoding != kPlainDictionary) {
    body.fail(0, "a dictionary page encoded " + encoding_name(h.dictionary.encoding) + " (only PLAIN is read)");
  }
  const PageBytes values =
      decompressed(spec.codec, body, static_cast<uint64_t>(h.uncompressed_size), dictionary_bytes_);
  const auto n = static_cast<uint64_t>(h.dictionary.num_values);
  if (n > values.bytes.size() / 4) {
    values.fail(
        0, "a dictionary of " + std::to_string(n) + " entries in " + std::to_string(values.bytes.size()) + " bytes");
  }
  dictionary_.reserve(n);
  read_plain_values(values, n, [&](std::string_view v) { dictionary_.push_back(v); });
  has_dictionary_ = true;
}

namespace {

// `defined` values of a page whose first row is `first_row`, passed on with their rows: a flat column's page has one
// value per row, so a value's row is that of the next definition level that is 1 (read lazily, in constant memory;
// `levels` holds exactly `defined` ones, counted by count_defined). A REQUIRED column's page has no levels.
std::function<void(std::string_view)> with_rows(RleHybridDecoder* levels, uint64_t first_row, const RowValueFn& each) {
  if (levels == nullptr) return [&each, row = first_row](std::string_view v) mutable { each(row++, v); };
  return [&each, levels, row = first_row](std::string_view v) mutable {
    while (levels->next() == 0) row++;
    each(row++, v);
  };
}

}  // namespace

void ChunkReader::read_v1(const ChunkSpec& spec, const PageHeader& h, const PageBytes& body, uint64_t first_row,
                          ChunkCounts& counts, const RowValueFn& each) {
  PageBytes data = decompressed(spec.codec, body, static_cast<uint64_t>(h.uncompressed_size), page_);
  const auto n = static_cast<uint64_t>(h.v1.num_values);
  uint64_t defined = n;
  PageBytes levels = data.slice(0, 0);
  if (spec.optional) {
    if (h.v1.definition_encoding != kRle) {
      data.fail(0, "definition levels encoded " + encoding_name(h.v1.definition_encoding) + " (only RLE is read)");
    }
    if (data.bytes.size() < 4) data.fail(0, "no room for the definition levels' length");
    const uint32_t length = load_le32(data.bytes, 0);
    if (length > data.bytes.size() - 4) {
      data.fail(0, "definition levels of " + std::to_string(length) + " bytes run past the end of the page");
    }
    levels = data.slice(4, length);
    defined = count_defined(levels, n);
    data = data.slice(4 + size_t{length}, data.bytes.size() - 4 - length);
  }
  RleHybridDecoder rows(levels, 1);
  read_values(h.v1.encoding, data, defined, with_rows(spec.optional ? &rows : nullptr, first_row, each));
  counts.values += defined;
  counts.nulls += n - defined;
}

void ChunkReader::read_v2(const ChunkSpec& spec, const PageHeader& h, const PageBytes& body, uint64_t first_row,
                          ChunkCounts& counts, const RowValueFn& each) {
  const DataPageV2& v = h.v2;
  const auto n = static_cast<uint64_t>(v.num_values), nulls = static_cast<uint64_t>(v.num_nulls);
  if (v.repetition_bytes != 0) body.fail(0, "repetition levels in a page of a flat column");
  if (v.num_rows != v.num_values) {
    body.fail(0, "a page of " + std::to_string(n) + " values but " + std::to_string(static_cast<uint64_t>(v.num_rows)) +
                     " rows");
  }
  if (nulls > n) body.fail(0, "a page of " + std::to_string(n) + " values with " + std::to_string(nulls) + " nulls");
  const auto levels = static_cast<uint64_t>(v.definition_bytes);
  if (levels > body.bytes.size() || v.definition_bytes > h.uncompressed_size) {
    body.fail(0, "definition levels of " + std::to_string(levels) + " bytes run past the end of the page");
  }
  if (!spec.optional && (levels != 0 || nulls != 0)) {
    body.fail(0, "definition levels or nulls in a page of a REQUIRED column");
  }
  const PageBytes level_bytes = body.slice(0, levels);
  if (spec.optional) {
    const uint64_t counted = n - count_defined(level_bytes, n);
    if (counted != nulls)
      body.fail(0, std::to_string(counted) + " nulls in the definition levels, the page header says " +
                       std::to_string(nulls));
  }
  const PageBytes stored = body.slice(levels, body.bytes.size() - levels);
  const auto size = static_cast<uint64_t>(h.uncompressed_size) - levels;
  const PageBytes values = decompressed(v.is_compressed ? spec.codec : kUncompressed, stored, size, page_);
  RleHybridDecoder rows(level_bytes, 1);
  read_values(v.encoding, values, n - nulls, with_rows(spec.optional ? &rows : nullptr, first_row, each));
  counts.values += n - nulls;
  counts.nulls += nulls;
}

void ChunkReader::read_values(int32_t encoding, const PageBytes& values, uint64_t n,
                              const std::function<void(std::string_view)>& each) const {
  if (encoding == kPlain) return read_plain_values(values, n, each);
  if (encoding == kPlainDictionary || encoding == kRleDictionary) {
    if (!has_dictionary_) values.fail(0, "dictionary-encoded values in a chunk without a dictionary page");
    return read_dictionary_values(values, n, dictionary_, each);
  }
  if (encoding == kDeltaLengthByteArray) return read_delta_length_values(values, n, each);
  if (encoding == kDeltaByteArray) return read_delta_byte_array_values(values, n, each);
  values.fail(0, "values encoded " + encoding_name(encoding) +
                     ", which this reader does not read (it reads PLAIN, PLAIN_DICTIONARY, RLE_DICTIONARY, "
                     "DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY)");
}

}  // namespace nanotrn::io::parquet
