// The recipe schema: every key a recipe may hold and what it means, in one table (recipe_schema.cpp). Types and
// defaults are not written there: they are read off recipe_to_json(Recipe{}), so they cannot disagree with the
// loader. `nanotrn recipe show` prints the table beside a recipe's values; docs/RECIPES.md is generated from it
// (`nanotrn recipe doc > docs/RECIPES.md`). Tests check that the table lists exactly the keys the loader accepts and
// that docs/RECIPES.md is what recipe_markdown() generates.
//
//   for (const RecipeKey& k : recipe_schema()) ...               // {"optim.matrix_lr", "Muon learning rate ..."}
//   value_at(recipe_to_json(r), "batch.phases[].accum")          // [1, 2, 4]: one value per phase
//   std::vector<KeyRow> rows = describe_recipe(recipe_to_json(r));
//
// Keys are dotted paths; "a[].b" is field b of every element of the list a (batch.phases).
#pragma once

#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nanotrn::recipe {

struct RecipeKey {
  const char* key;
  const char* meaning;
};

// In document order: the top-level keys, then model, model.init, optim, schedule, batch, data, eval, ema, train.
std::span<const RecipeKey> recipe_schema();

// The value at a key of a recipe JSON (as recipe_to_json writes it); throws naming the key when it is not there.
nlohmann::json value_at(const nlohmann::json& recipe_json, const std::string& key);

// "string", "integer", "number", "boolean", "list of numbers", "list of objects": the JSON type of a value.
std::string type_name(const nlohmann::json& value);

// A value as recipes are written: JSON with ", " between items, numbers in their shortest round-tripping form and
// whole numbers without a fraction (10000, not 10000.0).
std::string format_value(const nlohmann::json& value);

struct KeyRow {
  std::string key, type, meaning;
  nlohmann::json value, default_value;
};
// One row per schema key: the recipe's value next to the built-in default.
std::vector<KeyRow> describe_recipe(const nlohmann::json& recipe_json);

// docs/RECIPES.md: the loading rules, then every key with its type, default and meaning, one table per section.
std::string recipe_markdown();

}  // namespace nanotrn::recipe
