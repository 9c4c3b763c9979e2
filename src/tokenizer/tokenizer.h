// The tokenizer the trainer uses: a byte-level BPE (tiktoken ranks, bpe.h) or a SentencePiece model
// (sentencepiece_model.h) behind one interface. Cheap to copy (shares the immutable model); thread-safe.
//
//   Tokenizer tok = Tokenizer::load("out/tokenizer");   // a BPE dir, a .tiktoken file, a .model file, a Hugging
//                                                       // Face tokenizer.json (hf_tokenizer_json.h), or a dir
//                                                       // holding tokenizer.model or an HF tokenizer.json
//   std::vector<int32_t> ids = tok.encode(text);        // no BOS added
//   std::vector<int32_t> tb = tok.token_bytes();        // for val_bpb: bytes per id, 0 for specials
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/bpe.h"
#include "tokenizer/sentencepiece_model.h"

namespace nanotrn::tokenizer {

class Tokenizer {
 public:
  // Throws Error naming the file (and line, for rank files) on anything missing or malformed.
  static Tokenizer load(const std::string& dir_or_file);
  explicit Tokenizer(Bpe bpe);
  explicit Tokenizer(SentencePieceModel sp);

  std::vector<int32_t> encode(std::string_view text) const;
  // One result per document, OpenMP-parallel over documents (threads <= 0: the OpenMP default).
  std::vector<std::vector<int32_t>> encode_batch(std::span<const std::string_view> docs, int threads = 0) const;
  std::string decode(std::span<const int32_t> ids) const;
  int32_t vocab_size() const;
  int32_t bos_id() const;
  // Per id: UTF-8 length of decode([id]) re-encoded (recipe-spec §4.1, the kit's variant); 0 for specials.
  std::vector<int32_t> token_bytes() const;

  // The BPE model, or null for SentencePiece.
  const Bpe* bpe() const { return bpe_.get(); }
  // Writes a BPE tokenizer to DIR (tokenizer.tiktoken + tokenizer.json); throws for SentencePiece.
  void save(const std::string& dir) const;

 private:
  std::shared_ptr<const Bpe> bpe_;
  std::shared_ptr<const SentencePieceModel> sp_;
};

}  // namespace nanotrn::tokenizer
