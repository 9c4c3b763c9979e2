// libFuzzer target: the tokenizer-file readers (src/tokenizer/tiktoken_file.h, hf_tokenizer_json.h): the tiktoken
// rank file, nanotrn's tokenizer.json metadata and a Hugging Face tokenizer.json. Either they parse (and a parsed
// rank file formats back to text that parses to the same tokens) or they throw nanotrn::Error. Built and run by
// scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/error.h"
#include "tokenizer/hf_tokenizer_json.h"
#include "tokenizer/tiktoken_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto tokens = nanotrn::tokenizer::parse_tiktoken(text, "fuzz.tiktoken");
    if (nanotrn::tokenizer::parse_tiktoken(nanotrn::tokenizer::format_tiktoken(tokens), "again") != tokens) {
      __builtin_trap();
    }
  } catch (const nanotrn::Error&) {
  }
  try {
    nanotrn::tokenizer::parse_bpe_meta(text, "fuzz.json");
  } catch (const nanotrn::Error&) {
  }
  try {
    nanotrn::tokenizer::parse_hf_tokenizer_json(text, "fuzz/tokenizer.json");
  } catch (const nanotrn::Error&) {
  }
  return 0;
}
