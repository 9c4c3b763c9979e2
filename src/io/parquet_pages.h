// The bodies of Parquet pages, for the text reader (io/parquet.h; internal to it): decompression (SNAPPY through
// libsnappy's raw block format, ZSTD through libzstd), the RLE / bit-packing hybrid of definition levels and
// dictionary indices, and BYTE_ARRAY values stored PLAIN or as dictionary indices. Formats: apache/parquet-format
// Encodings.md and Compression.md.
//
//   PageBytes levels{bytes, &file, &column, offset};          // bytes as stored: errors name file offsets
//   uint64_t defined = count_defined(levels, num_values);    // definition levels of bit width 1
//   read_plain_values(values, defined, each);                // n PLAIN BYTE_ARRAY values, filling `values` exactly
//
// Every read is bounded by its bytes: a value running past its page, a level or index out of range, a run of
// length 0, a bit width over 32, or a decompressed size other than the header's is an Error naming the file, the
// column and the byte offset (of the file; or of the page and the position inside its decompressed bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

struct ZSTD_DCtx_s;

namespace nanotrn::io::parquet {

// Some bytes of a page and how to name a position in them.
struct PageBytes {
  std::string_view bytes;
  const std::string* file = nullptr;    // the file's name
  const std::string* column = nullptr;  // the column's name
  uint64_t offset = 0;        // the file offset of bytes[0]; for decompressed bytes the page's (header) offset
  bool decompressed = false;  // bytes are a decompressed copy: positions are named inside it
  size_t base = 0;            // for decompressed bytes: the position of bytes[0] in the decompressed page

  // The `size` bytes at `pos` (which must be inside), named like these.
  PageBytes slice(size_t pos, size_t size) const;
  // "<file>: byte <offset>: column '<column>': <what>" for the byte at `pos`.
  [[noreturn]] void fail(size_t pos, const std::string& what) const;
};

// Decompresses page bodies; holds libzstd's context between pages.
class Decompressor {
 public:
  Decompressor();
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // `in` (codec SNAPPY or ZSTD) decompressed into `out`, which must come out exactly `size` bytes.
  void decompress(int32_t codec, const PageBytes& in, size_t size, std::string& out);

 private:
  ZSTD_DCtx_s* zstd_ = nullptr;
};

// The RLE / bit-packing hybrid with a known bit width (no length prefix), one value at a time.
class RleHybridDecoder {
 public:
  RleHybridDecoder(const PageBytes& data, int bit_width);
  uint32_t next();  // an Error when the runs end first

 private:
  void next_run();

  PageBytes data_;
  int bit_width_;
  size_t pos_ = 0;            // the next run header
  uint64_t repeat_left_ = 0;  // values left in the current RLE run
  uint32_t repeat_value_ = 0;
  uint64_t packed_left_ = 0;  // values left in the current bit-packed run
  uint64_t packed_bit_ = 0;   // the bit position of its next value
};

// The little-endian uint32 at bytes[pos], which must hold 4 bytes (a PLAIN length, a v1 page's level length).
uint32_t load_le32(std::string_view bytes, size_t pos);

// How many of `n` definition levels of bit width 1 (max level 1) are 1, i.e. not null.
uint64_t count_defined(const PageBytes& levels, uint64_t n);

// `n` PLAIN BYTE_ARRAY values (4-byte little-endian length, then the bytes), which must fill `data` exactly.
void read_plain_values(const PageBytes& data, uint64_t n, const std::function<void(std::string_view)>& each);

// `n` dictionary indices (one byte of bit width, then the RLE / bit-packing hybrid), each mapped through `dictionary`.
void read_dictionary_values(const PageBytes& data, uint64_t n, const std::vector<std::string_view>& dictionary,
                            const std::function<void(std::string_view)>& each);

}  // namespace nanotrn::io::parquet
