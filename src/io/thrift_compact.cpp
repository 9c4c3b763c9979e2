// The compact-protocol reader of thrift_compact.h: one cursor over a buffer, every read bounded by what is left.
#include "io/thrift_compact.h"

#include <iterator>
#include <limits>
#include <utility>

#include "base/error.h"

namespace nanotrn::io {
namespace {

bool is_integer(ThriftType t) {
  return t == ThriftType::kI8 || t == ThriftType::kI16 || t == ThriftType::kI32 || t == ThriftType::kI64;
}

int64_t unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

// Decrements the depth on the way out, also when a read throws.
class DepthGuard {
 public:
  explicit DepthGuard(int& depth) : depth_(depth) {}
  ~DepthGuard() { depth_--; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  int& depth_;
};

}  // namespace

std::string thrift_type_name(ThriftType type) {
  static constexpr const char* kNames[] = {"stop",   "bool",   "bool", "i8",  "i16", "i32",   "i64",
                                           "double", "binary", "list", "set", "map", "struct"};
  const auto i = static_cast<size_t>(type);
  return i < std::size(kNames) ? kNames[i] : "type " + std::to_string(i);
}

ThriftReader::ThriftReader(std::string_view bytes, uint64_t file_offset, std::string name)
    : bytes_(bytes), file_offset_(file_offset), name_(std::move(name)) {}

void ThriftReader::fail(const std::string& what) const {
  throw Error(name_ + ": byte " + std::to_string(offset()) + ": " + what);
}

uint8_t ThriftReader::byte() {
  if (pos_ >= bytes_.size()) fail("the Thrift data ends early (truncated metadata or page header)");
  return static_cast<uint8_t>(bytes_[pos_++]);
}

// A ULEB128 varint of at most `max_bits` significant bits.
uint64_t ThriftReader::varint(int max_bits) {
  uint64_t value = 0;
  for (int shift = 0;; shift += 7) {
    if (shift >= max_bits) fail("a varint longer than " + std::to_string(max_bits) + " bits");
    const uint8_t b = byte();
    const uint64_t part = b & 0x7f;
    if (shift > 0 && max_bits - shift < 7 && (part >> (max_bits - shift)) != 0) {
      fail("a varint overflows " + std::to_string(max_bits) + " bits");
    }
    value |= part << shift;
    if ((b & 0x80) == 0) return value;
  }
}

void ThriftReader::enter() {
  if (++depth_ > kThriftMaxDepth) {
    depth_--;
    fail("Thrift structures nested deeper than " + std::to_string(kThriftMaxDepth));
  }
}

void ThriftReader::read_struct(const std::function<void(int16_t, ThriftType)>& on_field) {
  enter();
  DepthGuard guard(depth_);
  int32_t last_id = 0;
  for (;;) {
    const uint8_t header = byte();
    if (header == 0) return;
    const auto type = static_cast<ThriftType>(header & 0x0f);
    if (type == ThriftType::kStop || static_cast<uint8_t>(type) > static_cast<uint8_t>(ThriftType::kStruct)) {
      fail("a struct field of unknown Thrift " + thrift_type_name(type));
    }
    const int32_t delta = header >> 4;
    const int64_t id = delta != 0 ? last_id + delta : unzigzag(varint(16));
    if (id < std::numeric_limits<int16_t>::min() || id > std::numeric_limits<int16_t>::max()) {
      fail("a struct field id out of range (" + std::to_string(id) + ")");
    }
    last_id = static_cast<int32_t>(id);
    on_field(static_cast<int16_t>(id), type);
  }
}

void ThriftReader::read_list(ThriftType type, std::string_view what,
                             const std::function<void(ThriftType element)>& on_element) {
  if (type != ThriftType::kList && type != ThriftType::kSet) {
    fail(std::string(what) + ": expected a list, found " + thrift_type_name(type));
  }
  enter();
  DepthGuard guard(depth_);
  const uint8_t header = byte();
  const auto element = static_cast<ThriftType>(header & 0x0f);
  const uint64_t size = (header >> 4) == 15 ? varint(32) : header >> 4;
  // Every element takes at least one byte, so a count larger than the bytes left cannot be right.
  if (size > bytes_.size() - pos_) {
    fail(std::string(what) + ": a list of " + std::to_string(size) + " elements in " +
         std::to_string(bytes_.size() - pos_) + " bytes");
  }
  if (size > 0 && (element == ThriftType::kStop || static_cast<uint8_t>(element) > 12)) {
    fail(std::string(what) + ": a list of unknown Thrift " + thrift_type_name(element));
  }
  for (uint64_t i = 0; i < size; i++) on_element(element);
}

int64_t ThriftReader::integer(ThriftType type, std::string_view what) {
  if (!is_integer(type)) fail(std::string(what) + ": expected an integer, found " + thrift_type_name(type));
  if (type == ThriftType::kI8) return static_cast<int8_t>(byte());
  return unzigzag(varint(type == ThriftType::kI16 ? 16 : type == ThriftType::kI32 ? 32 : 64));
}

int32_t ThriftReader::read_i32(ThriftType type, std::string_view what) {
  const int64_t v = integer(type, what);
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    fail(std::string(what) + ": " + std::to_string(v) + " does not fit in an i32");
  }
  return static_cast<int32_t>(v);
}

int64_t ThriftReader::read_i64(ThriftType type, std::string_view what) { return integer(type, what); }

bool ThriftReader::read_bool(ThriftType type, std::string_view what) {
  if (type != ThriftType::kTrue && type != ThriftType::kFalse) {
    fail(std::string(what) + ": expected a bool, found " + thrift_type_name(type));
  }
  return type == ThriftType::kTrue;
}

std::string_view ThriftReader::read_binary(ThriftType type, std::string_view what) {
  if (type != ThriftType::kBinary) fail(std::string(what) + ": expected binary, found " + thrift_type_name(type));
  const uint64_t size = varint(32);
  if (size > bytes_.size() - pos_) {
    fail(std::string(what) + ": " + std::to_string(size) + " bytes of binary, " + std::to_string(bytes_.size() - pos_) +
         " left");
  }
  const std::string_view out = bytes_.substr(pos_, size);
  pos_ += size;
  return out;
}

void ThriftReader::skip(ThriftType type) { skip_value(type, false); }

void ThriftReader::skip_value(ThriftType type, bool list_element) {
  switch (type) {
    case ThriftType::kTrue:
    case ThriftType::kFalse:
      if (list_element) byte();  // in a container a boolean is a byte; in a struct its value is its type
      return;
    case ThriftType::kI8:
      byte();
      return;
    case ThriftType::kI16:
      varint(16);
      return;
    case ThriftType::kI32:
      varint(32);
      return;
    case ThriftType::kI64:
      varint(64);
      return;
    case ThriftType::kDouble:
      for (int i = 0; i < 8; i++) byte();
      return;
    case ThriftType::kBinary:
      read_binary(type, "a skipped field");
      return;
    case ThriftType::kList:
    case ThriftType::kSet:
      read_list(type, "a skipped list", [&](ThriftType e) { skip_value(e, true); });
      return;
    case ThriftType::kStruct:
      read_struct([&](int16_t, ThriftType t) { skip_value(t, false); });
      return;
    case ThriftType::kMap: {
      enter();
      DepthGuard guard(depth_);
      const uint64_t size = varint(32);
      if (size == 0) return;
      if (size > bytes_.size() - pos_) fail("a map of " + std::to_string(size) + " entries in too few bytes");
      const uint8_t types = byte();
      const auto key = static_cast<ThriftType>(types >> 4), value = static_cast<ThriftType>(types & 0x0f);
      for (uint64_t i = 0; i < size; i++) {
        skip_value(key, true);
        skip_value(value, true);
      }
      return;
    }
    default:
      fail("a value of unknown Thrift " + thrift_type_name(type));
  }
}

}  // namespace nanotrn::io
