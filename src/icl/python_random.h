// CPython's random.Random, bit for bit (CPython 3.11, Debian 12's /usr/bin/python3): the Mersenne Twister MT19937
// seeded as Python seeds it from an int, and the few methods on top of it that nanochat's CORE evaluator uses to
// order its data and pick its few-shot examples, so that we pick exactly the same ones.
//
//   PythonRandom(1337).shuffle(items);                                 // random.Random(1337).shuffle(items)
//   std::vector<size_t> picks = PythonRandom(1234 + idx).sample_indices(available.size(), k);
//   // picks[i] is the position in `available` of random.Random(1234 + idx).sample(available, k)[i]
//
// Each method consumes the generator's 32-bit words exactly as its Python namesake does, so any sequence of calls
// leaves the same state as the same calls in Python (tests/icl/python_random_test.cpp compares against the real
// interpreter). The algorithms, from CPython's Modules/_randommodule.c and Lib/random.py:
//   seed         init_by_array(key) with key = the seed's 32-bit words, least significant first, as many as it
//                needs (seed 0 -> key {0}). Python's seed(int) uses abs(int), with no hashing.
//   random()     (a * 2**26 + b) / 2**53 with a = next_u32() >> 5, b = next_u32() >> 6.
//   getrandbits  k <= 32: next_u32() >> (32 - k); else ceil(k / 32) words, the first the least significant, the
//                last shifted right to keep only its top (k mod 32 or 32) bits.
//   randbelow    _randbelow_with_getrandbits: k = bit_length(n); r = getrandbits(k) until r < n.
//   shuffle      3.11's: for i = n-1 down to 1, swap x[i] with x[randbelow(i + 1)].
//   sample       3.11's two branches (below), chosen by comparing n with the size Python estimates for a set.
// Not here: gauss, choices, floats other than random(), seeding from str/bytes/None, Python < 3.11's shuffle(random=).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace nanotrn::icl {

class PythonRandom {
 public:
  // random.Random(seed) for the non-negative int `seed`.
  explicit PythonRandom(uint64_t seed);

  // genrand_uint32: the next 32-bit output of MT19937.
  uint32_t next_u32();
  // random.random(): a double in [0, 1) with 53 random bits (two words).
  double random();
  // random.getrandbits(k) for 0 <= k <= 64 (k = 0 returns 0 and consumes nothing, as Python 3.9+); any other k is an
  // Error.
  uint64_t getrandbits(int k);
  // random._randbelow(n): uniform in [0, n) by rejection. n = 0 is an Error (Python would loop forever).
  uint64_t randbelow(uint64_t n);

  // random.shuffle(items), in place.
  template <class T>
  void shuffle(std::vector<T>& items) {
    for (size_t i = items.size() > 0 ? items.size() - 1 : 0; i >= 1; --i) {
      const size_t j = static_cast<size_t>(randbelow(static_cast<uint64_t>(i) + 1));
      std::swap(items[i], items[j]);
    }
  }

  // The positions, in result order, of random.sample(population, k) for a population of n elements
  // (population[result[i]] is Python's result[i]). Python 3.11 uses, with setsize = 21, plus
  // 4 ** ceil(log(3k, 4)) when k > 5 (computed in double precision as Python does):
  //   n <= setsize: a pool of the n positions; draw j = randbelow(n - i), take pool[j], move pool[n - i - 1] into it.
  //   otherwise:    draw j = randbelow(n) until j is not yet taken, take it.
  // k > n is an Error, as Python's ValueError "Sample larger than population or is negative".
  std::vector<size_t> sample_indices(size_t n, size_t k);
  // random.sample(population, k) itself.
  template <class T>
  std::vector<T> sample(const std::vector<T>& population, size_t k) {
    std::vector<T> out;
    out.reserve(k);
    for (size_t i : sample_indices(population.size(), k)) out.push_back(population[i]);
    return out;
  }

 private:
  static constexpr int kStateWords = 624;  // MT19937's N
  void twist();

  std::array<uint32_t, kStateWords> state_{};
  int index_ = kStateWords;  // the next word of state_ to temper; kStateWords: twist first
};

}  // namespace nanotrn::icl
