// libFuzzer target: the recipe load path (src/recipe/recipe.h: load_recipe, which parses the file's JSON, applies the
// `--set` overrides in order, then parses the recipe strictly). The input is a JSON text, a line "---", then one
// override ("a.b=value") per line; the JSON goes to a file (load_recipe takes a path). Either the recipe loads (and
// its JSON form parses back to the same JSON), or loading throws nanotrn::Error; any other exception escapes and
// fails the run. Built and run by scripts/fuzz.sh.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "recipe/recipe.h"

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
  const std::string path = "recipe_fuzz." + std::to_string(getpid()) + ".json";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  if (!json_text.empty() && std::fwrite(json_text.data(), 1, json_text.size(), f) != json_text.size()) {
    __builtin_trap();
  }
  std::fclose(f);
  try {
    const nanotrn::recipe::Recipe r = nanotrn::recipe::load_recipe(path, overrides);
    const nlohmann::json once = nanotrn::recipe::recipe_to_json(r);
    if (nanotrn::recipe::recipe_to_json(nanotrn::recipe::recipe_from_json(once)) != once) __builtin_trap();
  } catch (const nanotrn::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
