// TensorBoard event files. See tfevents.h.
#include "io/tfevents.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/error.h"
#include "io/crc32c.h"

namespace nanotrn::io {

namespace {

void put_le(std::string& s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void put_varint(std::string& s, uint64_t v) {
  while (v >= 0x80) {
    s.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
}

// A protobuf field key: field number and wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32).
void put_key(std::string& s, int field, int wire) { put_varint(s, static_cast<uint64_t>(field << 3 | wire)); }

void put_bytes(std::string& s, int field, std::string_view bytes) {
  put_key(s, field, 2);
  put_varint(s, bytes.size());
  s.append(bytes);
}

void put_double(std::string& s, int field, double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, 8);
  put_key(s, field, 1);
  put_le(s, bits, 8);
}

std::string event_head(int64_t step, double wall_time) {
  std::string e;
  put_double(e, 1, wall_time);
  if (step != 0) {  // proto3 leaves a zero out
    put_key(e, 2, 0);
    put_varint(e, static_cast<uint64_t>(step));
  }
  return e;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "host";
  return buf;
}

}  // namespace

uint32_t masked_crc32c(const void* data, size_t size) {
  const uint32_t c = crc32c(data, size);
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

std::string tfrecord(std::string_view data) {
  std::string len;
  put_le(len, data.size(), 8);
  std::string r = len;
  put_le(r, masked_crc32c(len.data(), len.size()), 4);
  r.append(data);
  put_le(r, masked_crc32c(data.data(), data.size()), 4);
  return r;
}

std::string event_file_version_proto(double wall_time) {
  std::string e = event_head(0, wall_time);
  put_bytes(e, 3, "brain.Event:2");
  return e;
}

std::string event_scalars_proto(int64_t step, double wall_time,
                                const std::vector<std::pair<std::string, float>>& scalars) {
  std::string summary;
  for (const auto& [tag, value] : scalars) {
    std::string v;
    put_bytes(v, 1, tag);
    uint32_t bits = 0;
    std::memcpy(&bits, &value, 4);
    put_key(v, 2, 5);
    put_le(v, bits, 4);
    put_bytes(summary, 1, v);
  }
  std::string e = event_head(step, wall_time);
  put_bytes(e, 5, summary);
  return e;
}

TfEventsWriter::TfEventsWriter(const std::string& dir) {
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  path_ = dir + "/events.out.tfevents." + std::to_string(static_cast<int64_t>(now)) + "." + host_name() + "." +
          std::to_string(::getpid());
  out_.open(path_, std::ios::binary | std::ios::app);
  check(out_.good(), "cannot open " + path_ + " for writing: " + std::strerror(errno));
  write(tfrecord(event_file_version_proto(now)));
}

void TfEventsWriter::scalars(int64_t step, double wall_time, const std::vector<std::pair<std::string, float>>& values) {
  write(tfrecord(event_scalars_proto(step, wall_time, values)));
}

void TfEventsWriter::write(const std::string& record) {
  out_.write(record.data(), static_cast<std::streamsize>(record.size()));
  out_.flush();
  check(out_.good(), "cannot write " + path_ + " (" + std::strerror(errno) + ")");
}

}  // namespace nanotrn::io
