// libFuzzer target: the SentencePiece .model reader (src/tokenizer/sentencepiece_model.h). The bytes go to a file
// (the reader takes a path); either it loads, and then encoding, decoding and token_bytes work or throw
// nanotrn::Error, or loading throws nanotrn::Error. Built and run by scripts/fuzz.sh.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/error.h"
#include "tokenizer/sentencepiece_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = "sentencepiece_fuzz." + std::to_string(getpid()) + ".model";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  if (size && std::fwrite(data, 1, size, f) != size) __builtin_trap();
  std::fclose(f);
  try {
    const nanotrn::tokenizer::SentencePieceModel sp(path);
    const std::vector<int32_t> ids = sp.encode("Hello, world! \xc3\xa9 123");
    for (int32_t id : ids) {
      if (id < 0 || id >= sp.vocab_size()) __builtin_trap();
    }
    (void)sp.decode(ids);
    if (static_cast<int32_t>(sp.token_bytes().size()) != sp.vocab_size()) __builtin_trap();
  } catch (const nanotrn::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
