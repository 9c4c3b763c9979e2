// Recipe inputs that once escaped as raw library exceptions or ran into undefined behaviour (fuzz/recipe_fuzz.cpp).
#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "base/file.h"
#include "data/temp_dir.h"
#include "recipe/recipe.h"

namespace nanotrn::recipe {
namespace {

using nlohmann::json;

TEST(RecipeFuzzRegressions, ANumberTooLargeForADoubleIsAnErrorNamingTheFile) {
  // nlohmann::json reports this as out_of_range, not parse_error.
  data::testing::TempDir dir;
  const std::string path = dir / "big.json", text = R"({"seed": 1E400})";
  write_file_atomic(path, text.data(), text.size());
  try {
    load_recipe(path);
    FAIL() << "loaded a recipe with an overflowing number";
  } catch (const Error& e) {
    EXPECT_EQ(e.message().rfind(path + ": not valid JSON", 0), 0u) << e.message();
  }
}

TEST(RecipeFuzzRegressions, AnIntegerOutsideItsFieldsRangeIsAnErrorNamingTheKey) {
  // Once converted through double without a range check (undefined behaviour: -1 into the unsigned seed).
  for (const char* o : {"seed=-1", "seed=1e30", "train.steps=1e19", "train.threads=3e9"}) {
    try {
      default_recipe_with({o});
      ADD_FAILURE() << o << " was accepted";
    } catch (const Error& e) {
      const std::string key = std::string(o).substr(0, std::string(o).find('='));
      EXPECT_NE(e.message().find(key + " is out of range"), std::string::npos) << e.message();
    }
  }
}

TEST(RecipeFuzzRegressions, AnOverrideIntoANonObjectIsAnErrorNamingTheKey) {
  // Once a raw nlohmann type_error: the recipe JSON (or a section of it) is not an object.
  const json defaults = recipe_to_json(Recipe{});
  for (json j : {json(0), json{{"optim", 3}}}) {
    try {
      apply_override(j, "optim.matrix_lr=0.02", defaults);
      ADD_FAILURE() << j.dump() << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.message().rfind("recipe override 'optim.matrix_lr': ", 0), 0u) << e.message();
    }
  }
}

}  // namespace
}  // namespace nanotrn::recipe
