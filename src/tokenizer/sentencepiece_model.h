// A SentencePiece .model file behind the tokenizer interface, through libsentencepiece, so that existing challenge
// kits' tokenizers load unchanged.
//
//   SentencePieceModel sp("kit/tokenizer.model");
//   std::vector<int32_t> ids = sp.encode("Hello");   // SentencePiece's own normalisation and segmentation
//
// token_bytes: the bytes a piece contributes to decoded text: its UTF-8 length with each "▁" counted as the one
// space it decodes to (decode([id]) alone drops a leading one), 1 for a byte piece, 0 for control/unknown/unused
// pieces. Over encode(text) they sum to the length of the text SentencePiece segments: with add_dummy_prefix (its
// default) that is one space more than the text.
// Not lossless for arbitrary bytes (SentencePiece normalises text); BPE tokenizers are (bpe.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nanotrn::tokenizer {

class SentencePieceModel {
 public:
  // Throws Error naming the file when it cannot be read or parsed, or has no BOS piece.
  explicit SentencePieceModel(const std::string& path);
  ~SentencePieceModel();
  SentencePieceModel(SentencePieceModel&&) noexcept;
  SentencePieceModel& operator=(SentencePieceModel&&) noexcept;

  std::vector<int32_t> encode(std::string_view text) const;
  std::string decode(std::span<const int32_t> ids) const;
  int32_t vocab_size() const;
  int32_t bos_id() const;
  std::vector<int32_t> token_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nanotrn::tokenizer
