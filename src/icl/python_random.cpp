// MT19937 and its seeding as in CPython's Modules/_randommodule.c (itself Matsumoto and Nishimura's mt19937ar.c of
// 2002-01-26), and random.py's methods on top of it. See python_random.h for the contract.
#include "icl/python_random.h"

#include <bit>
#include <cmath>
#include <string>
#include <unordered_set>

#include "base/error.h"

namespace nanotrn::icl {
namespace {

constexpr int kN = 624, kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfu, kUpperMask = 0x80000000u, kLowerMask = 0x7fffffffu;

void init_genrand(std::array<uint32_t, kN>& mt, uint32_t s) {
  mt[0] = s;
  for (int i = 1; i < kN; i++) mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + static_cast<uint32_t>(i);
}

void init_by_array(std::array<uint32_t, kN>& mt, const std::vector<uint32_t>& key) {
  init_genrand(mt, 19650218u);
  const size_t key_length = key.size();
  size_t i = 1, j = 0;
  for (size_t k = kN > key_length ? kN : key_length; k > 0; k--) {
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + static_cast<uint32_t>(j);  // non linear
    i++;
    j++;
    if (i >= kN) {
      mt[0] = mt[kN - 1];
      i = 1;
    }
    if (j >= key_length) j = 0;
  }
  for (size_t k = kN - 1; k > 0; k--) {
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - static_cast<uint32_t>(i);  // non linear
    i++;
    if (i >= kN) {
      mt[0] = mt[kN - 1];
      i = 1;
    }
  }
  mt[0] = 0x80000000u;  // MSB is 1, assuring a non-zero initial array
}

}  // namespace

PythonRandom::PythonRandom(uint64_t seed) {
  // random_seed(): the int's absolute value as 32-bit words, least significant first; at least one word.
  std::vector<uint32_t> key{static_cast<uint32_t>(seed)};
  if (seed >> 32) key.push_back(static_cast<uint32_t>(seed >> 32));
  init_by_array(state_, key);
  index_ = kN;
}

void PythonRandom::twist() {
  auto mix = [](uint32_t upper, uint32_t lower, uint32_t far) {
    const uint32_t y = (upper & kUpperMask) | (lower & kLowerMask);
    return far ^ (y >> 1) ^ ((y & 1u) ? kMatrixA : 0u);
  };
  int kk = 0;
  for (; kk < kN - kM; kk++) state_[kk] = mix(state_[kk], state_[kk + 1], state_[kk + kM]);
  for (; kk < kN - 1; kk++) state_[kk] = mix(state_[kk], state_[kk + 1], state_[kk + (kM - kN)]);
  state_[kN - 1] = mix(state_[kN - 1], state_[0], state_[kM - 1]);
  index_ = 0;
}

uint32_t PythonRandom::next_u32() {
  if (index_ >= kN) twist();
  uint32_t y = state_[index_++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= (y >> 18);
  return y;
}

double PythonRandom::random() {
  const uint32_t a = next_u32() >> 5, b = next_u32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

uint64_t PythonRandom::getrandbits(int k) {
  if (k < 0 || k > 64) throw Error("getrandbits(" + std::to_string(k) + "): k must be in [0, 64]");
  if (k == 0) return 0;
  if (k <= 32) return next_u32() >> (32 - k);
  // Two words: the first is the low one and is whole; the second keeps its top k - 32 bits.
  const uint64_t low = next_u32();
  const uint64_t high = next_u32() >> (64 - k);
  return low | (high << 32);
}

uint64_t PythonRandom::randbelow(uint64_t n) {
  check(n > 0, "randbelow(0): the range [0, 0) is empty");
  const int k = std::bit_width(n);
  uint64_t r = getrandbits(k);
  while (r >= n) r = getrandbits(k);
  return r;
}

std::vector<size_t> PythonRandom::sample_indices(size_t n, size_t k) {
  if (k > n) {
    throw Error("sample of " + std::to_string(k) + " from a population of " + std::to_string(n) +
                ": Sample larger than population or is negative");
  }
  // setsize = 21 + 4 ** ceil(math.log(k * 3, 4)) for k > 5; math.log(x, base) is log(x) / log(base) in double.
  uint64_t setsize = 21;
  if (k > (uint64_t{1} << 62)) {
    setsize = UINT64_MAX;  // 3k > 2**63.5, so 4 ** ceil(log(3k, 4)) = 2**64 or more: more than any n
  } else if (k > 5) {
    const double exponent = std::ceil(std::log(static_cast<double>(3 * static_cast<uint64_t>(k))) / std::log(4.0));
    setsize = exponent >= 32 ? UINT64_MAX : setsize + (uint64_t{1} << (2 * static_cast<int>(exponent)));
  }
  std::vector<size_t> result;
  result.reserve(k);
  if (n <= setsize) {
    std::vector<size_t> pool(n);
    for (size_t i = 0; i < n; i++) pool[i] = i;
    for (size_t i = 0; i < k; i++) {
      const size_t j = static_cast<size_t>(randbelow(n - i));
      result.push_back(pool[j]);
      pool[j] = pool[n - i - 1];  // move the non-selected item into the vacancy
    }
  } else {
    std::unordered_set<size_t> selected;
    for (size_t i = 0; i < k; i++) {
      size_t j = static_cast<size_t>(randbelow(n));
      while (selected.count(j)) j = static_cast<size_t>(randbelow(n));
      selected.insert(j);
      result.push_back(j);
    }
  }
  return result;
}

}  // namespace nanotrn::icl
