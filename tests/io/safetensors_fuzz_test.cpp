// Inputs found by fuzz/safetensors_fuzz.cpp that once escaped decode_safetensors as raw library exceptions.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/error.h"
#include "io/safetensors.h"

namespace nanotrn {
namespace {

std::vector<uint8_t> with_header(const std::string& json) {
  std::vector<uint8_t> out(8);
  for (int i = 0; i < 8; i++) out[i] = static_cast<uint8_t>(json.size() >> (8 * i));
  out.insert(out.end(), json.begin(), json.end());
  return out;
}

TEST(SafetensorsFuzzRegressions, ANumberTooLargeForADoubleIsAnErrorNamingTheFile) {
  // nlohmann::json reports this as out_of_range, not parse_error.
  const std::vector<uint8_t> bytes =
      with_header(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 3E6666664]}})");
  try {
    decode_safetensors(bytes.data(), bytes.size(), "big.safetensors");
    FAIL() << "decoded a header with an overflowing number";
  } catch (const Error& e) {
    EXPECT_EQ(e.message().rfind("big.safetensors: byte 8: header is not valid JSON", 0), 0u) << e.message();
  }
}

}  // namespace
}  // namespace nanotrn
