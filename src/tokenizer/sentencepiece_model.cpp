// libsentencepiece wrapper. See sentencepiece_model.h.
#include "tokenizer/sentencepiece_model.h"

#include <sentencepiece_processor.h>

#include <exception>
#include <filesystem>

#include "base/error.h"

namespace nanotrn::tokenizer {

struct SentencePieceModel::Impl {
  sentencepiece::SentencePieceProcessor sp;
  std::string path;
};

SentencePieceModel::SentencePieceModel(const std::string& path) : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  check(std::filesystem::is_regular_file(path), "sentencepiece: no model file at " + path);
  // libsentencepiece reports most defects as a status, but throws for some (a piece starting with a NUL byte makes its
  // trie builder throw): both become an Error naming the file.
  sentencepiece::util::Status status;
  try {
    status = impl_->sp.Load(path);
  } catch (const std::exception& e) {
    throw Error(path + ": not a valid SentencePiece model: " + e.what());
  }
  check(status.ok(), path + ": not a valid SentencePiece model: " + status.ToString());
  check(impl_->sp.bos_id() >= 0, path + ": the SentencePiece model has no BOS piece (bos_id = -1)");
}

SentencePieceModel::~SentencePieceModel() = default;
SentencePieceModel::SentencePieceModel(SentencePieceModel&&) noexcept = default;
SentencePieceModel& SentencePieceModel::operator=(SentencePieceModel&&) noexcept = default;

std::vector<int32_t> SentencePieceModel::encode(std::string_view text) const {
  std::vector<int> ids;
  const auto status = impl_->sp.Encode(std::string(text), &ids);
  check(status.ok(), impl_->path + ": encode failed: " + status.ToString());
  return {ids.begin(), ids.end()};
}

std::string SentencePieceModel::decode(std::span<const int32_t> ids) const {
  const int32_t v = vocab_size();
  std::vector<int> in;
  in.reserve(ids.size());
  for (int32_t id : ids) {
    check(id >= 0 && id < v, "sentencepiece: token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                                 std::to_string(v) + ")");
    in.push_back(id);
  }
  std::string out;
  const auto status = impl_->sp.Decode(in, &out);
  check(status.ok(), impl_->path + ": decode failed: " + status.ToString());
  return out;
}

int32_t SentencePieceModel::vocab_size() const { return impl_->sp.GetPieceSize(); }
int32_t SentencePieceModel::bos_id() const { return impl_->sp.bos_id(); }

std::vector<int32_t> SentencePieceModel::token_bytes() const {
  // Not decode({id}).size(): decoding a piece alone drops its leading "▁" (the start of a text has no space),
  // so every word-initial piece would count one byte short.
  static constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581, SentencePiece's space: 3 bytes for 1
  std::vector<int32_t> out(vocab_size(), 0);
  for (int32_t id = 0; id < vocab_size(); ++id) {
    if (impl_->sp.IsControl(id) || impl_->sp.IsUnknown(id) || impl_->sp.IsUnused(id)) continue;
    if (impl_->sp.IsByte(id)) {
      out[id] = 1;  // <0xAB>: one raw byte
      continue;
    }
    const std::string piece = impl_->sp.IdToPiece(id);
    int32_t n = 0;
    for (size_t i = 0; i < piece.size(); ++n) i += piece.compare(i, kSpace.size(), kSpace) == 0 ? kSpace.size() : 1;
    out[id] = n;
  }
  return out;
}

}  // namespace nanotrn::tokenizer
