// Token ids for tests that run a model: B x T ids in [0, V), drawn from the counter-based RNG (base/rng.h), so a
// (seed, stream) pair gives the same ids on every run and thread count.
//
//   const Tensor ids = testing_support::random_ids(2, 16, V, /*seed=*/9, /*stream=*/1);
#pragma once

#include <cstdint>
#include <vector>

#include "base/rng.h"
#include "tensor/tensor.h"

namespace nanotrn::testing_support {

inline Tensor random_ids(int64_t B, int64_t T, int64_t V, uint64_t seed, uint64_t stream) {
  std::vector<int32_t> ids(static_cast<size_t>(B * T));
  for (size_t i = 0; i < ids.size(); i++)
    ids[i] = static_cast<int32_t>(random_u32(seed, stream, i) % static_cast<uint64_t>(V));
  return Tensor::from_ints({B, T}, ids);
}

}  // namespace nanotrn::testing_support
