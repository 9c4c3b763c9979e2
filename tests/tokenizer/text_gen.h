// Deterministic synthetic text for tokenizer tests: Zipf-ish words from a small alphabet with punctuation, digits,
// newlines and some non-ASCII letters, drawn from the project's Philox RNG (so every run sees the same text).
#pragma once

#include <cstdint>
#include <string>

#include "base/rng.h"

namespace nanotrn::tokenizer::testing {

inline std::string synthetic_text(size_t n_words, uint64_t seed) {
  static const char* const kExtra[] = {"é", "ß", "ж", "中", "🙂", "'s", "'ll", "n't"};
  std::string out;
  uint64_t idx = 0;
  for (size_t w = 0; w < n_words; ++w) {
    const uint32_t r = random_u32(seed, 1, idx++);
    const uint32_t len = 1 + (r % 7) * (r % 3 == 0 ? 2 : 1);
    const uint32_t vocab = 4 + (random_u32(seed, 1, idx++) % 20);  // small alphabets make frequent words
    for (uint32_t i = 0; i < len; ++i) out += static_cast<char>('a' + random_u32(seed, 1, idx++) % vocab);
    const uint32_t p = random_u32(seed, 1, idx++) % 40;
    if (p == 0) out += kExtra[random_u32(seed, 1, idx++) % 8];
    if (p == 1) out += std::to_string(random_u32(seed, 1, idx++) % 100000);
    if (p == 2) out += ", ";
    if (p == 3) out += ".\n";
    if (p == 4) out += "\n\n";
    if (p == 5) out += "   ";
    out += ' ';
  }
  return out;
}

}  // namespace nanotrn::tokenizer::testing
