// The k largest of n values, largest first, ties to the lower index: the one rule behind top-k sampling
// (model/sample.h) and a mixture of experts' top-k routing (model/gpt.h).
//
//   std::vector<int32_t> ids = top_k_indices(logits, vocab, 40);   // ids[0] is the argmax
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace nanotrn::model {

inline std::vector<int32_t> top_k_indices(const float* values, int64_t n, int64_t k) {
  std::vector<int32_t> ids(static_cast<size_t>(n));
  std::iota(ids.begin(), ids.end(), 0);
  k = std::clamp<int64_t>(k, 0, n);
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [values](int32_t a, int32_t b) {
    return values[a] > values[b] || (values[a] == values[b] && a < b);
  });
  ids.resize(static_cast<size_t>(k));
  return ids;
}

}  // namespace nanotrn::model
