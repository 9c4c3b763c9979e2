// TensorBoard event encoding against the public format, byte by byte: the masked CRC-32C over the standard check
// input ("123456789" -> CRC-32C 0xE3069283, RFC 3720 B.4), the TFRecord framing, and an Event with one scalar
// encoded by hand from event.proto / summary.proto field numbers.
#include "io/tfevents.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace nanotrn::io {
namespace {

uint32_t le32(const std::string& s, size_t at) {
  uint32_t v = 0;
  std::memcpy(&v, s.data() + at, 4);
  return v;
}

TEST(TfEvents, MaskedCrcOfTheCheckInput) {
  const uint32_t c = 0xE3069283u;
  EXPECT_EQ(masked_crc32c("123456789", 9), ((c >> 15) | (c << 17)) + 0xa282ead8u);
}

TEST(TfEvents, RecordFraming) {
  const std::string r = tfrecord("abc");
  ASSERT_EQ(r.size(), 8u + 4 + 3 + 4);
  EXPECT_EQ(r.substr(0, 8), std::string("\x03\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(le32(r, 8), masked_crc32c(r.data(), 8));
  EXPECT_EQ(r.substr(12, 3), "abc");
  EXPECT_EQ(le32(r, 15), masked_crc32c("abc", 3));
}

TEST(TfEvents, AScalarEventByHand) {
  const double wall = 1.5;
  std::string want = "\x09";  // field 1 (wall_time), fixed64
  want.append(reinterpret_cast<const char*>(&wall), 8);
  want += std::string("\x10\x05", 2);  // field 2 (step), varint 5
  // field 5 (summary) { field 1 (value) { field 1 (tag) "a", field 2 (simple_value) fixed32 2.0f } }
  const float v = 2.0f;
  std::string value = std::string("\x0a\x01", 2) + "a" + "\x15";
  value.append(reinterpret_cast<const char*>(&v), 4);
  const std::string summary = "\x0a" + std::string(1, static_cast<char>(value.size())) + value;
  want += "\x2a" + std::string(1, static_cast<char>(summary.size())) + summary;
  EXPECT_EQ(event_scalars_proto(5, wall, {{"a", 2.0f}}), want);
  // A step of 300 takes two varint bytes (0xAC 0x02); step 0 is left out, as proto3 does.
  EXPECT_NE(event_scalars_proto(300, wall, {{"a", 2.0f}}).find(std::string("\x10\xac\x02", 3)), std::string::npos);
  EXPECT_EQ(event_scalars_proto(0, wall, {{"a", 2.0f}}).find('\x10'), std::string::npos);
  const std::string version = event_file_version_proto(wall);
  EXPECT_EQ(version.substr(9), std::string("\x1a\x0d", 2) + "brain.Event:2");
}

}  // namespace
}  // namespace nanotrn::io
