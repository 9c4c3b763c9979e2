// safetensors encode/decode with strict validation. See safetensors.h.
#include "io/safetensors.h"
#include "base/json_parse.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "io/crc32c.h"

namespace nanotrn {

namespace {

constexpr uint64_t kMaxHeader = 100u << 20;  // the reference implementation's limit

const char* st_name(DType t) {
  switch (t) {
    case DType::f32:
      return "F32";
    case DType::bf16:
      return "BF16";
    case DType::f16:
      return "F16";
    case DType::f8e4m3:
      return "F8_E4M3";
    case DType::f8e5m2:
      return "F8_E5M2";
    case DType::i32:
      return "I32";
  }
  return "?";
}

bool st_dtype(const std::string& s, DType* out) {
  for (DType t : {DType::f32, DType::bf16, DType::f16, DType::f8e4m3, DType::f8e5m2, DType::i32}) {
    if (s == st_name(t)) {
      *out = t;
      return true;
    }
  }
  return false;
}

const std::string kChecksumPrefix = "crc32c:";
const std::string kMetadataChecksum = kChecksumPrefix + "__metadata__";

std::string crc_hex(uint32_t crc) {
  static const char* digits = "0123456789abcdef";
  std::string s(8, '0');
  for (int i = 7; i >= 0; i--, crc >>= 4) s[static_cast<size_t>(i)] = digits[crc & 0xFu];
  return s;
}

bool parse_crc_hex(const std::string& s, uint32_t* out) {
  if (s.size() != 8) return false;
  uint32_t v = 0;
  for (char ch : s) {
    const int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
    if (d < 0) return false;
    v = v << 4 | static_cast<uint32_t>(d);
  }
  *out = v;
  return true;
}

// The checksum of the caller's metadata: each key and value, in key order, each followed by a NUL.
uint32_t metadata_crc(const std::map<std::string, std::string>& metadata) {
  uint32_t c = 0;
  const char nul = 0;
  for (const auto& [key, value] : metadata) {
    c = crc32c(key.data(), key.size(), c);
    c = crc32c(&nul, 1, c);
    c = crc32c(value.data(), value.size(), c);
    c = crc32c(&nul, 1, c);
  }
  return c;
}

}  // namespace

const Tensor* SafetensorsFile::find(const std::string& name) const {
  for (const auto& [n, t] : tensors) {
    if (n == name) return &t;
  }
  return nullptr;
}

std::vector<uint8_t> encode_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                        const std::map<std::string, std::string>& metadata,
                                        SafetensorsChecksums checksums) {
  for (const auto& [key, value] : metadata) {
    check(!key.starts_with(kChecksumPrefix),
          "safetensors: metadata key '" + key + "' uses the prefix reserved for checksums");
  }
  std::map<std::string, std::string> meta = metadata;
  std::vector<Tensor> contiguous;
  std::set<std::string> names;
  for (const auto& [name, t] : tensors) {
    check(!name.empty() && name != "__metadata__", "safetensors: invalid tensor name '" + name + "'");
    check(names.insert(name).second, "safetensors: duplicate tensor name '" + name + "'");
    check(t.defined(), "safetensors: tensor '" + name + "' is undefined");
    contiguous.push_back(t.contiguous());
    const Tensor& c = contiguous.back();
    if (checksums == SafetensorsChecksums::crc32c) {
      meta[kChecksumPrefix + name] =
          crc_hex(crc32c(c.raw_data(), static_cast<size_t>(c.numel()) * dtype_size(c.dtype())));
    }
  }
  if (checksums == SafetensorsChecksums::crc32c) meta[kMetadataChecksum] = crc_hex(metadata_crc(metadata));
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!meta.empty()) header["__metadata__"] = meta;
  uint64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); i++) {
    const Tensor& t = contiguous[i];
    const uint64_t bytes = static_cast<uint64_t>(t.numel()) * dtype_size(t.dtype());
    header[tensors[i].first] = {
        {"dtype", st_name(t.dtype())}, {"shape", t.shape()}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');  // keep the data 8-byte aligned, as the reference writer does
  std::vector<uint8_t> out(8 + json.size() + offset);
  const uint64_t n = json.size();
  for (int i = 0; i < 8; i++) out[i] = static_cast<uint8_t>(n >> (8 * i));
  std::memcpy(out.data() + 8, json.data(), json.size());
  uint8_t* data = out.data() + 8 + json.size();
  for (const Tensor& c : contiguous) {
    const size_t bytes = static_cast<size_t>(c.numel()) * dtype_size(c.dtype());
    if (bytes) std::memcpy(data, c.raw_data(), bytes);
    data += bytes;
  }
  return out;
}

namespace {

// A safetensors file's bytes being decoded: every problem is an Error naming the file and the byte offset.
class SafetensorsDecoder {
 public:
  SafetensorsDecoder(const uint8_t* data, size_t size, const std::string& source)
      : data_(data), size_(size), source_(source) {}

  SafetensorsFile decode() {
    const nlohmann::json header = read_header();
    for (auto it = header.begin(); it != header.end(); ++it) {
      if (it.key() == "__metadata__") {
        read_metadata(it.value());
      } else {
        entries_.push_back(read_entry(it.key(), it.value()));
      }
    }
    check_layout();
    file_.checksummed = !checksums_.empty();
    if (file_.checksummed) verify_checksums();
    for (const Entry& e : entries_) {
      Tensor t = Tensor::empty(e.shape, e.dtype);
      if (e.end > e.begin) std::memcpy(t.raw_data(), data_ + base_ + e.begin, e.end - e.begin);
      file_.tensors.emplace_back(e.name, std::move(t));
    }
    return std::move(file_);
  }

 private:
  struct Entry {
    uint64_t begin, end;
    std::string name;
    DType dtype;
    Shape shape;
  };

  [[noreturn]] void fail(uint64_t offset, const std::string& msg) const {
    throw Error(source_ + ": byte " + std::to_string(offset) + ": " + msg);
  }

  // The 8-byte little-endian length, then that many bytes of JSON: an object.
  nlohmann::json read_header() {
    if (size_ < 8) fail(0, "file of " + std::to_string(size_) + " bytes is too short for the 8-byte header length");
    uint64_t n = 0;
    for (int i = 0; i < 8; i++) n |= static_cast<uint64_t>(data_[i]) << (8 * i);
    if (n > kMaxHeader) fail(0, "header length " + std::to_string(n) + " exceeds the 100 MiB limit");
    if (n > size_ - 8) fail(0, "header length " + std::to_string(n) + " runs past the end of the file");
    // JSON never holds a raw NUL; the parser would stop at one and ignore the rest of the header.
    if (const void* nul = std::memchr(data_ + 8, 0, n); nul != nullptr) {
      fail(static_cast<const uint8_t*>(nul) - data_, "header holds a NUL byte");
    }
    nlohmann::json header;
    try {
      header = nanotrn::parse_json(std::string_view(reinterpret_cast<const char*>(data_ + 8), n));
    } catch (const nlohmann::json::parse_error& e) {
      fail(8 + e.byte, std::string("header is not valid JSON: ") + e.what());
    } catch (const nlohmann::json::exception& e) {  // out_of_range: a number too large for a double ("1E400")
      fail(8, std::string("header is not valid JSON: ") + e.what());
    }
    if (!header.is_object()) fail(8, "header is not a JSON object");
    base_ = 8 + n;
    buffer_ = size_ - base_;
    return header;
  }

  // __metadata__: strings only; the "crc32c:" entries kept apart for verify_checksums.
  void read_metadata(const nlohmann::json& v) {
    if (!v.is_object()) fail(8, "__metadata__ is not an object");
    for (auto m = v.begin(); m != v.end(); ++m) {
      if (!m.value().is_string()) fail(8, "__metadata__ value of '" + m.key() + "' is not a string");
      auto& into = m.key().starts_with(kChecksumPrefix) ? checksums_ : file_.metadata;
      into[m.key()] = m.value().get<std::string>();
    }
  }

  // One tensor's dtype, shape and data offsets, its byte count checked against its shape.
  Entry read_entry(const std::string& key, const nlohmann::json& v) const {
    const std::string where = "tensor '" + key + "': ";
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets")) {
      fail(8, where + "needs dtype, shape and data_offsets");
    }
    Entry e;
    e.name = key;
    if (!v["dtype"].is_string() || !st_dtype(v["dtype"].get<std::string>(), &e.dtype)) {
      fail(8, where + "unsupported dtype " + v["dtype"].dump());
    }
    if (!v["shape"].is_array()) fail(8, where + "shape is not an array");
    uint64_t numel = 1;
    for (const auto& d : v["shape"]) {
      if (!d.is_number_unsigned()) fail(8, where + "shape entry " + d.dump() + " is not a non-negative integer");
      const uint64_t dim = d.get<uint64_t>();
      if (dim > 0 && numel > std::numeric_limits<uint64_t>::max() / 16 / dim) fail(8, where + "shape overflows");
      numel *= dim;
      e.shape.push_back(static_cast<int64_t>(dim));
    }
    const auto& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned()) {
      fail(8, where + "data_offsets must be two non-negative integers");
    }
    e.begin = off[0].get<uint64_t>();
    e.end = off[1].get<uint64_t>();
    if (e.begin > e.end || e.end > buffer_) {
      fail(base_ + std::min(e.begin, buffer_), where + "data_offsets [" + std::to_string(e.begin) + ", " +
                                                   std::to_string(e.end) + ") outside the " + std::to_string(buffer_) +
                                                   "-byte data buffer");
    }
    if (e.end - e.begin != numel * dtype_size(e.dtype)) {
      fail(base_ + e.begin, where + std::to_string(e.end - e.begin) + " bytes for shape " + shape_str(e.shape) +
                                " of " + st_name(e.dtype));
    }
    return e;
  }

  // The tensors tile the data buffer exactly: no hole, no overlap, nothing left over.
  void check_layout() {
    std::sort(entries_.begin(), entries_.end(),
              [](const Entry& a, const Entry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
    uint64_t expect = 0;
    for (const Entry& e : entries_) {
      if (e.begin != expect) {
        fail(base_ + std::min(e.begin, expect), "tensor '" + e.name + "' starts at data offset " +
                                                    std::to_string(e.begin) + " but the previous tensor ends at " +
                                                    std::to_string(expect) + " (holes and overlaps are not allowed)");
      }
      expect = e.end;
    }
    if (expect != buffer_) {
      fail(base_ + expect,
           "the tensors cover " + std::to_string(expect) + " of the " + std::to_string(buffer_) + " data bytes");
    }
  }

  // One rule for every entry: present, well-formed, matching. A stray entry means a damaged name.
  void verify_checksums() {
    expect_crc(kMetadataChecksum, "__metadata__", 8, metadata_crc(file_.metadata));
    for (const Entry& e : entries_) {
      expect_crc(kChecksumPrefix + e.name,
                 "tensor '" + e.name + "' (data bytes " + std::to_string(e.begin) + ".." + std::to_string(e.end) + ")",
                 base_ + e.begin, crc32c(data_ + base_ + e.begin, e.end - e.begin));
    }
    if (!checksums_.empty()) fail(8, "checksum \"" + checksums_.begin()->first + "\" names no tensor in the file");
  }
  void expect_crc(const std::string& key, const std::string& what, uint64_t offset, uint32_t computed) {
    const auto it = checksums_.find(key);
    if (it == checksums_.end()) fail(8, what + " has no \"" + key + "\" checksum while the file has others");
    uint32_t stored = 0;
    if (!parse_crc_hex(it->second, &stored)) {
      fail(8, "checksum \"" + key + "\" is \"" + it->second + "\", not 8 lowercase hex digits");
    }
    if (stored != computed) {
      fail(offset, what + " fails its CRC-32C check (stored " + it->second + ", computed " + crc_hex(computed) +
                       "): the file is corrupted");
    }
    checksums_.erase(it);
  }

  const uint8_t* data_;
  size_t size_;
  const std::string& source_;
  uint64_t base_ = 0, buffer_ = 0;  // where the data buffer starts, and its length
  SafetensorsFile file_;
  std::map<std::string, std::string> checksums_;  // the "crc32c:" metadata entries
  std::vector<Entry> entries_;
};

}  // namespace

SafetensorsFile decode_safetensors(const uint8_t* data, size_t size, const std::string& source) {
  return SafetensorsDecoder(data, size, source).decode();
}

void save_safetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  write_file_atomic(path, encode_safetensors(tensors, metadata));
}

SafetensorsFile load_safetensors(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  return decode_safetensors(bytes.data(), bytes.size(), path);
}

}  // namespace nanotrn
