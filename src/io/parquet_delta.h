// The delta encodings of BYTE_ARRAY values (internal to the text reader of io/parquet.h; apache/parquet-format
// Encodings.md): DELTA_LENGTH_BYTE_ARRAY (the lengths DELTA_BINARY_PACKED, then the bytes back to back) and
// DELTA_BYTE_ARRAY (prefix lengths shared with the previous value, DELTA_BINARY_PACKED, then the suffixes as
// DELTA_LENGTH_BYTE_ARRAY). Arrow-rs writes the latter for strings in v2 files unless dictionary encoded, and Spark and
// parquet-java do with their v2 writers.
//
//   read_delta_length_values(values, n, each);   // n values that fill `values` exactly
//   read_delta_byte_array_values(values, n, each);
//
// Memory does not grow with the number of values: each stream of lengths is walked once to find where it ends and
// once more beside the bytes (a DELTA_BYTE_ARRAY value is rebuilt from the previous one, so one value is held).
// Every violation is an Error naming file, column and byte (parquet_pages.h): a header whose block size is not a
// multiple of 128 or whose miniblocks do not hold a multiple of 32 values, a value count other than the page's, a
// miniblock bit width over 32, a length that is negative or runs past the page, a prefix longer than the previous
// value, bytes left over after the last value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "io/parquet_pages.h"

namespace nanotrn::io::parquet {

// A DELTA_BINARY_PACKED stream of INT32 values (lengths), one value at a time.
class DeltaBinaryPackedDecoder {
 public:
  explicit DeltaBinaryPackedDecoder(const PageBytes& data);  // reads the header
  uint64_t count() const { return total_; }                  // the values in the stream
  int32_t next();                                            // an Error past count()
  size_t end() const { return pos_; }  // the position after what was read (after the stream once all is read)

 private:
  uint64_t uleb(int max_bits);
  void next_block();
  void next_miniblock();

  PageBytes data_;
  size_t pos_ = 0;
  uint64_t block_size_ = 0, miniblocks_ = 0, per_miniblock_ = 0, total_ = 0, read_ = 0;
  uint64_t last_ = 0, min_delta_ = 0;  // unsigned: the additions wrap as the format says
  std::vector<uint8_t> widths_;        // the current block's miniblock bit widths
  size_t miniblock_ = 0;               // the next miniblock of the block
  uint64_t left_ = 0, bit_ = 0;        // values left in the current miniblock, the bit of the next one
  int width_ = 0;
};

void read_delta_length_values(const PageBytes& data, uint64_t n, const std::function<void(std::string_view)>& each);
void read_delta_byte_array_values(const PageBytes& data, uint64_t n, const std::function<void(std::string_view)>& each);

}  // namespace nanotrn::io::parquet
