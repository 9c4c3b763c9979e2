// Training a byte-level BPE vocabulary (recipe-spec §4.1).
//
//   Bpe bpe = train_bpe(docs, {.vocab_size = 8192});   // 256 bytes + 7932 merges + 4 specials; BOS = 8188
//   bpe.save("out/tokenizer");
//
// Algorithm: each document (capped at doc_cap_chars characters) is pre-split (pretokenize.h) and the distinct chunks
// are counted. Starting from bytes, each step merges the most frequent adjacent pair over all chunks (weighted by
// chunk count; every adjacent position counts, overlaps included). Ties go to the smallest pair (left id, then
// right id), so training is deterministic. A pair whose bytes already form a token is never merged (a rank file
// cannot hold one string twice). Within a chunk a merge applies left to right without overlap.
// Incremental: pair counts live in a map with a lazily-invalidated max-heap; a merge visits only the chunks that
// contain the pair (an index from pair to chunks) and updates the counts by the difference of those chunks' pairs.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/bpe.h"

namespace nanotrn::tokenizer {

struct BpeTrainOptions {
  int32_t vocab_size = 8192;               // total, specials included
  std::vector<std::string> specials = {};  // empty: 4 reserved specials <|reserved_0..3|>
  int64_t doc_cap_chars = 10000;           // each document's first characters only (0: no cap)
  int threads = 0;                         // chunk counting; <= 0: OpenMP default
};

// Throws when the text has too few distinct pairs to reach vocab_size.
Bpe train_bpe(std::span<const std::string_view> docs, const BpeTrainOptions& options = {});

// The part of one document train_bpe reads: its first cap_chars UTF-8 characters (all of it when cap_chars <= 0).
std::string_view capped_document(std::string_view doc, int64_t cap_chars);

// How much of the text train_bpe reads under a cap, for the logs: documents, bytes of their capped parts, all bytes.
struct TrainTextUsage {
  int64_t docs = 0, bytes_used = 0, bytes_total = 0;
  // "120 documents, 2300000 of 2300000 bytes used (100.0%; each document's first 10000 characters)"
  std::string describe(int64_t doc_cap_chars) const;
};
TrainTextUsage train_text_usage(std::span<const std::string_view> docs, int64_t doc_cap_chars);

// The merge step alone, exposed for tests: chunks (as byte strings) with their counts -> up to n_merges merges, the
// m-th producing id 256 + m. Stops early when no pair remains.
using Merge = std::pair<int32_t, int32_t>;
std::vector<Merge> learn_merges(const std::vector<std::pair<std::string, int64_t>>& chunk_counts, int32_t n_merges);

// The distinct chunks of the capped documents and their counts, sorted by bytes.
std::vector<std::pair<std::string, int64_t>> count_chunks(std::span<const std::string_view> docs,
                                                          const Pretokenizer& split, int64_t doc_cap_chars,
                                                          int threads = 0);

}  // namespace nanotrn::tokenizer
