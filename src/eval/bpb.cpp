// val_bpb accumulation. See bpb.h.
#include "eval/bpb.h"

#include <cmath>
#include <string>

#include "base/error.h"

namespace nanotrn {

void BpbAccumulator::add(const Tensor& nll_nats, const Tensor& targets, const std::vector<int32_t>& token_bytes) {
  check(nll_nats.dtype() == DType::f32 && targets.dtype() == DType::i32 && nll_nats.numel() == targets.numel(),
        "BpbAccumulator::add: need f32 nll and i32 targets of the same size, got " + shape_str(nll_nats.shape()) +
            " and " + shape_str(targets.shape()));
  const Tensor n = nll_nats.contiguous(), t = targets.contiguous();
  const float* pn = n.data<float>();
  const int32_t* pt = t.data<int32_t>();
  for (int64_t i = 0; i < t.numel(); i++) {
    if (pt[i] < 0) continue;
    check(static_cast<size_t>(pt[i]) < token_bytes.size(),
          "BpbAccumulator::add: target " + std::to_string(pt[i]) + " at position " + std::to_string(i) +
              " is outside the token-bytes table of " + std::to_string(token_bytes.size()) + " entries");
    add_token(pn[i], token_bytes[static_cast<size_t>(pt[i])]);
  }
}

void BpbAccumulator::add_token(double nll_nats, int64_t bytes) {
  check(bytes >= 0, "BpbAccumulator: negative byte length");
  if (bytes == 0) return;  // special tokens: excluded from both sums
  nats_ += nll_nats;
  bytes_ += bytes;
  tokens_++;
}

void BpbAccumulator::add_partial(double nats, int64_t bytes, int64_t tokens) {
  check(bytes >= 0 && tokens >= 0, "BpbAccumulator::add_partial: negative byte or token count");
  nats_ += nats;
  bytes_ += bytes;
  tokens_ += tokens;
}

double BpbAccumulator::bpb() const {
  check(bytes_ > 0, "BpbAccumulator::bpb: no target bytes were counted");
  return nats_ / (std::log(2.0) * static_cast<double>(bytes_));
}

}  // namespace nanotrn
