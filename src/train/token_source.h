// Where training and evaluation batches come from: rows of token ids and their next-token targets.
//
//   std::unique_ptr<TokenSource> src = make_random_source(vocab, seed);
//   src->next(rows, seq_len, inputs.data(), targets.data());      // rows * seq_len each, row-major
//   nlohmann::json pos = src->state();  ...  src->restore(pos);   // exact position, saved in checkpoints
//
// Implementations: the shard loader of the data pipeline (data/loader.h, via make_shard_source), random tokens
// (benchmarks), and a deterministic synthetic language with learnable structure (tests of the trainer).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nanotrn::train {

class TokenSource {
 public:
  virtual ~TokenSource() = default;
  virtual void next(int64_t rows, int64_t seq_len, int32_t* inputs, int32_t* targets) = 0;
  virtual nlohmann::json state() const = 0;
  virtual void restore(const nlohmann::json& state) = 0;
  virtual std::string describe() const = 0;
};

// Uniform random tokens in [0, vocab) (benchmarks: same shapes and work as real data).
std::unique_ptr<TokenSource> make_random_source(int32_t vocab, uint64_t seed);
// A synthetic language for tests: each row is a walk through a fixed random permutation of the vocabulary (the same
// for every seed: the seed draws the walks, so training and validation sources of different seeds share the
// language) with occasional random jumps (probability 1/8), so a model can learn it but never exactly.
std::unique_ptr<TokenSource> make_pattern_source(int32_t vocab, uint64_t seed);

}  // namespace nanotrn::train
