// safetensors: round trips, a hand-built file decoded independently of our encoder, every malformation named with
// file and offset, the per-tensor checksums (every flipped bit of the data or the header is an Error naming the file;
// files without checksums still load), a mutation fuzz loop (decode must return the original or throw Error, never
// crash: run under ASan by the test command), and the atomic-write guarantee.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include <unistd.h>

#include "base/error.h"
#include "base/file.h"
#include "io/safetensors.h"

#include <nlohmann/json.hpp>

namespace nanotrn {
namespace {

std::vector<uint8_t> with_header(const std::string& json, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out(8 + json.size() + data.size());
  const uint64_t n = json.size();
  for (int i = 0; i < 8; i++) out[i] = static_cast<uint8_t>(n >> (8 * i));
  std::copy(json.begin(), json.end(), out.begin() + 8);
  std::copy(data.begin(), data.end(), out.begin() + 8 + static_cast<long>(json.size()));
  return out;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  try {
    decode_safetensors(bytes.data(), bytes.size(), "bad.safetensors");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Safetensors, RoundTripEveryDtypeAndMetadata) {
  Tensor f = Tensor::from_vector({2, 3}, {1, -2, 3.5f, 0, 1e-3f, 7});
  Tensor i = Tensor::from_ints({4}, {1, -1, 1 << 30, 0});
  std::vector<std::pair<std::string, Tensor>> ts = {{"f32", f}, {"i32", i}, {"empty", Tensor::zeros({0, 5})}};
  for (DType t : {DType::bf16, DType::f16, DType::f8e4m3, DType::f8e5m2}) ts.push_back({dtype_name(t).data(), f.to(t)});
  ts.push_back({"transposed_view", f.transpose(0, 1)});
  const auto bytes = encode_safetensors(ts, {{"step", "42"}, {"recipe", "{\"a\":1}"}});
  const SafetensorsFile back = decode_safetensors(bytes.data(), bytes.size(), "mem");
  ASSERT_EQ(back.tensors.size(), ts.size());
  EXPECT_EQ(back.metadata.at("step"), "42");
  EXPECT_EQ(back.metadata.at("recipe"), "{\"a\":1}");
  EXPECT_EQ(back.metadata.size(), 2u);  // the checksum entries are the format's, not the caller's
  for (const auto& [name, t] : ts) {
    const Tensor* got = back.find(name);
    ASSERT_NE(got, nullptr) << name;
    EXPECT_EQ(got->dtype(), t.dtype()) << name;
    EXPECT_EQ(got->shape(), t.shape()) << name;
    const Tensor c = t.contiguous();
    EXPECT_EQ(std::memcmp(got->raw_data(), c.raw_data(), static_cast<size_t>(c.numel()) * dtype_size(c.dtype())), 0)
        << name;
  }
  uint64_t header = 0;
  for (int k = 0; k < 8; k++) header |= static_cast<uint64_t>(bytes[k]) << (8 * k);
  EXPECT_EQ((8 + header) % 8, 0u);  // data starts 8-byte aligned
}

TEST(Safetensors, DecodesAHandBuiltFile) {
  // Two tensors, stored in the opposite order of the header keys, little-endian.
  std::vector<uint8_t> data;
  const float vals[2] = {1.5f, -2.0f};
  const int32_t ints[3] = {7, -8, 9};
  data.insert(data.end(), reinterpret_cast<const uint8_t*>(ints), reinterpret_cast<const uint8_t*>(ints) + 12);
  data.insert(data.end(), reinterpret_cast<const uint8_t*>(vals), reinterpret_cast<const uint8_t*>(vals) + 8);
  const std::string json =
      R"({"w":{"dtype":"F32","shape":[2,1],"data_offsets":[12,20]},"ids":{"dtype":"I32","shape":[3],)"
      R"("data_offsets":[0,12]},"__metadata__":{"format":"pt"}})";
  const auto bytes = with_header(json, data);
  const SafetensorsFile f = decode_safetensors(bytes.data(), bytes.size(), "hand");
  EXPECT_EQ(f.find("w")->to_vector(), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(f.find("w")->shape(), (Shape{2, 1}));
  EXPECT_EQ(f.find("ids")->data<int32_t>()[1], -8);
  EXPECT_EQ(f.metadata.at("format"), "pt");
}

TEST(Safetensors, EveryMalformationIsNamed) {
  const std::vector<uint8_t> eight(8, 0);
  struct Case {
    std::vector<uint8_t> bytes;
    const char* expect;
  };
  const std::vector<Case> cases = {
      {{1, 2, 3}, "byte 0: file of 3 bytes is too short"},
      {std::vector<uint8_t>{200, 0, 0, 0, 0, 0, 0, 0, '{', '}'}, "runs past the end"},
      {std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 1}, "exceeds the 100 MiB limit"},
      {with_header("{\"a\":", {}), "header is not valid JSON"},
      {with_header("[1,2]", {}), "not a JSON object"},
      {with_header(R"({"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", eight), "unsupported dtype \"F64\""},
      {with_header(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", eight), "not a non-negative"},
      {with_header(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})", eight), "outside the 8-byte"},
      {with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}})", eight), "8 bytes for shape [1]"},
      {with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],)"
                   R"("data_offsets":[2,6]}})",
                   eight),
       "holes and overlaps"},
      {with_header(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", eight), "cover 4 of the 8"},
      {with_header(R"({"a":{"dtype":"F32","shape":[1]}})", eight), "needs dtype, shape and data_offsets"},
      {with_header(R"({"__metadata__":{"k":1}})", {}), "is not a string"},
  };
  for (const Case& c : cases) {
    const std::string msg = error_of(c.bytes);
    EXPECT_NE(msg.find("bad.safetensors: byte "), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << "expected '" << c.expect << "' in: " << msg;
  }
}

// The bytes of each tensor's data, read from the header JSON independently of the decoder.
struct Span {
  std::string name;
  uint64_t begin, end;  // absolute file offsets
};
std::vector<Span> data_spans(const std::vector<uint8_t>& bytes, uint64_t* header_end) {
  uint64_t n = 0;
  for (int i = 0; i < 8; i++) n |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  *header_end = 8 + n;
  const auto header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(n));
  std::vector<Span> spans;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const auto& off = it.value()["data_offsets"];
    spans.push_back({it.key(), 8 + n + off[0].get<uint64_t>(), 8 + n + off[1].get<uint64_t>()});
  }
  return spans;
}

std::vector<std::pair<std::string, Tensor>> sample_tensors() {
  Tensor f = Tensor::from_vector({3, 2}, {1, 2, 3, 4, 5, 6});
  return {{"a", f}, {"b", f.to(DType::bf16)}, {"c", Tensor::from_ints({2}, {1, 2})}};
}

bool same_file(const SafetensorsFile& x, const SafetensorsFile& y) {
  if (x.metadata != y.metadata || x.tensors.size() != y.tensors.size()) return false;
  for (size_t i = 0; i < x.tensors.size(); i++) {
    const Tensor &a = x.tensors[i].second, &b = y.tensors[i].second;
    if (x.tensors[i].first != y.tensors[i].first || a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
    if (std::memcmp(a.raw_data(), b.raw_data(), static_cast<size_t>(a.numel()) * dtype_size(a.dtype())) != 0) {
      return false;
    }
  }
  return true;
}

TEST(Safetensors, EveryFlippedDataBitNamesTheFileAndTheTensor) {
  const auto valid = encode_safetensors(sample_tensors(), {{"step", "7"}});
  uint64_t header_end = 0;
  const std::vector<Span> spans = data_spans(valid, &header_end);
  ASSERT_EQ(spans.size(), 3u);
  for (const Span& s : spans) {
    for (uint64_t byte = s.begin; byte < s.end; byte++) {
      for (int bit = 0; bit < 8; bit++) {
        std::vector<uint8_t> b = valid;
        b[byte] ^= static_cast<uint8_t>(1u << bit);
        const std::string msg = error_of(b);
        EXPECT_NE(msg.find("bad.safetensors: byte "), std::string::npos) << "byte " << byte << ": " << msg;
        EXPECT_NE(msg.find("tensor '" + s.name + "'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("fails its CRC-32C check"), std::string::npos) << msg;
      }
    }
  }
}

TEST(Safetensors, EveryFlippedHeaderBitIsAnError) {
  // The length prefix, the JSON (names, dtypes, shapes, offsets, metadata, the checksums themselves) and its padding.
  const auto valid = encode_safetensors(sample_tensors(), {{"step", "7"}, {"recipe", "{\"lr\":0.1}"}});
  uint64_t header_end = 0;
  data_spans(valid, &header_end);
  for (uint64_t byte = 0; byte < header_end; byte++) {
    for (int bit = 0; bit < 8; bit++) {
      std::vector<uint8_t> b = valid;
      b[byte] ^= static_cast<uint8_t>(1u << bit);
      const std::string msg = error_of(b);
      EXPECT_NE(msg.find("bad.safetensors: byte "), std::string::npos)
          << "flipping bit " << bit << " of header byte " << byte << " loaded without error";
    }
  }
}

TEST(Safetensors, ACorruptedFileOnDiskIsNamedOnLoad) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("nanotrn_st_crc_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "w.safetensors").string();
  save_safetensors(path, sample_tensors());
  std::vector<uint8_t> b = read_file(path);
  uint64_t header_end = 0;
  const Span last = data_spans(b, &header_end).back();
  b[last.end - 1] ^= 0x10;
  write_file_atomic(path, b);
  try {
    load_safetensors(path);
    ADD_FAILURE() << "a flipped bit loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": byte "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("tensor '" + last.name + "'"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(Safetensors, FilesWithoutChecksumsStillLoad) {
  const auto ts = sample_tensors();
  auto bytes = encode_safetensors(ts, {{"format", "pt"}}, SafetensorsChecksums::none);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()).find("crc32c"), std::string::npos);
  uint64_t header_end = 0;
  const Span first = data_spans(bytes, &header_end).front();
  bytes[first.begin] ^= 1;  // undetectable without checksums: loads, with the changed value
  const SafetensorsFile f = decode_safetensors(bytes.data(), bytes.size(), "foreign");
  EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"format", "pt"}}));
  EXPECT_EQ(f.tensors.size(), ts.size());
}

