// The delta encodings of parquet_delta.h.
#include "io/parquet_delta.h"

#include <limits>
#include <string>

namespace nanotrn::io::parquet {

DeltaBinaryPackedDecoder::DeltaBinaryPackedDecoder(const PageBytes& data) : data_(data) {
  block_size_ = uleb(32);
  miniblocks_ = uleb(32);
  total_ = uleb(32);
  const uint64_t first = uleb(64);
  last_ = (first >> 1) ^ (~(first & 1) + 1);  // zigzag, kept unsigned
  if (block_size_ == 0 || block_size_ % 128 != 0) {
    data_.fail(
        0, "a DELTA_BINARY_PACKED block size of " + std::to_string(block_size_) + " (not a positive multiple of 128)");
  }
  if (miniblocks_ == 0 || block_size_ % miniblocks_ != 0 || (block_size_ / miniblocks_) % 32 != 0) {
    data_.fail(0, "DELTA_BINARY_PACKED blocks of " + std::to_string(block_size_) + " values in " +
                      std::to_string(miniblocks_) + " miniblocks (each must hold a multiple of 32 values)");
  }
  per_miniblock_ = block_size_ / miniblocks_;
  miniblock_ = miniblocks_;  // the first delta starts a block
}

uint64_t DeltaBinaryPackedDecoder::uleb(int max_bits) {
  uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    if (pos_ >= data_.bytes.size()) data_.fail(pos_, "a DELTA_BINARY_PACKED varint runs past the end of the page");
    if (shift >= max_bits)
      data_.fail(pos_, "a DELTA_BINARY_PACKED varint longer than " + std::to_string(max_bits) + " bits");
    const auto byte = static_cast<uint8_t>(data_.bytes[pos_++]);
    const uint64_t part = byte & 0x7fu;
    if (max_bits - shift < 7 && (part >> (max_bits - shift)) != 0) {
      data_.fail(pos_ - 1, "a DELTA_BINARY_PACKED varint overflows " + std::to_string(max_bits) + " bits");
    }
    value |= part << shift;
    if ((byte & 0x80) == 0) return value;
  }
}

void DeltaBinaryPackedDecoder::next_block() {
  const uint64_t zigzag = uleb(64);
  min_delta_ = (zigzag >> 1) ^ (~(zigzag & 1) + 1);
  if (miniblocks_ > data_.bytes.size() - pos_) {
    data_.fail(pos_, "a DELTA_BINARY_PACKED block's " + std::to_string(miniblocks_) +
                         " bit widths run past the end of the page");
  }
  widths_.assign(data_.bytes.begin() + static_cast<std::ptrdiff_t>(pos_),
                 data_.bytes.begin() + static_cast<std::ptrdiff_t>(pos_ + miniblocks_));
  pos_ += miniblocks_;
  miniblock_ = 0;
}

void DeltaBinaryPackedDecoder::next_miniblock() {
  if (miniblock_ == miniblocks_) next_block();
  width_ = widths_[miniblock_++];
  if (width_ > 32)
    data_.fail(pos_, "a DELTA_BINARY_PACKED miniblock of bit width " + std::to_string(width_) + " (at most 32)");
  const uint64_t bytes = per_miniblock_ * static_cast<uint64_t>(width_) / 8;
  if (bytes > data_.bytes.size() - pos_) {
    data_.fail(pos_,
               "a DELTA_BINARY_PACKED miniblock of " + std::to_string(bytes) + " bytes runs past the end of the page");
  }
  bit_ = uint64_t{pos_} * 8;
  pos_ += bytes;
  left_ = per_miniblock_;
}

int32_t DeltaBinaryPackedDecoder::next() {
  if (read_ >= total_)
    data_.fail(pos_, "more values read than the DELTA_BINARY_PACKED stream's " + std::to_string(total_));
  if (read_++ > 0) {
    if (left_ == 0) next_miniblock();
    left_--;
    uint64_t bits = 0;
    const uint64_t begin = bit_ / 8, end = (bit_ + width_ + 7) / 8;
    for (uint64_t i = begin; i < end; i++) bits |= uint64_t{static_cast<uint8_t>(data_.bytes[i])} << (8 * (i - begin));
    bits = width_ == 0 ? 0 : (bits >> (bit_ % 8)) & ((uint64_t{1} << width_) - 1);
    bit_ += static_cast<uint64_t>(width_);
    last_ += min_delta_ + bits;
  }
  return static_cast<int32_t>(static_cast<uint32_t>(last_));  // INT32 values wrap in 32 bits
}

namespace {

// Walks `n` lengths of `data` (a DELTA_BINARY_PACKED stream): each non-negative; returns their sum and sets `end`.
uint64_t scan_lengths(const PageBytes& data, uint64_t n, const char* what, size_t& end) {
  DeltaBinaryPackedDecoder d(data);
  if (d.count() != n)
    data.fail(0, std::string(what) + ": " + std::to_string(d.count()) + " lengths for the page's " + std::to_string(n) +
                     " values");
  uint64_t sum = 0;
  for (uint64_t i = 0; i < n; i++) {
    const int32_t length = d.next();
    if (length < 0) data.fail(d.end(), std::string(what) + ": a negative length (" + std::to_string(length) + ")");
    sum += static_cast<uint64_t>(length);
  }
  end = d.end();
  return sum;
}

}  // namespace

void read_delta_length_values(const PageBytes& data, uint64_t n, const std::function<void(std::string_view)>& each) {
  if (n == 0) return;
  size_t start = 0;
  const uint64_t sum = scan_lengths(data, n, "DELTA_LENGTH_BYTE_ARRAY", start);
  if (sum != data.bytes.size() - start) {
    data.fail(start, "values of " + std::to_string(sum) + " bytes in all, where the page holds " +
                         std::to_string(data.bytes.size() - start) + " bytes after their lengths");
  }
  DeltaBinaryPackedDecoder lengths(data);
  size_t pos = start;
  for (uint64_t i = 0; i < n; i++) {
    const auto length = static_cast<size_t>(lengths.next());
    each(data.bytes.substr(pos, length));
    pos += length;
  }
}

void read_delta_byte_array_values(const PageBytes& data, uint64_t n,
                                  const std::function<void(std::string_view)>& each) {
  if (n == 0) return;
  size_t prefixes_end = 0, start = 0;
  scan_lengths(data, n, "DELTA_BYTE_ARRAY prefixes", prefixes_end);
  const PageBytes rest = data.slice(prefixes_end, data.bytes.size() - prefixes_end);
  const uint64_t sum = scan_lengths(rest, n, "DELTA_BYTE_ARRAY suffixes", start);
  if (sum != rest.bytes.size() - start) {
    rest.fail(start, "suffixes of " + std::to_string(sum) + " bytes in all, where the page holds " +
                         std::to_string(rest.bytes.size() - start) + " bytes after their lengths");
  }
  DeltaBinaryPackedDecoder prefixes(data), suffixes(rest);
  std::string value;
  size_t pos = start;
  for (uint64_t i = 0; i < n; i++) {
    const auto prefix = static_cast<size_t>(prefixes.next());
    if (prefix > value.size()) {
      rest.fail(pos, "value " + std::to_string(i) + " shares a prefix of " + std::to_string(prefix) +
                         " bytes with a previous value of " + std::to_string(value.size()));
    }
    const auto suffix = static_cast<size_t>(suffixes.next());
    value.resize(prefix);
    value.append(rest.bytes.substr(pos, suffix));
    pos += suffix;
    each(value);
  }
}

}  // namespace nanotrn::io::parquet
