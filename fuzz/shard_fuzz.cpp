// libFuzzer target: the .bin shard reader (src/data/shard.h). Any input must either parse into a view whose every
// id is below the vocabulary, or throw nanotrn::Error; anything else (a crash, a sanitizer report, another
// exception) is a bug. Built and run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>

#include "base/error.h"
#include "data/shard.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int32_t vocab = size > 0 ? 1 + data[0] * 300 : 8192;  // vary the id check, including V > 65,536
  try {
    const nanotrn::data::ShardView v = nanotrn::data::parse_shard(data, size, "fuzz.bin", vocab);
    for (int64_t i = 0; i < v.count; ++i) {
      if (v.at(i) < 0 || v.at(i) >= vocab) __builtin_trap();
    }
  } catch (const nanotrn::Error&) {
  }
  return 0;
}
