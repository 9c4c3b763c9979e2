// Synthetic token sources. See token_source.h.
#include "train/token_source.h"

#include <numeric>

#include "base/error.h"
#include "base/rng.h"

namespace nanotrn::train {

namespace {

// Each call draws from a Philox stream indexed by a call counter, so the state is one integer.
class CountingSource : public TokenSource {
 public:
  CountingSource(int32_t vocab, uint64_t seed) : vocab_(vocab), seed_(seed) {
    check(vocab >= 2, "token source: vocab must be >= 2");
  }
  nlohmann::json state() const override { return {{"calls", calls_}}; }
  void restore(const nlohmann::json& s) override {
    check(s.is_object() && s.contains("calls") && s["calls"].is_number_integer(),
          "token source: saved position must be {\"calls\": N}, got " + s.dump());
    calls_ = s["calls"].get<uint64_t>();
  }

 protected:
  int32_t vocab_;
  uint64_t seed_;
  uint64_t calls_ = 0;
};

class RandomSource final : public CountingSource {
 public:
  using CountingSource::CountingSource;
  void next(int64_t rows, int64_t seq_len, int32_t* inputs, int32_t* targets) override {
    const uint64_t stream = calls_++;
    const int64_t n = seq_len + 1;
    for (int64_t r = 0; r < rows; r++) {
      for (int64_t t = 0; t < n; t++) {
        const int32_t tok = static_cast<int32_t>(random_u32(seed_, stream, static_cast<uint64_t>(r * n + t)) %
                                                 static_cast<uint32_t>(vocab_));
        if (t < seq_len) inputs[r * seq_len + t] = tok;
        if (t > 0) targets[r * seq_len + t - 1] = tok;
      }
    }
  }
  std::string describe() const override { return "random tokens, V = " + std::to_string(vocab_); }
};

class PatternSource final : public CountingSource {
 public:
  // The permutation (the "language") is the same for every seed: a seed draws other walks through it, so a model
  // trained on one seed's walks is scored on another's (validation) from the same distribution.
  static constexpr uint64_t kLanguageSeed = 0x1A96;
  PatternSource(int32_t vocab, uint64_t seed) : CountingSource(vocab, seed), succ_(static_cast<size_t>(vocab)) {
    std::vector<int32_t> perm(static_cast<size_t>(vocab));
    std::iota(perm.begin(), perm.end(), 0);
    for (size_t i = perm.size() - 1; i > 0; i--) {
      std::swap(perm[i], perm[random_u32(kLanguageSeed, 0xC0FFEE, i) % (i + 1)]);
    }
    for (size_t i = 0; i < perm.size(); i++) succ_[static_cast<size_t>(perm[i])] = perm[(i + 1) % perm.size()];
  }
  void next(int64_t rows, int64_t seq_len, int32_t* inputs, int32_t* targets) override {
    const uint64_t stream = 1 + calls_++;
    for (int64_t r = 0; r < rows; r++) {
      uint64_t idx = static_cast<uint64_t>(r) * static_cast<uint64_t>(2 * (seq_len + 2));
      int32_t tok = static_cast<int32_t>(random_u32(seed_, stream, idx++) % static_cast<uint32_t>(vocab_));
      for (int64_t t = 0; t <= seq_len; t++) {
        if (t < seq_len) inputs[r * seq_len + t] = tok;
        if (t > 0) targets[r * seq_len + t - 1] = tok;
        const bool jump = random_u32(seed_, stream, idx++) % 8 == 0;
        tok = jump ? static_cast<int32_t>(random_u32(seed_, stream, idx++) % static_cast<uint32_t>(vocab_))
                   : succ_[static_cast<size_t>(tok)];
      }
    }
  }
  std::string describe() const override { return "synthetic permutation walk, V = " + std::to_string(vocab_); }

 private:
  std::vector<int32_t> succ_;
};

}  // namespace

std::unique_ptr<TokenSource> make_random_source(int32_t vocab, uint64_t seed) {
  return std::make_unique<RandomSource>(vocab, seed);
}
std::unique_ptr<TokenSource> make_pattern_source(int32_t vocab, uint64_t seed) {
  return std::make_unique<PatternSource>(vocab, seed);
}

}  // namespace nanotrn::train
