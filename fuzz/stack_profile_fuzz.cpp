// libFuzzer target: the software-stack profile parser (src/recipe/stack_profile.h). Either the text is a profile
// that writes back out and reads in again to the same values, or reading throws nanotrn::Error (malformed JSON
// included). Built and run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "recipe/stack_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw nanotrn::Error(e.what());
    }
    using nanotrn::recipe::StackParam;
    const nanotrn::recipe::StackProfile p = nanotrn::recipe::stack_profile_from_json(j, "fuzz.json");
    const nanotrn::recipe::StackProfile q =
        nanotrn::recipe::stack_profile_from_json(nanotrn::recipe::stack_profile_to_json(p), "round trip");
    for (StackParam s : nanotrn::recipe::all_stack_params())
      if (p.value(s) != q.value(s)) __builtin_trap();
  } catch (const nanotrn::Error&) {
  }
  return 0;
}
