// Independent, deliberately naive references for the BPE tests: a full-recount trainer and tiktoken's encoding loop
// written over byte strings (no ids, no pair tables, no heaps). Slow and obvious by design.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace nanotrn::tokenizer::testing {

// Recounts every adjacent pair over all chunks for every merge; highest count wins, ties to the smallest (a, b);
// a pair whose bytes already are a token is skipped.
inline std::vector<std::pair<int32_t, int32_t>> naive_merges(const std::vector<std::pair<std::string, int64_t>>& chunks,
                                                             int32_t n_merges) {
  std::vector<std::vector<int32_t>> words;
  for (const auto& [s, k] : chunks) {
    std::vector<int32_t> w;
    for (char c : s) w.push_back(static_cast<uint8_t>(c));
    words.push_back(w);
  }
  std::vector<std::string> bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(std::string(1, static_cast<char>(i)));
  std::set<std::string> have(bytes.begin(), bytes.end());
  std::vector<std::pair<int32_t, int32_t>> merges;
  while (static_cast<int32_t>(merges.size()) < n_merges) {
    std::map<std::pair<int32_t, int32_t>, int64_t> count;
    for (size_t w = 0; w < words.size(); ++w) {
      for (size_t i = 0; i + 1 < words[w].size(); ++i) count[{words[w][i], words[w][i + 1]}] += chunks[w].second;
    }
    std::pair<int32_t, int32_t> best{-1, -1};
    int64_t best_count = 0;
    for (const auto& [p, k] : count) {  // map order: ascending pairs, so '>' keeps the smallest on ties
      if (k > best_count && have.count(bytes[p.first] + bytes[p.second]) == 0) {
        best = p;
        best_count = k;
      }
    }
    if (best_count == 0) break;
    const int32_t id = 256 + static_cast<int32_t>(merges.size());
    merges.push_back(best);
    bytes.push_back(bytes[best.first] + bytes[best.second]);
    have.insert(bytes.back());
    for (auto& w : words) {
      std::vector<int32_t> out;
      for (size_t i = 0; i < w.size(); ++i) {
        if (i + 1 < w.size() && w[i] == best.first && w[i + 1] == best.second) {
          out.push_back(id);
          ++i;
        } else {
          out.push_back(w[i]);
        }
      }
      w = out;
    }
  }
  return merges;
}

// tiktoken's byte-pair encoding of one chunk: a whole-token chunk is that token; else split into bytes and merge the
// adjacent pair whose concatenation has the lowest rank (leftmost on ties) until none is a token.
inline std::vector<int32_t> naive_encode_chunk(const std::map<std::string, int32_t>& rank, const std::string& chunk) {
  if (auto it = rank.find(chunk); it != rank.end()) return {it->second};
  std::vector<std::string> parts;
  for (char c : chunk) parts.push_back(std::string(1, c));
  while (parts.size() > 1) {
    int32_t best = INT32_MAX;
    size_t at = 0;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      auto it = rank.find(parts[i] + parts[i + 1]);
      if (it != rank.end() && it->second < best) {
        best = it->second;
        at = i;
      }
    }
    if (best == INT32_MAX) break;
    parts[at] += parts[at + 1];
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  }
  std::vector<int32_t> out;
  for (const auto& p : parts) out.push_back(rank.at(p));
  return out;
}

}  // namespace nanotrn::tokenizer::testing
