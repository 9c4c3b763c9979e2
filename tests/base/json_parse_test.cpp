// The nesting bound on every JSON a user hands nanotrn (base/json_parse.h): the deepest honest nesting parses as
// nlohmann parses it; one level more is a parse_error at the byte that opens it; brackets inside strings do not
// count; a checkpoint header nested 10^5 deep (a crash in the error message before) is a clear error.
#include "base/json_parse.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "base/error.h"
#include "io/safetensors.h"

namespace nanotrn {
namespace {

std::string nested(int depth, char open = '[', char close = ']') {
  return std::string(static_cast<size_t>(depth), open) + std::string(static_cast<size_t>(depth), close);
}

TEST(JsonParse, TheBoundItselfParsesAndOneMoreIsRefusedAtItsByte) {
  EXPECT_EQ(parse_json(nested(kMaxJsonDepth)), nlohmann::json::parse(nested(kMaxJsonDepth)));
  EXPECT_EQ(json_too_deep_at(nested(kMaxJsonDepth)), std::string_view::npos);
  const std::string deep = "  " + nested(kMaxJsonDepth + 1);
  EXPECT_EQ(json_too_deep_at(deep), 2u + static_cast<size_t>(kMaxJsonDepth));
  try {
    parse_json(deep);
    ADD_FAILURE() << "no error";
  } catch (const nlohmann::json::parse_error& e) {
    EXPECT_EQ(e.byte, 3u + static_cast<size_t>(kMaxJsonDepth));  // 1-based, as nlohmann counts
    EXPECT_NE(std::string(e.what()).find("nested deeper than 256 levels"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(parse_json_or_discarded(deep).is_discarded());
  EXPECT_THROW(check_json_depth(deep), nlohmann::json::parse_error);
}

TEST(JsonParse, ObjectsCountAndStringsDoNot) {
  std::string objects;
  for (int i = 0; i < kMaxJsonDepth + 1; ++i) objects += "{\"a\":";
  objects += "1" + std::string(static_cast<size_t>(kMaxJsonDepth + 1), '}');
  EXPECT_NE(json_too_deep_at(objects), std::string_view::npos);
  // Brackets in strings, with escaped quotes and backslashes around them, are text.
  const std::string text = R"({"k": "[[[[\"[[[\\", "v": [1, "]]]]"]})";
  EXPECT_EQ(json_too_deep_at(text, 2), std::string_view::npos);
  EXPECT_EQ(parse_json(text).at("v").at(1), "]]]]");
  EXPECT_EQ(json_too_deep_at(R"([["\"", [1]]])", 2), 8u);
  // Unbalanced closers do not go negative and hide a later deep opening.
  EXPECT_EQ(json_too_deep_at("]]]]" + nested(3), 2), 6u);
}

// The probe's case: a safetensors header whose dtype is an array 100,000 deep overflowed the stack in dump().
TEST(JsonParse, ADeeplyNestedSafetensorsHeaderIsAClearError) {
  const std::string header = "{\"w\":{\"dtype\":" + nested(100000) + ",\"shape\":[1],\"data_offsets\":[0,4]}}";
  std::string file(8, '\0');
  const uint64_t n = header.size();
  std::memcpy(file.data(), &n, 8);
  file += header + std::string(4, '\0');
  try {
    decode_safetensors(reinterpret_cast<const uint8_t*>(file.data()), file.size(), "dd.safetensors");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("dd.safetensors: byte 277: header is not valid JSON"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("nested deeper than 256 levels"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nanotrn
