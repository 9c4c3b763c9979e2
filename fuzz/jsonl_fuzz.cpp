// libFuzzer target: the JSONL corpus reader (src/data/jsonl.h). Either every line parses into a document with valid
// UTF-8 text (which formats back to JSONL that parses to the same documents), or it throws nanotrn::Error.
// Built and run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/error.h"
#include "data/jsonl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto docs = nanotrn::data::parse_jsonl(text, "fuzz.jsonl");
    const auto again = nanotrn::data::parse_jsonl(nanotrn::data::format_jsonl(docs), "again");
    if (again.size() != docs.size()) __builtin_trap();
    for (size_t i = 0; i < docs.size(); ++i) {
      if (again[i].text != docs[i].text || again[i].id != docs[i].id) __builtin_trap();
      if (nanotrn::find_invalid_utf8(docs[i].text) != std::string_view::npos) __builtin_trap();
    }
  } catch (const nanotrn::Error&) {
  }
  return 0;
}