TEST(Safetensors, ChecksumEntriesAreAllOrNothing) {
  const std::vector<uint8_t> four = {0, 0, 128, 63};  // 1.0f
  const std::string t = R"("a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]})";
  struct Case {
    std::string json;
    const char* expect;
  };
  const std::vector<Case> cases = {
      {R"({"__metadata__":{"crc32c:__metadata__":"00000000"},)" + t + "}", "tensor 'a' (data bytes 0..4) has no"},
      {R"({"__metadata__":{"crc32c:a":"00000000"},)" + t + "}", "__metadata__ has no \"crc32c:__metadata__\""},
      {R"({"__metadata__":{"crc32c:__metadata__":"00000000","crc32c:a":"XYZ"},)" + t + "}", "not 8 lowercase hex"},
  };
  for (const Case& c : cases) {
    const std::string msg = error_of(with_header(c.json, four));
    EXPECT_NE(msg.find(c.expect), std::string::npos) << "expected '" << c.expect << "' in: " << msg;
  }
  // A checksum naming no tensor: rename the tensor of a valid file (same length, so the header stays valid JSON).
  auto bytes = encode_safetensors({{"aa", Tensor::from_vector({1}, {1})}});
  const std::string text(bytes.begin(), bytes.end());
  const size_t key = text.find("\"aa\":{");
  ASSERT_NE(key, std::string::npos);
  bytes[key + 2] = 'b';
  EXPECT_NE(error_of(bytes).find("tensor 'ab' (data bytes 0..4) has no"), std::string::npos) << error_of(bytes);
  EXPECT_THROW(encode_safetensors({}, {{"crc32c:x", "1"}}), Error);  // the prefix is reserved
}

