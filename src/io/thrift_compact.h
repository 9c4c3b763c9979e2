// A bounded reader of the Thrift compact protocol, the encoding of Parquet's footer and page headers (io/parquet.h).
// Only reading, only what a schema-less reader needs: a caller walks a struct field by field and either reads a
// field's value as the type it expects or skips it, so fields it does not know (newer format versions) cost nothing.
//
//   ThriftReader r(footer_bytes, footer_offset, "shard.parquet");
//   r.read_struct([&](int16_t id, ThriftType type) {
//     if (id == 3) rows = r.read_i64(type, "FileMetaData.num_rows");
//     else r.skip(type);
//   });
//
// Encoding (apache/thrift doc/specs/thrift-compact-protocol.md): integers are ULEB128 varints, signed ones zigzag
// mapped (i8 is one raw byte); a field header is one byte "dddd tttt" (id delta from the previous field of the same
// struct, type), delta 0 meaning a zigzag i16 id follows; 0x00 ends a struct; a boolean field carries its value in
// its type (1 true, 2 false), a boolean list element is one byte; binary is a varint length and the bytes; a list or
// set header is "ssss tttt" (size 15: a varint size follows); a map is a varint size and, unless empty, one byte of
// key and value types; doubles are 8 little-endian bytes.
// Bounds: nothing is read past the buffer; a length or element count larger than the bytes left, a varint longer
// than its type, a value out of its type's range, nesting deeper than kThriftMaxDepth, an unknown type or a value of
// the wrong type for the caller is an Error "<name>: byte <offset>: <what>", the offset counted in the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace nanotrn::io {

enum class ThriftType : uint8_t {
  kStop = 0,
  kTrue = 1,  // a boolean field holding true; as a list's element type: boolean
  kFalse = 2,
  kI8 = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

// "i32", "binary", ...; "type 13" for a value outside the enum.
std::string thrift_type_name(ThriftType type);

inline constexpr int kThriftMaxDepth = 32;  // structs and containers nested inside one another

class ThriftReader {
 public:
  // `bytes` starts at byte `file_offset` of the file called `name` (both only for error messages).
  ThriftReader(std::string_view bytes, uint64_t file_offset, std::string name);

  // Reads one struct: on_field(id, type) for each field until the stop byte. on_field must consume the field's value
  // (a read_* call with that type, read_list, read_struct for a struct, or skip).
  void read_struct(const std::function<void(int16_t id, ThriftType type)>& on_field);
  // Reads one list (or set): on_element(element_type) once per element, which must consume that element. `what`
  // names the field for errors.
  void read_list(ThriftType type, std::string_view what, const std::function<void(ThriftType element)>& on_element);

  // A field's value, read as the type the caller expects; any integer type is accepted when it fits. `what` names
  // the field for errors ("ColumnMetaData.codec").
  int32_t read_i32(ThriftType type, std::string_view what);
  int64_t read_i64(ThriftType type, std::string_view what);
  bool read_bool(ThriftType type, std::string_view what);  // a struct field's boolean (the value is its type)
  std::string_view read_binary(ThriftType type, std::string_view what);

  // Skips a struct field's value of `type`, whatever it holds.
  void skip(ThriftType type);

  size_t consumed() const { return pos_; }                 // bytes read so far
  uint64_t offset() const { return file_offset_ + pos_; }  // the file offset of the next byte
  [[noreturn]] void fail(const std::string& what) const;   // "<name>: byte <offset()>: <what>"

 private:
  uint8_t byte();
  uint64_t varint(int max_bits);
  int64_t integer(ThriftType type, std::string_view what);
  void skip_value(ThriftType type, bool list_element);
  void enter();

  std::string_view bytes_;
  uint64_t file_offset_;
  std::string name_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace nanotrn::io
