// SentencePieceModel on malformed .model files: every defect is an Error naming the file, including those that
// libsentencepiece throws for instead of returning a status (found by fuzz/sentencepiece_fuzz.cpp).
#include "tokenizer/sentencepiece_model.h"

#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "base/file.h"
#include "data/temp_dir.h"

namespace nanotrn::tokenizer {
namespace {

// One ModelProto.pieces entry in protobuf wire format: field 1 (piece, string), field 3 (type, varint); names
// shorter than 128 bytes.
std::string piece(const std::string& name, int type) {
  std::string body = std::string("\x0a") + static_cast<char>(name.size()) + name + "\x18" + static_cast<char>(type);
  return std::string("\x0a") + static_cast<char>(body.size()) + body;
}

TEST(SentencePieceModelFile, APieceStartingWithNulIsAnErrorNamingTheFile) {
  constexpr int kNormal = 1, kUnknown = 2, kControl = 3;
  data::testing::TempDir dir;
  const std::string path = dir / "empty_piece.model";
  // A unigram model (the default type) whose last piece is one NUL byte: libsentencepiece's own checks pass it
  // (it is not empty), then its trie builder, which reads keys as C strings, throws for a zero-length key.
  const std::string model = piece("<unk>", kUnknown) + piece("<s>", kControl) + piece("</s>", kControl) +
                            piece("a", kNormal) + piece(std::string(1, '\0'), kNormal);
  write_file_atomic(path, model.data(), model.size());
  try {
    SentencePieceModel sp(path);
    FAIL() << "loaded a model with a NUL piece";
  } catch (const Error& e) {
    EXPECT_EQ(e.message().rfind(path + ": not a valid SentencePiece model", 0), 0u) << e.message();
  }
}

}  // namespace
}  // namespace nanotrn::tokenizer