TEST(Safetensors, MutationFuzzNeverCrashesAndNeverReturnsAlteredData) {
  for (SafetensorsChecksums checksums : {SafetensorsChecksums::crc32c, SafetensorsChecksums::none}) {
    const auto valid = encode_safetensors(sample_tensors(), {{"m", "v"}}, checksums);
    const SafetensorsFile original = decode_safetensors(valid.data(), valid.size(), "valid");
    std::mt19937_64 rng(2024);
    int parsed = 0, altered = 0, rejected = 0;
    for (int iter = 0; iter < 4000; iter++) {
      std::vector<uint8_t> b = valid;
      const int kind = static_cast<int>(rng() % 4);
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !b.empty(); e++) {
        const size_t pos = rng() % b.size();
        if (kind == 0) b[pos] = static_cast<uint8_t>(rng());                                       // byte overwrite
        if (kind == 1) b.resize(pos);                                                              // truncation
        if (kind == 2) b.insert(b.begin() + static_cast<long>(pos), static_cast<uint8_t>(rng()));  // insertion
        if (kind == 3) b[pos] = "{}[]\":,0123456789-"[rng() % 18];                                 // JSON-shaped noise
      }
      try {
        const SafetensorsFile got = decode_safetensors(b.data(), b.size(), "fuzz");
        parsed++;
        if (!same_file(got, original)) altered++;
      } catch (const Error&) {
        rejected++;
      }
    }
    EXPECT_GT(rejected, 1000);
    if (checksums == SafetensorsChecksums::crc32c) {
      EXPECT_EQ(altered, 0) << "a mutation passed the checksums";
    } else {
      EXPECT_GT(altered, 0);  // without checksums, mutations of tensor bytes go through
    }
    (void)parsed;
  }
}

TEST(Safetensors, AtomicSaveLeavesThePreviousFileOnError) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("nanotrn_st_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "w.safetensors").string();
  Tensor a = Tensor::from_vector({2}, {1, 2});
  save_safetensors(path, {{"a", a}});
  const auto before = read_file(path);
  EXPECT_THROW(save_safetensors(path, {{"a", a}, {"a", a}}), Error);  // duplicate name: nothing written
  EXPECT_EQ(read_file(path), before);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename(), "w.safetensors") << "leftover " << entry.path();
  }
  EXPECT_EQ(load_safetensors(path).find("a")->to_vector(), (std::vector<float>{1, 2}));
  try {
    save_safetensors((dir / "missing" / "x.safetensors").string(), {{"a", a}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing/x.safetensors"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nanotrn
