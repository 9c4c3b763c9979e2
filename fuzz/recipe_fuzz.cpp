// libFuzzer target: the recipe load path (src/train/recipe.h): recipe JSON, then `--set` overrides applied in order,
// then strict parsing. The input is a JSON text, a line "---", then one override ("a.b=value") per line. Either
// the recipe parses (and its JSON form parses back to the same JSON), or a step throws nanotrn::Error; any other
// exception escapes and fails the run. Built and run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "train/recipe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find("\n---\n");
  const std::string_view json_text = input.substr(0, split);
  std::vector<std::string> overrides;
  if (split != std::string_view::npos) {
    std::string_view rest = input.substr(split + 5);
    while (!rest.empty()) {
      const size_t eol = rest.find('\n');
      overrides.emplace_back(rest.substr(0, eol));
      rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    }
  }
  // Invalid JSON is load_recipe's own Error (it re-parses for the byte position); not the subject here.
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  try {
    const nlohmann::json defaults = nanotrn::train::recipe_to_json(nanotrn::train::Recipe{});
    for (const std::string& o : overrides) nanotrn::train::apply_override(j, o, defaults);
    const nanotrn::train::Recipe r = nanotrn::train::recipe_from_json(j);
    const nlohmann::json once = nanotrn::train::recipe_to_json(r);
    if (nanotrn::train::recipe_to_json(nanotrn::train::recipe_from_json(once)) != once) __builtin_trap();
  } catch (const nanotrn::Error&) {
  }
  return 0;
}
