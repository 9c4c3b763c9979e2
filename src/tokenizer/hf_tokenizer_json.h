// A Hugging Face `tokenizers` file (tokenizer.json) read as the byte-level BPE it describes (GPT-2, Llama 3, Qwen2,
// and any byte-level BPE the library trains), so that `Tokenizer::load` takes one as an input tokenizer.
//
//   HfBpe spec = parse_hf_tokenizer_json(text, "gpt2/tokenizer.json");
//   Bpe bpe(spec.tokens, spec.specials, spec.pattern);     // ids equal the file's ids
//   is_hf_tokenizer_json(text)                            // an object with a "model" object: this format
//
// What is read, and what is refused with an Error naming the file and the field:
//  * model: {"type": "BPE" (or absent), "vocab": {token: id}, "merges": ["a b", ...] or [["a", "b"], ...]}. Tokens
//    are in the byte-level alphabet (GPT-2's bytes_to_unicode) and are mapped back to bytes. The ids must be
//    0..n-1, each once, and the merges must produce ids in increasing order (as the library writes them): then a
//    merge's priority is its product's id, which is tiktoken's rank rule (bpe.h), so the ids nanotrn encodes are the
//    library's. continuing_subword_prefix, end_of_word_suffix, dropout and byte_fallback are refused when set.
//  * pre_tokenizer: ByteLevel (use_regex true: GPT-2's split pattern; add_prefix_space false), or a Sequence of a
//    Split (a Regex pattern, behavior Isolated, not inverted) and a ByteLevel with use_regex false. Others refused.
//  * normalizer: null or absent (a normalizer changes the text before the split: refused).
//  * ignore_merges (true in Llama 3's file) is accepted either way: nanotrn encodes a chunk that is a token as that
//    token, which the library does under ignore_merges; without it the library merges such a chunk pair by pair,
//    which the textbook files tested here give the same ids for.
//  * added_tokens: those with ids n, n+1, ... are the specials (BOS is the first, as bpe.h says); one inside 0..n-1
//    must be that vocab entry; a gap is refused.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nanotrn::tokenizer {

// GPT-2's pre-tokenizer pattern, which a ByteLevel pre_tokenizer with use_regex applies.
inline constexpr std::string_view kGpt2SplitPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

struct HfBpe {
  std::vector<std::string> tokens;  // bytes, by id (= rank)
  std::vector<std::string> specials;
  std::string pattern;
};

bool is_hf_tokenizer_json(std::string_view text);
HfBpe parse_hf_tokenizer_json(std::string_view text, const std::string& name);

// The other way (`nanotrn export` writes one beside the model): a byte-level BPE as the library's tokenizer.json:
// the vocabulary by rank in the byte-level alphabet, one merge per token a merge can reach (the pair its own
// bytes merge into under the lower ranks, in rank order), a Split of `spec.pattern` then a ByteLevel pre-tokenizer,
// ignore_merges true (a chunk that is a token is that token, as bpe.h encodes), and the specials as added tokens.
std::string format_hf_tokenizer_json(const HfBpe& spec);

}  // namespace nanotrn::tokenizer
