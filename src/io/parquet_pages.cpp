// Page bodies of parquet_pages.h: decompression, the RLE / bit-packing hybrid and BYTE_ARRAY values.
#include "io/parquet_pages.h"

#include <snappy-c.h>
#include <zstd.h>

#include <cstring>
#include <new>

#include "base/error.h"
#include "io/parquet_metadata.h"

namespace nanotrn::io::parquet {

uint32_t load_le32(std::string_view bytes, size_t pos) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = v << 8 | static_cast<uint8_t>(bytes[pos + i]);
  return v;
}

PageBytes PageBytes::slice(size_t pos, size_t size) const {
  PageBytes s = *this;
  s.bytes = bytes.substr(pos, size);
  if (decompressed)
    s.base = base + pos;
  else
    s.offset = offset + pos;
  return s;
}

void PageBytes::fail(size_t pos, const std::string& what) const {
  const std::string where = decompressed ? std::to_string(offset) : std::to_string(offset + pos);
  std::string message = *file + ": byte " + where + ": column '" + *column + "': " + what;
  if (decompressed) message += " (at byte " + std::to_string(base + pos) + " of the page's decompressed data)";
  throw Error(message);
}

Decompressor::Decompressor() : zstd_(ZSTD_createDCtx()) {
  if (zstd_ == nullptr) throw std::bad_alloc();
}

Decompressor::~Decompressor() { ZSTD_freeDCtx(zstd_); }

void Decompressor::decompress(int32_t codec, const PageBytes& in, size_t size, std::string& out) {
  out.resize(size);
  const std::string expected = std::to_string(size) + " bytes (the page header's uncompressed size)";
  if (codec == kSnappy) {
    size_t length = 0;
    if (snappy_uncompressed_length(in.bytes.data(), in.bytes.size(), &length) != SNAPPY_OK) {
      in.fail(0, "corrupt SNAPPY data (no valid length header)");
    }
    if (length != size) in.fail(0, "SNAPPY data of " + std::to_string(length) + " bytes, expected " + expected);
    size_t written = size;
    if (snappy_uncompress(in.bytes.data(), in.bytes.size(), out.data(), &written) != SNAPPY_OK || written != size) {
      in.fail(0, "corrupt SNAPPY data");
    }
    return;
  }
  if (codec == kZstd) {
    const unsigned long long declared = ZSTD_getFrameContentSize(in.bytes.data(), in.bytes.size());
    if (declared == ZSTD_CONTENTSIZE_ERROR) in.fail(0, "corrupt ZSTD data (not a zstd frame)");
    if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > size) {
      in.fail(0, "a ZSTD frame of " + std::to_string(declared) + " bytes, expected " + expected);
    }
    const size_t written = ZSTD_decompressDCtx(zstd_, out.data(), size, in.bytes.data(), in.bytes.size());
    if (ZSTD_isError(written)) in.fail(0, std::string("corrupt ZSTD data (") + ZSTD_getErrorName(written) + ")");
    if (written != size) in.fail(0, "ZSTD data of " + std::to_string(written) + " bytes, expected " + expected);
    return;
  }
  in.fail(0, "no decompressor for codec " + codec_name(codec));
}

RleHybridDecoder::RleHybridDecoder(const PageBytes& data, int bit_width) : data_(data), bit_width_(bit_width) {
  if (bit_width < 0 || bit_width > 32) data.fail(0, "a bit width of " + std::to_string(bit_width) + " (at most 32)");
}

