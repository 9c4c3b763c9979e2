// libFuzzer target: the `qa matmul` shapes parser (src/qa/matmul_shapes.h). Either the text parses into models that
// each have a source and only positive sizes, or parsing throws nanotrn::Error. Built and run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/error.h"
#include "qa/matmul_shapes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    for (const nanotrn::qa::QaModel& m : nanotrn::qa::parse_matmul_shapes(text, "fuzz.json")) {
      if (m.source.empty() || m.projections.empty()) __builtin_trap();
      for (const nanotrn::qa::Projection& p : m.projections)
        if (p.k <= 0 || p.n <= 0) __builtin_trap();
    }
  } catch (const nanotrn::Error&) {
  }
  return 0;
}
