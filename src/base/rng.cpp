// Philox4x32-10 and the uniform / normal helpers declared in base/rng.h.
// Not here: any state; every function is a pure function of its arguments.
#include "base/rng.h"

#include <cmath>
#include <numbers>

namespace nanotrn {

namespace {

constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;  // golden ratio
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;  // sqrt(3) - 1

inline void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  const uint64_t p = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(p >> 32);
  lo = static_cast<uint32_t>(p);
}

constexpr double kTwoPow32Inv = 1.0 / 4294967296.0;

// The Box-Muller pair for the words (w0, w1) of one pair; `odd` picks the sine branch.
inline float box_muller(uint32_t w0, uint32_t w1, bool odd) {
  const double u1 = (static_cast<double>(w0) + 1.0) * kTwoPow32Inv;  // (0, 1]
  const double u2 = static_cast<double>(w1) * kTwoPow32Inv;          // [0, 1)
  const double rho = std::sqrt(-2.0 * std::log(u1));
  const double theta = 2.0 * std::numbers::pi * u2;
  return static_cast<float>(odd ? rho * std::sin(theta) : rho * std::cos(theta));
}

inline float uniform_from_word(uint32_t w) { return static_cast<float>(w >> 8) * 0x1p-24f; }

}  // namespace

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(kPhiloxM0, c[0], hi0, lo0);
    mulhilo(kPhiloxM1, c[2], hi1, lo1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
    k[0] += kPhiloxW0;
    k[1] += kPhiloxW1;
  }
  return c;
}

uint32_t random_u32(uint64_t seed, uint64_t stream, uint64_t index) {
  const uint64_t block = index / 4;
  const std::array<uint32_t, 4> counter = {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                                           static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)};
  const std::array<uint32_t, 2> key = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  return philox4x32_10(counter, key)[index % 4];
}

float random_uniform(uint64_t seed, uint64_t stream, uint64_t index) {
  return uniform_from_word(random_u32(seed, stream, index));
}

float random_normal(uint64_t seed, uint64_t stream, uint64_t index) {
  const uint32_t w0 = random_u32(seed, stream, index & ~uint64_t{1});
  const uint32_t w1 = random_u32(seed, stream, index | 1);
  return box_muller(w0, w1, (index & 1) != 0);
}

void fill_uniform(float* out, size_t n, float lo, float hi, uint64_t seed, uint64_t stream) {
  const float span = hi - lo;
  for_each_random_u32(seed, stream, 0, n,
                      [&](size_t i, uint32_t w) { out[i] = std::fma(span, uniform_from_word(w), lo); });
}

void fill_normal(float* out, size_t n, float mean, float stddev, uint64_t seed, uint64_t stream) {
  if (n == 0) return;
  // One Philox block holds two Box-Muller pairs: words (0, 1) give elements 4b, 4b+1 and words (2, 3) give 4b+2, 4b+3.
  const std::array<uint32_t, 2> key = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  const int64_t blocks = static_cast<int64_t>((n + 3) / 4);
#pragma omp parallel for schedule(static) if (n >= kRandomParallelMin)
  for (int64_t b = 0; b < blocks; ++b) {
    const uint64_t block = static_cast<uint64_t>(b);
    const std::array<uint32_t, 4> counter = {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                                             static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)};
    const std::array<uint32_t, 4> w = philox4x32_10(counter, key);
    for (size_t lane = 0; lane < 4; ++lane) {
      const size_t i = static_cast<size_t>(block) * 4 + lane;
      if (i >= n) break;
      const size_t pair = lane & ~size_t{1};
      out[i] = std::fma(stddev, box_muller(w[pair], w[pair + 1], (lane & 1) != 0), mean);
    }
  }
}

}  // namespace nanotrn
