// Incremental BPE training. See bpe_train.h.
#include "tokenizer/bpe_train.h"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "base/error.h"

namespace nanotrn::tokenizer {

namespace {

uint64_t pair_key(int32_t a, int32_t b) { return (static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b); }

struct HeapEntry {
  int64_t count;
  uint64_t pair;
  // Max-heap order: higher count first, then the smaller pair.
  bool operator<(const HeapEntry& o) const { return count < o.count || (count == o.count && pair > o.pair); }
};

}  // namespace

// A character starts at any byte that is not 10xxxxxx.
std::string_view capped_document(std::string_view s, int64_t cap) {
  if (cap <= 0) return s;
  int64_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<uint8_t>(s[i]) & 0xC0) != 0x80 && chars++ == cap) return s.substr(0, i);
  }
  return s;
}

TrainTextUsage train_text_usage(std::span<const std::string_view> docs, int64_t doc_cap_chars) {
  TrainTextUsage u;
  for (std::string_view d : docs) {
    ++u.docs;
    u.bytes_used += static_cast<int64_t>(capped_document(d, doc_cap_chars).size());
    u.bytes_total += static_cast<int64_t>(d.size());
  }
  return u;
}

std::string TrainTextUsage::describe(int64_t doc_cap_chars) const {
  const double pct = bytes_total > 0 ? 100.0 * static_cast<double>(bytes_used) / static_cast<double>(bytes_total) : 0.0;
  char share[32];
  std::snprintf(share, sizeof share, "%.1f%%", pct);
  return std::to_string(docs) + " documents, " + std::to_string(bytes_used) + " of " + std::to_string(bytes_total) +
         " bytes used (" + share + "; " +
         (doc_cap_chars > 0 ? "each document's first " + std::to_string(doc_cap_chars) + " characters"
                            : std::string("no per-document cap")) +
         ")";
}

