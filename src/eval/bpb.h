// Bits per byte, exactly as the baseline scores a run (recipe-spec §5.1): the summed negative log-likelihood, in nats,
// of every target token whose UTF-8 byte length is > 0, divided by ln 2 times the summed byte length of those
// targets. Special tokens have byte length 0 and so count in neither sum.
//
//   BpbAccumulator acc;
//   acc.add(nll_nats, targets, token_bytes);   // per batch: nll [N] (f32 nats), targets i32 [N], token_bytes [V]
//   double val_bpb = acc.bpb();
//
// Sums are in double (a 20M-token evaluation reproduces a reference bpb to ~1e-12 relative). Not here: the model
// forward (ops/cross_entropy.h gives the per-token nll), the token-bytes table (the tokenizer's).
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace nanotrn {

class BpbAccumulator {
 public:
  // Targets < 0 (ignored positions) are skipped; a target >= token_bytes.size() is an error naming it.
  void add(const Tensor& nll_nats, const Tensor& targets, const std::vector<int32_t>& token_bytes);
  void add_token(double nll_nats, int64_t bytes);
  // Adds another accumulator's sums (a batch scored elsewhere): nats in double, bytes and tokens exactly.
  void add_partial(double nats, int64_t bytes, int64_t tokens);
  double nats() const { return nats_; }
  int64_t bytes() const { return bytes_; }
  int64_t tokens() const { return tokens_; }
  double bpb() const;  // throws when no byte was counted

 private:
  double nats_ = 0.0;
  int64_t bytes_ = 0;
  int64_t tokens_ = 0;
};

}  // namespace nanotrn
