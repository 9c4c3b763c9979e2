// PythonRandom against the real interpreter: tests/python/python_random_reference.py prints, for 14 seeds (0, 1,
// 1337, 1234 + idx, 2**32 +- 1, 2**63 + 7, 2**64 - 1, ...), CPython's own next words, random(), getrandbits(k),
// _randbelow(n), shuffles, samples (both of sample's branches and the boundary between them) and one interleaved
// sequence; every value must match bit for bit. The test fails, never skips, when /usr/bin/python3 is missing.
#include "icl/python_random.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "support/error_of.h"

namespace nanotrn::icl {
namespace {

using nlohmann::json;
using testing_support::error_message_of;

const char* const kPython = "/usr/bin/python3";
const char* const kScript = NANOTRN_SOURCE_DIR "/tests/python/python_random_reference.py";

// The reference streams, run once for the whole suite; null (with the reason in `failure`) when Python failed.
struct Reference {
  json streams;
  std::string failure;
};

const Reference& reference() {
  static const Reference ref = [] {
    Reference r;
    if (!std::filesystem::exists(kPython)) {
      r.failure = std::string(kPython) + " not found: these tests compare against CPython 3.11's random module " +
                  "(Debian 12's python3; run scripts/setup.sh)";
      return r;
    }
    const std::string cmd = std::string(kPython) + " " + kScript;
    FILE* pipe = popen(cmd.c_str(), "r");
    if (pipe == nullptr) {
      r.failure = "could not run " + cmd + ": " + std::strerror(errno);
      return r;
    }
    std::string out;
    char buf[65536];
    for (size_t got; (got = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, got);
    const int rc = pclose(pipe);
    if (rc != 0) {
      r.failure = cmd + " failed (status " + std::to_string(rc) + "; its stderr is above)";
      return r;
    }
    try {
      r.streams = json::parse(out);
    } catch (const json::exception& e) {
      r.failure = cmd + " printed no valid JSON: " + e.what();
    }
    return r;
  }();
  return ref;
}

// The per-seed reference objects; fails the calling test when Python could not provide them.
#define SEEDS_OR_FAIL(seeds)                         \
  const Reference& ref_ = reference();               \
  ASSERT_TRUE(ref_.failure.empty()) << ref_.failure; \
  const json& seeds = ref_.streams.at("seeds");      \
  ASSERT_FALSE(seeds.empty())

TEST(PythonRandom, WordStreamMatches) {
  SEEDS_OR_FAIL(seeds);
  for (const json& s : seeds) {
    PythonRandom rng(s.at("seed").get<uint64_t>());
    const std::vector<uint32_t> want = s.at("u32").get<std::vector<uint32_t>>();
    for (size_t i = 0; i < want.size(); i++) {
      ASSERT_EQ(rng.next_u32(), want[i]) << "seed " << s.at("seed") << " word " << i;
    }
  }
}

TEST(PythonRandom, RandomMatchesBitForBit) {
  SEEDS_OR_FAIL(seeds);
  for (const json& s : seeds) {
    PythonRandom rng(s.at("seed").get<uint64_t>());
    const std::vector<uint64_t> want = s.at("random_bits").get<std::vector<uint64_t>>();
    for (size_t i = 0; i < want.size(); i++) {
      const double x = rng.random();
      uint64_t bits;
      std::memcpy(&bits, &x, sizeof bits);
      ASSERT_EQ(bits, want[i]) << "seed " << s.at("seed") << " random() " << i << " = " << x;
      ASSERT_TRUE(x >= 0.0 && x < 1.0);
    }
  }
}

TEST(PythonRandom, GetrandbitsMatchesForEveryWidth) {
  SEEDS_OR_FAIL(seeds);
  for (const json& s : seeds) {
    PythonRandom rng(s.at("seed").get<uint64_t>());
    const json& per_k = s.at("getrandbits");
    const size_t rounds = per_k.at(0).at(1).size();
    for (size_t round = 0; round < rounds; round++) {
      for (const json& kv : per_k) {
        const int k = kv.at(0).get<int>();
        ASSERT_EQ(rng.getrandbits(k), kv.at(1).at(round).get<uint64_t>())
            << "seed " << s.at("seed") << " round " << round << " getrandbits(" << k << ")";
      }
    }
  }
}

TEST(PythonRandom, RandbelowMatches) {
  SEEDS_OR_FAIL(seeds);
  for (const json& s : seeds) {
    PythonRandom rng(s.at("seed").get<uint64_t>());
    for (const json& nv : s.at("randbelow")) {
      const uint64_t n = nv.at(0).get<uint64_t>();
      for (const json& want : nv.at(1)) {
        ASSERT_EQ(rng.randbelow(n), want.get<uint64_t>()) << "seed " << s.at("seed") << " randbelow(" << n << ")";
      }
    }
  }
}

TEST(PythonRandom, ShuffleMatches) {
  SEEDS_OR_FAIL(seeds);
  for (const json& s : seeds) {
    for (const json& nv : s.at("shuffle")) {
      const size_t n = nv.at(0).get<size_t>();
      std::vector<size_t> x(n);
      std::iota(x.begin(), x.end(), size_t{0});
      PythonRandom(s.at("seed").get<uint64_t>()).shuffle(x);
      ASSERT_EQ(x, nv.at(1).get<std::vector<size_t>>()) << "seed " << s.at("seed") << " shuffle of range(" << n << ")";
    }
  }
}

TEST(PythonRandom, SampleIndicesMatchInBothBranches) {
  SEEDS_OR_FAIL(seeds);
  for (const json& s : seeds) {
    PythonRandom rng(s.at("seed").get<uint64_t>());
    for (const json& nkv : s.at("sample")) {
      const size_t n = nkv.at(0).get<size_t>(), k = nkv.at(1).get<size_t>();
      ASSERT_EQ(rng.sample_indices(n, k), nkv.at(2).get<std::vector<size_t>>())
          << "seed " << s.at("seed") << " sample(range(" << n << "), " << k << ")";
    }
  }
}

TEST(PythonRandom, InterleavedCallsLeavePythonsState) {
  SEEDS_OR_FAIL(seeds);
  for (const json& s : seeds) {
    const json& m = s.at("mixed");
    PythonRandom rng(s.at("seed").get<uint64_t>());
    std::vector<int> x(50);
    std::iota(x.begin(), x.end(), 0);
    rng.shuffle(x);
    EXPECT_EQ(x, m.at("shuffle50").get<std::vector<int>>()) << s.at("seed");
    const double r = rng.random();
    uint64_t bits;
    std::memcpy(&bits, &r, sizeof bits);
    EXPECT_EQ(bits, m.at("random").get<uint64_t>()) << s.at("seed");
    // sample() of a population's elements: here the population is range(100), so elements are positions.
    std::vector<int> population(100);
    std::iota(population.begin(), population.end(), 0);
    EXPECT_EQ(rng.sample(population, 10), m.at("sample100_10").get<std::vector<int>>()) << s.at("seed");
    EXPECT_EQ(rng.getrandbits(33), m.at("getrandbits33").get<uint64_t>()) << s.at("seed");
    EXPECT_EQ(rng.randbelow(7), m.at("randbelow7").get<uint64_t>()) << s.at("seed");
    EXPECT_EQ(rng.sample_indices(30, 30), m.at("sample30_30").get<std::vector<size_t>>()) << s.at("seed");
    EXPECT_EQ(rng.next_u32(), m.at("u32").get<uint32_t>()) << s.at("seed");
  }
}

TEST(PythonRandom, OutOfRangeArgumentsAreErrors) {
  PythonRandom rng(1);
  EXPECT_EQ(error_message_of([&] { rng.sample_indices(3, 4); }),
            "sample of 4 from a population of 3: Sample larger than population or is negative");
  EXPECT_EQ(error_message_of([&] { rng.randbelow(0); }), "randbelow(0): the range [0, 0) is empty");
  EXPECT_EQ(error_message_of([&] { rng.getrandbits(65); }), "getrandbits(65): k must be in [0, 64]");
  EXPECT_EQ(error_message_of([&] { rng.getrandbits(-1); }), "getrandbits(-1): k must be in [0, 64]");
  // None of them consumed a word: the stream continues as a fresh generator's.
  EXPECT_EQ(rng.next_u32(), PythonRandom(1).next_u32());
}

}  // namespace
}  // namespace nanotrn::icl
