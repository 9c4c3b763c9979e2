// The training/validation data loader: B x T batches of token ids from memory-mapped shards.
//
//   Loader train(shards.train_shards, {.rows = 8, .seq_len = 1024, .seed = 42, .rank = r, .world = w,
//                                      .bos = tok.bos_id(), .vocab_size = tok.vocab_size()});
//   train.next(inputs, targets);              // rows*seq_len ids each, row-major; targets = inputs shifted by one
//   nlohmann::json s = train.state();         // in the checkpoint
//   train.restore(s);                         // then next() continues bit-identically
//
// Documents: each shard is cut at its BOS tokens; a document is a BOS and the tokens up to the next BOS (tokens
// before a shard's first BOS form a document too). Shards are validated when opened (shard.h).
// Document order: epoch e visits all documents in a permutation (Fisher-Yates driven by Philox(seed, stream e);
// the identity when shuffle is false). Rank r of world W takes the epoch's documents r, r+W, r+2W, ... (the first
// W*floor(n/W) of them), so ranks never share a document. Epochs follow each other without end.
// Layouts (recipe-spec §4.2):
//   best_fit: rows of seq_len+1 tokens from a buffer of buffer_docs documents: repeatedly put the largest buffered
//     document that fits the row's remaining space; when none fits, crop the shortest to fill the row exactly (the
//     rest of it is dropped). Ties go to the earliest buffered. Every row starts with BOS; nothing is padded.
//   stream: S = min(streams, rows) contiguous token streams (the rank's documents s, s+S, s+2S, ... joined); row i of a
//   batch is
//     the next seq_len+1 tokens of stream i mod S, and that stream then advances by seq_len.
// inputs = row[0:T], targets = row[1:T+1]. Everything is a pure function of (shards, options, position): two
// loaders with the same arguments yield the same batches, and state() captures the position exactly.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/layout.h"
#include "data/shard.h"

namespace nanotrn::data {

struct LoaderOptions {
  int64_t rows = 1;
  int64_t seq_len = 1;
  Layout layout = Layout::best_fit;
  uint64_t seed = 0;
  bool shuffle = true;
  int rank = 0;
  int world = 1;
  int32_t bos = -1;
  int32_t vocab_size = 0;
  int streams = 8;             // stream layout only
  int64_t buffer_docs = 1000;  // best_fit only
};

class Loader {
 public:
  // Opens and validates every shard (magic, size, ids < vocab_size); throws Error naming file and byte offset.
  Loader(std::vector<std::string> shard_paths, LoaderOptions opt);

  void next(int32_t* inputs, int32_t* targets);
  nlohmann::json state() const;
  // Throws when the state was made by a loader with other shards, seed, layout, rank or world.
  void restore(const nlohmann::json& state);
  // The epoch of the next document the loader will take (0 at the start).
  int64_t epoch() const;

  int64_t documents() const { return static_cast<int64_t>(docs_.size()); }
  int64_t documents_per_rank() const { return per_rank_; }
  const LoaderOptions& options() const { return opt_; }

 private:
  struct Doc {
    int32_t shard;
    int64_t start, len;
  };
  const Doc& doc_at(int64_t p);  // the rank's p-th document over all epochs
  void fill_best_fit(int32_t* row);
  void fill_stream(int stream, int32_t* row);
  uint64_t fingerprint() const;

  LoaderOptions opt_;
  std::vector<std::string> paths_;
  std::vector<MappedShard> shards_;
  std::vector<Doc> docs_;
  int64_t per_rank_ = 0;
  std::map<int64_t, std::vector<int64_t>> orders_;  // cached epoch permutations (the oldest is dropped first)
  // best_fit position
  int64_t next_doc_ = 0;
  std::vector<int64_t> buffer_;  // rank positions of the buffered documents
  // stream position: per stream, (rank position of the current document, offset in it)
  std::vector<std::pair<int64_t, int64_t>> cursor_;
  std::vector<int32_t> row_;
};

}  // namespace nanotrn::data