void RleHybridDecoder::next_run() {
  const std::string_view b = data_.bytes;
  if (pos_ >= b.size()) data_.fail(pos_, "the RLE / bit-packed runs end before all values were read");
  uint64_t header = 0;
  for (int shift = 0;; shift += 7) {
    if (pos_ >= b.size()) data_.fail(pos_, "a run header runs past the end of its data");
    if (shift > 28) data_.fail(pos_, "a run header longer than 5 bytes");
    const auto byte = static_cast<uint8_t>(b[pos_++]);
    header |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) break;
  }
  if (header >> 1 == 0) data_.fail(pos_, "a run of length 0");
  if (header & 1) {  // bit-packed: (header >> 1) groups of 8 values, bit_width bytes per group
    packed_left_ = (header >> 1) * 8;
    packed_bit_ = uint64_t{pos_} * 8;
    const uint64_t bytes = (header >> 1) * static_cast<uint64_t>(bit_width_);
    pos_ = bytes > b.size() - pos_ ? b.size() : pos_ + bytes;  // values past the end fail when read
    return;
  }
  const size_t width = (bit_width_ + 7) / 8;
  if (width > b.size() - pos_) data_.fail(pos_, "an RLE run's value runs past the end of its data");
  uint64_t value = 0;
  for (size_t i = 0; i < width; i++) value |= uint64_t{static_cast<uint8_t>(b[pos_ + i])} << (8 * i);
  if (bit_width_ < 32 && (value >> bit_width_) != 0) {
    data_.fail(pos_, "an RLE run's value " + std::to_string(value) + " does not fit its bit width " +
                         std::to_string(bit_width_));
  }
  pos_ += width;
  repeat_left_ = header >> 1;
  repeat_value_ = static_cast<uint32_t>(value);
}

uint32_t RleHybridDecoder::next() {
  while (repeat_left_ == 0 && packed_left_ == 0) next_run();
  if (repeat_left_ > 0) {
    repeat_left_--;
    return repeat_value_;
  }
  packed_left_--;
  const uint64_t first = packed_bit_, last = packed_bit_ + bit_width_;  // bits [first, last)
  packed_bit_ = last;
  if (bit_width_ == 0) return 0;
  const std::string_view b = data_.bytes;
  if ((last + 7) / 8 > b.size()) data_.fail(first / 8, "bit-packed values run past the end of their data");
  uint64_t bits = 0;
  const size_t begin = first / 8, end = (last + 7) / 8;
  for (size_t i = begin; i < end; i++) bits |= uint64_t{static_cast<uint8_t>(b[i])} << (8 * (i - begin));
  bits >>= first % 8;
  return static_cast<uint32_t>(bit_width_ == 32 ? bits : bits & ((uint64_t{1} << bit_width_) - 1));
}

uint64_t count_defined(const PageBytes& levels, uint64_t n) {
  RleHybridDecoder d(levels, 1);
  uint64_t defined = 0;
  for (uint64_t i = 0; i < n; i++) defined += d.next();  // width 1: every level is 0 or 1
  return defined;
}

void read_plain_values(const PageBytes& data, uint64_t n, const std::function<void(std::string_view)>& each) {
  const std::string_view b = data.bytes;
  size_t pos = 0;
  for (uint64_t i = 0; i < n; i++) {
    if (b.size() - pos < 4)
      data.fail(pos, "value " + std::to_string(i) + " of " + std::to_string(n) +
                         " runs past the end of the page (no room for its length)");
    const uint32_t length = load_le32(b, pos);
    if (length > b.size() - pos - 4) {
      data.fail(pos, "value " + std::to_string(i) + " of " + std::to_string(n) + " has length " +
                         std::to_string(length) + ", past the end of the page");
    }
    each(b.substr(pos + 4, length));
    pos += 4 + size_t{length};
  }
  if (pos != b.size()) {
    data.fail(pos, std::to_string(b.size() - pos) + " bytes after the page's " + std::to_string(n) + " values");
  }
}

void read_dictionary_values(const PageBytes& data, uint64_t n, const std::vector<std::string_view>& dictionary,
                            const std::function<void(std::string_view)>& each) {
  if (n == 0) return;
  if (data.bytes.empty()) data.fail(0, "dictionary indices without their bit-width byte");
  const int bit_width = static_cast<uint8_t>(data.bytes[0]);
  if (bit_width > 32) data.fail(0, "dictionary indices of bit width " + std::to_string(bit_width) + " (at most 32)");
  RleHybridDecoder indices(data.slice(1, data.bytes.size() - 1), bit_width);
  for (uint64_t i = 0; i < n; i++) {
    const uint32_t index = indices.next();
    if (index >= dictionary.size()) {
      data.fail(0, "dictionary index " + std::to_string(index) + " of value " + std::to_string(i) +
                       " is past the dictionary's " + std::to_string(dictionary.size()) + " entries");
    }
    each(dictionary[index]);
  }
}

}  // namespace nanotrn::io::parquet
