// Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as
// 1, 2, 3", SC'11). Every random word is a pure function of (seed, stream, index), so any element of any stream can
// be generated on its own, in any order, on any number of threads, and always comes out the same.
//
//   float w = random_normal(seed, /*stream=*/layer_id, /*index=*/i);    // element i of a weight init
//   fill_uniform(buf, n, -0.1f, 0.1f, seed, stream);                     // == the per-index functions, in parallel
//
// Not here: stateful engines, std::uniform_*_distribution adaptors, cryptographic use (Philox is not a CSPRNG).
//
// Mapping from (seed, stream, index) to Philox inputs (this is a stable contract: checkpoints and tests rely on it):
//   key     = { lo32(seed), hi32(seed) }
//   block   = index / 4,  lane = index % 4
//   counter = { lo32(block), hi32(block), lo32(stream), hi32(stream) }
//   random_u32(seed, stream, index) = philox4x32_10(counter, key)[lane]
// So the 32-bit words of one stream are the Philox blocks 0, 1, 2, ... laid end to end, four words per block, and
// different streams (or seeds) use disjoint counters (or keys).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace nanotrn {

// One Philox4x32-10 block: 4 x 32-bit outputs for a 128-bit counter and a 64-bit key (ten rounds, the multipliers
// 0xD2511F53 / 0xCD9E8D57 and the Weyl key increments 0x9E3779B9 / 0xBB67AE85 of the paper). Word 0 is the least
// significant word of the counter, as in Random123's known-answer vectors.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// The random 32-bit word number `index` of stream `stream` under `seed` (mapping above).
uint32_t random_u32(uint64_t seed, uint64_t stream, uint64_t index);

// Uniform in [0, 1): the top 24 bits of random_u32(seed, stream, index) times 2^-24, so every value is a multiple of
// 2^-24 and exactly representable in float; 0 is possible, 1 is not.
float random_uniform(uint64_t seed, uint64_t stream, uint64_t index);

// Standard normal N(0, 1) by Box-Muller on the word pair of the same stream that contains `index`:
//   w0 = random_u32(seed, stream, index & ~1),  w1 = random_u32(seed, stream, index | 1)
//   u1 = (w0 + 1) * 2^-32 in (0, 1],  u2 = w1 * 2^-32 in [0, 1),  rho = sqrt(-2 ln u1)
//   index even: rho * cos(2 pi u2);  index odd: rho * sin(2 pi u2)       (computed in double, rounded to float)
// Consecutive even/odd indices are the two independent outputs of one Box-Muller pair, so a stream of normals uses
// exactly as many words as a stream of uniforms. |result| <= sqrt(64 ln 2) ~ 6.66.
float random_normal(uint64_t seed, uint64_t stream, uint64_t index);

// out[i] = fma(hi - lo, random_uniform(seed, stream, i), lo) for i in [0, n): one rounding, spelled out so that the
// value is the same whatever the compiler contracts. Values lie in [lo, hi]; hi itself can occur only through that
// final rounding. OpenMP-parallel for large n; the result does not depend on the number of threads.
void fill_uniform(float* out, size_t n, float lo, float hi, uint64_t seed, uint64_t stream);

// out[i] = fma(std, random_normal(seed, stream, i), mean) for i in [0, n). OpenMP-parallel for large n; the result
// does not depend on the number of threads.
void fill_normal(float* out, size_t n, float mean, float std, uint64_t seed, uint64_t stream);

// Calls f(i, random_u32(seed, stream, index0 + i)) once for every i in [0, n), computing each Philox block once
// rather than once per word. Parallel (OpenMP, static schedule) when n >= kRandomParallelMin, so f must be safe to
// call concurrently for distinct i; the (i, word) pairs it receives never depend on the thread count.
inline constexpr size_t kRandomParallelMin = size_t{1} << 14;

template <class F>
void for_each_random_u32(uint64_t seed, uint64_t stream, uint64_t index0, size_t n, F&& f) {
  if (n == 0) return;
  const std::array<uint32_t, 2> key = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  const uint64_t first_block = index0 / 4;
  const uint64_t last_block = (index0 + (n - 1)) / 4;  // inclusive; requires index0 + n <= 2^64
  const int64_t blocks = static_cast<int64_t>(last_block - first_block + 1);
#pragma omp parallel for schedule(static) if (n >= kRandomParallelMin)
  for (int64_t b = 0; b < blocks; ++b) {
    const uint64_t block = first_block + static_cast<uint64_t>(b);
    const std::array<uint32_t, 4> counter = {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                                             static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)};
    const std::array<uint32_t, 4> words = philox4x32_10(counter, key);
    for (uint64_t lane = 0; lane < 4; ++lane) {
      const uint64_t index = block * 4 + lane;
      if (index < index0) continue;
      const uint64_t i = index - index0;
      if (i >= n) break;
      f(static_cast<size_t>(i), words[lane]);
    }
  }
}

}  // namespace nanotrn
