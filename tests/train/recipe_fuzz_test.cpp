// Inputs that once escaped load_recipe as raw library exceptions (the class fuzz/recipe_fuzz.cpp looks for).
#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "base/file.h"
#include "data/temp_dir.h"
#include "train/recipe.h"

namespace nanotrn::train {
namespace {

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

}  // namespace
}  // namespace nanotrn::train
