// The pre-split of byte-level BPE: text is cut into chunks by the GPT-4-style regex of recipe-spec §4.1 (numbers in
// groups of 1-2 digits), and merges never cross a chunk boundary.
//
//   Pretokenizer split;                                     // compiles kSplitPattern once (PCRE2, JIT)
//   split.split("Hello world's 123", &chunks);              // "Hello", " world", "'s", " ", "12", "3"
//
// Speed: for kSplitPattern, matches that can be decided from ASCII bytes alone are computed by a hand-written
// matcher (alternative by alternative, as the regex defines them); PCRE2 decides the rest.
// Any byte string is accepted, valid UTF-8 or not: PCRE2 runs in PCRE2_MATCH_INVALID_UTF mode, where invalid bytes
// never match, and every run of bytes between two matches becomes a chunk of its own. So the chunks always tile the
// input exactly (their concatenation is the input), which is what makes encode/decode lossless.
// A Pretokenizer is immutable after construction and safe to use from many threads at once.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

namespace nanotrn::tokenizer {

// The split pattern of autoresearch and nanochat (a format requirement: a compatible tokenizer uses exactly this).
inline constexpr std::string_view kSplitPattern =
    R"('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,2}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)";

class Pretokenizer {
 public:
  // Throws Error naming the offset of a bad pattern.
  explicit Pretokenizer(std::string_view pattern = kSplitPattern);
  ~Pretokenizer();
  Pretokenizer(Pretokenizer&&) noexcept;
  Pretokenizer& operator=(Pretokenizer&&) noexcept;

  // Appends the chunks of `text` to *out (views into `text`), in order; they tile `text` exactly.
  void split(std::string_view text, std::vector<std::string_view>* out) const;
  std::vector<std::string_view> split(std::string_view text) const;
  // The same chunks from PCRE2 alone, without the ASCII fast path that split() takes for kSplitPattern (tests compare
  // the two).
  void split_pcre2(std::string_view text, std::vector<std::string_view>* out) const;

  const std::string& pattern() const;

 private:
  void split_impl(std::string_view text, std::vector<std::string_view>* out, bool fast) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nanotrn::tokenizer
