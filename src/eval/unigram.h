// The unigram baseline in bits per byte: what a model that ignores context entirely would score, the bar any trained
// model must clear clearly (nanotrn speedrun reports both).
//
//   UnigramModel u(vocab);  u.count(train_ids);       // token frequencies of the training split
//   double bpb = u.bpb(val_ids, token_bytes);         // same rule as val_bpb: specials (0 bytes) excluded
//
// Probabilities are add-one smoothed counts, p(v) = (c_v + 1) / (N + V), so an unseen token costs a finite amount.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace nanotrn {

class UnigramModel {
 public:
  explicit UnigramModel(int64_t vocab_size);
  void count(std::span<const int32_t> ids);  // throws on an id outside [0, V)
  // sum of -log2 p(y) over targets with token_bytes[y] > 0, divided by the sum of their bytes.
  double bpb(std::span<const int32_t> targets, const std::vector<int32_t>& token_bytes) const;

 private:
  std::vector<int64_t> counts_;
  int64_t total_ = 0;
};

}  // namespace nanotrn
