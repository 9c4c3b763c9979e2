// The recipe schema table lists exactly the keys the loader accepts (asked of the loader itself, level by level),
// every key the writer writes, and docs/RECIPES.md is exactly what it generates; values print as recipes are written.
#include "recipe/recipe_schema.h"

#include <map>
#include <set>
#include <sstream>
#include <utility>

#include <gtest/gtest.h>

#include "base/error.h"
#include "base/file.h"
#include "recipe/recipe.h"

namespace nanotrn::recipe {
namespace {

using nlohmann::json;

std::set<std::string> schema_keys() {
  std::set<std::string> keys;
  for (const RecipeKey& k : recipe_schema()) EXPECT_TRUE(keys.insert(k.key).second) << "listed twice: " << k.key;
  return keys;
}

// Every key of a recipe JSON: objects are walked, a list of objects is a key and so is each field of its elements
// ("batch.phases", "batch.phases[].from").
void leaves(const json& j, const std::string& prefix, std::set<std::string>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_object()) {
      leaves(*it, key, out);
      continue;
    }
    out.insert(key);
    if (it->is_array() && !it->empty() && (*it)[0].is_object()) leaves((*it)[0], key + "[]", out);
  }
}

// The keys the loader knows in the object at `path`, read from its error for an unknown key there.
std::set<std::string> loader_keys_at(const std::string& path) {
  json j = json::object();
  json* at = &j;
  std::stringstream ss(path);
  for (std::string part; std::getline(ss, part, '.');) {
    if (part.ends_with("[]")) {
      part.resize(part.size() - 2);
      (*at)[part] = json::array({json::object()});
      at = &(*at)[part][0];
    } else {
      at = &(*at)[part];
      *at = json::object();
    }
  }
  (*at)["no_such_key"] = 1;
  std::string e;
  try {
    recipe_from_json(j);
  } catch (const Error& err) {
    e = err.message();
  }
  const std::string marker = "(known keys here: ";
  const size_t from = e.find(marker);
  EXPECT_NE(from, std::string::npos) << path << ": " << e;
  if (from == std::string::npos) return {};
  const std::string list = e.substr(from + marker.size(), e.rfind(')') - from - marker.size());
  std::set<std::string> keys;
  std::stringstream ls(list);
  for (std::string k; std::getline(ls, k, ',');) keys.insert(k.substr(k.find_first_not_of(' ')));
  return keys;
}

// "model.init.fc" -> {"model.init", "fc"}; "name" -> {"", "name"}.
std::pair<std::string, std::string> split_last(const std::string& key) {
  const size_t dot = key.find_last_of('.');
  if (dot == std::string::npos) return {"", key};
  return {key.substr(0, dot), key.substr(dot + 1)};
}

TEST(RecipeSchema, ListsExactlyTheKeysTheLoaderAccepts) {
  // What the schema says each object holds: its keys' last parts, and the sub-objects below it.
  std::map<std::string, std::set<std::string>> expected;
  for (const std::string& key : schema_keys()) {
    auto [object, field] = split_last(key);
    expected[object].insert(field);
    while (!object.empty()) {
      auto [parent, child] = split_last(object);
      if (child.ends_with("[]")) child.resize(child.size() - 2);
      expected[parent].insert(child);
      object = parent;
    }
  }
  EXPECT_GE(expected.size(), 10u);  // top level, model, model.init, optim, ..., batch.phases[]
  for (const auto& [object, keys] : expected) EXPECT_EQ(loader_keys_at(object), keys) << "object '" << object << "'";
}

TEST(RecipeSchema, ListsEveryKeyTheWriterWritesAndEachLoadsAlone) {
  const json defaults = recipe_to_json(Recipe{});
  std::set<std::string> written;
  leaves(defaults, "", written);
  EXPECT_EQ(schema_keys(), written);
  // Setting any one key to its default value is accepted by the loader.
  for (const std::string& key : schema_keys()) {
    if (key.find("[]") != std::string::npos) continue;  // covered by batch.phases
    json j = json::object();
    const json v = value_at(defaults, key);
    apply_override(j, key + "=" + (v.is_string() ? v.get<std::string>() : v.dump()), defaults);
    EXPECT_NO_THROW(recipe_from_json(j)) << key;
  }
}

TEST(RecipeSchema, DocsRecipesMdIsWhatTheSchemaGenerates) {
  const std::vector<uint8_t> bytes = read_file(NANOTRN_SOURCE_DIR "/docs/RECIPES.md");
  const std::string doc(bytes.begin(), bytes.end());
  EXPECT_EQ(doc, recipe_markdown()) << "regenerate with: ./build/release/nanotrn recipe doc > docs/RECIPES.md";
  // ... and so it lists exactly the loader's keys, one table row each.
  std::set<std::string> rows;
  std::stringstream ss(doc);
  for (std::string line; std::getline(ss, line);) {
    if (line.rfind("| `", 0) == 0) rows.insert(line.substr(3, line.find('`', 3) - 3));
  }
  EXPECT_EQ(rows, schema_keys());
}

TEST(RecipeSchema, ValuesAtKeysAndTheirTypes) {
  const Recipe r =
      default_recipe_with({"batch.phases=[{\"from\":0,\"accum\":1,\"lr_scale\":0.35},"
                           "{\"from\":0.2,\"accum\":4,\"lr_scale\":1}]",
                           "optim.matrix_lr=0.04"});
  const json j = recipe_to_json(r);
  EXPECT_EQ(value_at(j, "batch.phases[].accum"), json::array({1, 4}));
  EXPECT_EQ(format_value(value_at(j, "batch.phases[].lr_scale")), "[0.35, 1]");
  EXPECT_EQ(format_value(value_at(j, "optim.matrix_lr")), "0.04");  // a float field, not 0.03999999910593033
  EXPECT_EQ(value_at(j, "optim.matrix_lr").dump(), "0.04");         // also in the JSON itself
  EXPECT_EQ(format_value(value_at(j, "optim.adam_eps")), "1e-10");
  EXPECT_EQ(format_value(value_at(j, "model.rotary_base")), "10000");
  EXPECT_EQ(format_value(value_at(j, "data.layout")), "\"best_fit\"");
  EXPECT_THROW(value_at(j, "optim.matrix_lrr"), Error);
  std::map<std::string, std::string> types;
  for (const KeyRow& row : describe_recipe(j)) types[row.key] = row.type;
  EXPECT_EQ(types["seed"], "integer");
  EXPECT_EQ(types["optim.nesterov"], "boolean");
  EXPECT_EQ(types["train.mtp_weights"], "list of numbers");
  EXPECT_EQ(types["batch.phases"], "list of objects");
  EXPECT_EQ(types["batch.phases[].accum"], "integer");
  EXPECT_EQ(types["schedule.cooldown_fraction"], "number");
}

}  // namespace
}  // namespace nanotrn::recipe
