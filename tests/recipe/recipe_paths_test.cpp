// Recipes named on a command line: found by file or shipped name (with every place listed when not found), and their
// data paths resolved under the data root, not the working directory.
#include "recipe/recipe_paths.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "base/error.h"
#include "base/file.h"
#include "data/temp_dir.h"
#include "support/source_path.h"

namespace nanotrn::recipe {
namespace {

using data::testing::TempDir;

void write_text(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  write_file_atomic(path, text.data(), text.size());
}

TEST(RecipePaths, DataPathsResolveUnderTheDataRootNotTheRecipeFolderOrWorkingDirectory) {
  TempDir dir;
  write_text(dir / "mine/exp.json",
             R"({"name": "exp", "data": {"tokenizer": "out/tok", "train": "out/tokens/train_*.bin",
                 "val": "/abs/val_*.bin", "corpus": "corp"}})");
  const Home home{.data_root = dir / "root", .data_root_from = "test", .project = NANOTRN_SOURCE_DIR};
  const Recipe r = open_recipe(dir / "mine/exp.json", {"model.depth=2"}, home);
  EXPECT_EQ(r.data.tokenizer, dir / "root/out/tok");
  EXPECT_EQ(r.data.train, dir / "root/out/tokens/train_*.bin");
  EXPECT_EQ(r.data.val, "/abs/val_*.bin");
  EXPECT_EQ(r.data.corpus, dir / "root/corp");
  EXPECT_EQ(r.model.depth, 2);
  // An override is a recipe value like any other: relative means under the data root.
  const Recipe o = open_recipe(dir / "mine/exp.json", {"data.tokenizer=other/tok"}, home);
  EXPECT_EQ(o.data.tokenizer, dir / "root/other/tok");
  // Defaults the recipe leaves out too; synthetic sources are not paths.
  const Recipe s = open_recipe("cpu-tiny", {"data.train=synthetic:pattern"}, home);
  EXPECT_EQ(s.data.train, "synthetic:pattern");
  EXPECT_EQ(s.data.val, dir / "root/out/data/tokens/val_*.bin");
}

TEST(RecipePaths, ShippedNamesAreFoundInTheProjectFolderAndTheDataRootComesFirst) {
  TempDir dir;
  const Home home{.data_root = dir.str(), .data_root_from = "test", .project = NANOTRN_SOURCE_DIR};
  EXPECT_EQ(find_recipe("cpu-tiny", home), testing_support::source_path("recipes/cpu-tiny.json"));
  EXPECT_EQ(find_recipe("recipes/cpu-small.json", home), testing_support::source_path("recipes/cpu-small.json"));
  write_text(dir / "recipes/cpu-tiny.json", R"({"name": "my-tiny"})");
  EXPECT_EQ(find_recipe("cpu-tiny", home), dir / "recipes/cpu-tiny.json");
  EXPECT_EQ(open_recipe("cpu-tiny", {}, home).name, "my-tiny");
  const std::vector<std::string> shipped = shipped_recipes(home);
  EXPECT_NE(std::find(shipped.begin(), shipped.end(), "autoresearch-d8"), shipped.end());
}

TEST(RecipePaths, NotFoundListsEveryPlaceAndTheShippedRecipes) {
  TempDir dir;
  const Home home{.data_root = dir.str(), .data_root_from = "test", .project = NANOTRN_SOURCE_DIR};
  std::string e;
  try {
    find_recipe("cpu-tinyy", home);
  } catch (const Error& err) {
    e = err.message();
  }
  EXPECT_NE(e.find("recipe 'cpu-tinyy' not found"), std::string::npos) << e;
  EXPECT_NE(e.find(dir / "recipes/cpu-tinyy.json"), std::string::npos) << e;
  EXPECT_NE(e.find(testing_support::source_path("recipes/cpu-tinyy.json")), std::string::npos) << e;
  EXPECT_NE(e.find("cpu-tiny, "), std::string::npos) << e;
}

}  // namespace
}  // namespace nanotrn::recipe
