// Unigram baseline. See unigram.h.
#include "eval/unigram.h"

#include <cmath>
#include <string>

#include "base/error.h"

namespace nanotrn {

UnigramModel::UnigramModel(int64_t vocab_size) : counts_(static_cast<size_t>(vocab_size), 0) {
  check(vocab_size >= 1, "UnigramModel: vocab_size must be >= 1");
}

void UnigramModel::count(std::span<const int32_t> ids) {
  for (size_t i = 0; i < ids.size(); i++) {
    check(ids[i] >= 0 && static_cast<size_t>(ids[i]) < counts_.size(),
          "UnigramModel: id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
              " is outside the vocabulary of " + std::to_string(counts_.size()));
    counts_[static_cast<size_t>(ids[i])]++;
  }
  total_ += static_cast<int64_t>(ids.size());
}

double UnigramModel::bpb(std::span<const int32_t> targets, const std::vector<int32_t>& token_bytes) const {
  check(token_bytes.size() == counts_.size(), "UnigramModel: the token-bytes table must have one entry per token");
  const double denom = static_cast<double>(total_ + static_cast<int64_t>(counts_.size()));
  double bits = 0.0;
  int64_t bytes = 0;
  for (int32_t y : targets) {
    check(y >= 0 && static_cast<size_t>(y) < counts_.size(),
          "UnigramModel: target " + std::to_string(y) + " is outside the vocabulary");
    const int32_t b = token_bytes[static_cast<size_t>(y)];
    if (b <= 0) continue;
    bits -= std::log2(static_cast<double>(counts_[static_cast<size_t>(y)] + 1) / denom);
    bytes += b;
  }
  check(bytes > 0, "UnigramModel: no target carries bytes");
  return bits / static_cast<double>(bytes);
}

}  // namespace nanotrn
