// Turning a prepared corpus (corpus.h) into token shards (shard.h) for the loader.
//
//   Tokenizer tok = Tokenizer::load("out/tokenizer");
//   ShardSet s = tokenize_corpus("out/data/corpus", tok, "out/data/tokens");
//   // s.train_shards = {".../train_000000.bin", ...}, s.val_shards = {".../val_000000.bin"}
//
// Each document becomes BOS followed by its tokens (as nanochat and the kit's loader expect: rows start at BOS).
// Documents are never split across shards; a shard holds at most shard_tokens tokens unless one document alone is
// longer. shards.json (format "nanotrn-shards", version 1) records the shards, the token and byte counts, the
// vocabulary size, BOS and fingerprints of the tokenizer and of the corpus; it is written last, and an out_dir whose
// shards.json matches the same tokenizer and corpus is reused as is. Otherwise the old train_*.bin / val_*.bin files
// in out_dir are deleted before the new ones are written.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "data/document.h"
#include "tokenizer/tokenizer.h"

namespace nanotrn::data {

struct TokenizeOptions {
  int64_t shard_tokens = 100'000'000;
  int threads = 0;  // <= 0: OpenMP default
  bool force = false;
};

struct ShardSet {
  std::string dir;
  std::vector<std::string> train_shards, val_shards;  // full paths
  int64_t train_tokens = 0, val_tokens = 0;           // BOS included
  int64_t train_bytes = 0, val_bytes = 0;             // UTF-8 bytes of the text
  int32_t vocab_size = 0, bos = 0;
  std::string tokenizer_fingerprint;  // hex, as shards.json records it
  std::string corpus_fingerprint;     // hex of the corpus's corpus.json, as shards.json records it ("" when absent)
  bool reused = false;
};

ShardSet tokenize_corpus(const std::string& corpus_dir, const tokenizer::Tokenizer& tok, const std::string& out_dir,
                         const TokenizeOptions& options = {});
// shards.json of a tokenized folder; throws when missing or malformed.
ShardSet read_shard_set(const std::string& dir);

// Writes docs as BOS-prefixed token streams into shards named <prefix>_000000.bin, ... in out_dir; returns paths.
std::vector<std::string> write_document_shards(std::span<const Document> docs, const tokenizer::Tokenizer& tok,
                                               const std::string& out_dir, const std::string& prefix,
                                               const TokenizeOptions& options, int64_t* tokens_out);

// A hash of a prepared corpus's corpus.json (which lists its sources, documents and split): what shards.json records
// as "corpus", so that a run can tell shards of one corpus from another's.
std::string corpus_fingerprint(const std::string& corpus_dir);
// A hash of every id's decoded bytes, the vocabulary size and BOS: equal tokenizers give equal fingerprints.
uint64_t tokenizer_fingerprint(const tokenizer::Tokenizer& tok);
std::string tokenizer_fingerprint_hex(const tokenizer::Tokenizer& tok);  // as shards.json records it
// Whether the shard set was written by this tokenizer (its recorded fingerprint and vocabulary size are tok's).
// Readers check with data/shard_tokenizer_check.h, which says what differs.
bool tokenized_with(const ShardSet& shards, const tokenizer::Tokenizer& tok);

}  // namespace nanotrn::data
