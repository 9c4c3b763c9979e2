// A byte-level BPE vocabulary and its encoder/decoder, with tiktoken semantics.
//
//   Bpe bpe = train_bpe(docs, {.vocab_size = 8192});         // bpe_train.h; or Bpe::load("out/tok")
//   std::vector<int32_t> ids = bpe.encode("Hello world");     // no BOS is added
//   std::string text = bpe.decode(ids);                       // == "Hello world" for ANY byte string
//
// Vocabulary layout: ids [0, n_ranks()) are mergeable tokens whose id is their tiktoken rank; the special tokens
// follow at n_ranks() .. vocab_size()-1 and BOS is the first special (V = 8192 with 4 specials: BOS = 8188).
// Every single byte must be a token, so every byte string encodes (byte fallback by construction).
//
// Encoding: the text is pre-split (pretokenize.h); each chunk that is itself a token becomes that token; otherwise
// its bytes are merged pairwise, always merging the adjacent pair whose concatenation has the lowest rank (leftmost
// first on ties) until no adjacent pair concatenates to a token. That is tiktoken's algorithm, so a tiktoken rank
// file gives the ids tiktoken gives. Frequent chunks are cached per call (per thread in encode_batch).
// Not here: parsing special-token strings inside text (encode never emits a special id), training (bpe_train.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/pretokenize.h"

namespace nanotrn::tokenizer {

// How token_bytes() measures a token (recipe-spec §4.1).
enum class TokenBytes {
  utf8_reencoded,  // len(decode([id]).encode("utf-8")): invalid UTF-8 becomes U+FFFD (3 bytes) per maximal subpart
  raw,             // the token's raw byte length
};

// The default special tokens: <|reserved_0|> .. <|reserved_{n-1}|>.
std::vector<std::string> reserved_specials(int n);

class Bpe {
 public:
  // tokens[i] = the bytes of rank i. Throws when a byte has no token, or a token is empty or repeated.
  Bpe(std::vector<std::string> tokens, std::vector<std::string> specials,
      std::string pattern = std::string(kSplitPattern));
  ~Bpe();
  Bpe(Bpe&&) noexcept;
  Bpe& operator=(Bpe&&) noexcept;

  std::vector<int32_t> encode(std::string_view text) const;
  // One result per document, OpenMP-parallel over documents (threads <= 0: the OpenMP default).
  std::vector<std::vector<int32_t>> encode_batch(std::span<const std::string_view> docs, int threads = 0) const;
  // Concatenated token bytes; a special decodes to its text. Throws on an id outside [0, vocab_size()).
  std::string decode(std::span<const int32_t> ids) const;

  int32_t vocab_size() const { return n_ranks() + static_cast<int32_t>(specials_.size()); }
  int32_t n_ranks() const { return static_cast<int32_t>(tokens_.size()); }
  int32_t bos_id() const;  // the first special; throws when there is none
  const std::string& token(int32_t id) const;
  const std::vector<std::string>& tokens() const { return tokens_; }
  const std::vector<std::string>& specials() const { return specials_; }
  const std::string& pattern() const { return pattern_; }
  // One entry per id: the token's byte length (measured as `how` says); 0 for specials.
  std::vector<int32_t> token_bytes(TokenBytes how = TokenBytes::utf8_reencoded) const;

  // Files: DIR/tokenizer.tiktoken (base64 token, space, rank; one per line) and DIR/tokenizer.json (format, version,
  // pattern, specials). load() takes that directory or a bare .tiktoken file (then 4 reserved specials follow the
  // ranks, as in the challenge kit). Errors name the file and line.
  void save(const std::string& dir) const;
  static Bpe load(const std::string& dir_or_file);

  struct Impl;  // the merge tables (pair -> merged id, bytes -> id)

 private:
  std::vector<std::string> tokens_;
  std::vector<std::string> specials_;
  std::string pattern_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nanotrn::tokenizer