std::vector<std::pair<std::string, int64_t>> count_chunks(std::span<const std::string_view> docs,
                                                          const Pretokenizer& split, int64_t doc_cap_chars,
                                                          int threads) {
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  std::vector<std::unordered_map<std::string_view, int64_t>> local(nt);
  const int64_t n = static_cast<int64_t>(docs.size());
#pragma omp parallel num_threads(nt)
  {
    auto& counts = local[omp_get_thread_num()];
    std::vector<std::string_view> chunks;
#pragma omp for schedule(dynamic, 8)
    for (int64_t i = 0; i < n; ++i) {
      chunks.clear();
      split.split(capped_document(docs[i], doc_cap_chars), &chunks);
      for (std::string_view c : chunks) ++counts[c];
    }
  }
  for (int t = 1; t < nt; ++t) {
    for (const auto& [c, k] : local[t]) local[0][c] += k;
  }
  std::vector<std::pair<std::string, int64_t>> out;
  out.reserve(local[0].size());
  for (const auto& [c, k] : local[0]) out.emplace_back(std::string(c), k);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Merge> learn_merges(const std::vector<std::pair<std::string, int64_t>>& chunk_counts, int32_t n_merges) {
  const int32_t n_words = static_cast<int32_t>(chunk_counts.size());
  std::vector<std::vector<int32_t>> words(n_words);
  std::vector<int64_t> weight(n_words);
  std::unordered_map<uint64_t, int64_t> count;
  std::unordered_map<uint64_t, std::vector<int32_t>> where;  // pair -> chunks that held it (maybe stale, repeated)
  for (int32_t w = 0; w < n_words; ++w) {
    const auto& [bytes, k] = chunk_counts[w];
    weight[w] = k;
    for (char c : bytes) words[w].push_back(static_cast<uint8_t>(c));
    for (size_t i = 0; i + 1 < words[w].size(); ++i) {
      const uint64_t p = pair_key(words[w][i], words[w][i + 1]);
      count[p] += k;
      auto& list = where[p];
      if (list.empty() || list.back() != w) list.push_back(w);
    }
  }
  std::priority_queue<HeapEntry> heap;
  for (const auto& [p, k] : count) heap.push({k, p});
  // A merge whose bytes equal an existing token's would make two ids for one string (not representable in a rank
  // file); such pairs are banned and never merged.
  std::vector<std::string> bytes(256);
  for (int i = 0; i < 256; ++i) bytes[i] = std::string(1, static_cast<char>(i));
  std::unordered_set<std::string> have(bytes.begin(), bytes.end());
  std::unordered_set<uint64_t> banned;

  std::vector<Merge> merges;
  std::unordered_map<uint64_t, int64_t> delta;
  std::vector<int32_t> merged;
  while (static_cast<int32_t>(merges.size()) < n_merges) {
    uint64_t best = 0;
    bool found = false;
    while (!heap.empty()) {
      const HeapEntry e = heap.top();
      heap.pop();
      const auto it = count.find(e.pair);
      if (it == count.end() || it->second != e.count || e.count <= 0) continue;
      const std::string joined = bytes[e.pair >> 32] + bytes[e.pair & 0xFFFFFFFFu];
      if (have.count(joined) != 0) {
        banned.insert(e.pair);
        count.erase(it);
        continue;
      }
      have.insert(joined);
      bytes.push_back(joined);
      best = e.pair;
      found = true;
      break;
    }
    if (!found) break;
    const int32_t a = static_cast<int32_t>(best >> 32), b = static_cast<int32_t>(best & 0xFFFFFFFFu);
    const int32_t id = 256 + static_cast<int32_t>(merges.size());
    merges.push_back({a, b});

    std::vector<int32_t> visit = std::move(where[best]);
    where.erase(best);
    std::sort(visit.begin(), visit.end());
    visit.erase(std::unique(visit.begin(), visit.end()), visit.end());
    delta.clear();
    for (int32_t w : visit) {
      std::vector<int32_t>& word = words[w];
      bool has = false;
      for (size_t i = 0; i + 1 < word.size() && !has; ++i) has = word[i] == a && word[i + 1] == b;
      if (!has) continue;
      const int64_t k = weight[w];
      for (size_t i = 0; i + 1 < word.size(); ++i) delta[pair_key(word[i], word[i + 1])] -= k;
      merged.clear();
      for (size_t i = 0; i < word.size(); ++i) {
        if (i + 1 < word.size() && word[i] == a && word[i + 1] == b) {
          merged.push_back(id);
          ++i;
        } else {
          merged.push_back(word[i]);
        }
      }
      word.swap(merged);
      for (size_t i = 0; i + 1 < word.size(); ++i) {
        const uint64_t p = pair_key(word[i], word[i + 1]);
        delta[p] += k;
        if (word[i] == id || word[i + 1] == id) {
          auto& list = where[p];
          if (list.empty() || list.back() != w) list.push_back(w);
        }
      }
    }
    for (const auto& [p, d] : delta) {
      if (d == 0 || banned.count(p) != 0) continue;
      int64_t& c = count[p];
      c += d;
      if (c > 0) {
        heap.push({c, p});
      } else {
        count.erase(p);
      }
    }
  }
  return merges;
}

Bpe train_bpe(std::span<const std::string_view> docs, const BpeTrainOptions& options) {
  std::vector<std::string> specials = options.specials.empty() ? reserved_specials(4) : options.specials;
  const int32_t n_merges = options.vocab_size - 256 - static_cast<int32_t>(specials.size());
  check(n_merges >= 0, "train_bpe: vocab_size " + std::to_string(options.vocab_size) + " is smaller than 256 bytes + " +
                           std::to_string(specials.size()) + " specials");
  const Pretokenizer split;
  const auto chunks = count_chunks(docs, split, options.doc_cap_chars, options.threads);
  const std::vector<Merge> merges = learn_merges(chunks, n_merges);
  check(static_cast<int32_t>(merges.size()) == n_merges,
        "train_bpe: the training text allows only " + std::to_string(merges.size()) + " merges, but vocab_size " +
            std::to_string(options.vocab_size) + " needs " + std::to_string(n_merges) +
            "; use more text or a smaller vocabulary");
  std::vector<std::string> tokens(256);
  for (int b = 0; b < 256; ++b) tokens[b] = std::string(1, static_cast<char>(b));
  for (const auto& [a, b] : merges) tokens.push_back(tokens[a] + tokens[b]);
  return Bpe(std::move(tokens), std::move(specials));
}

}  // namespace nanotrn::tokenizer
