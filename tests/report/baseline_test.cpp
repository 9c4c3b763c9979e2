// The report's unigram baseline of a recipe's data: a piece that is missing is said, not thrown (a report of a run
// whose data moved still renders); shard globs resolve sorted and read in that order.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "data/shard.h"
#include "recipe/recipe.h"
#include "report/baseline.h"

namespace nanotrn::report {
namespace {

TEST(Baseline, AMissingPieceIsNamedNotThrown) {
  const std::string dir = ::testing::TempDir() + "/nanotrn_baseline";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  recipe::Recipe r = recipe::default_recipe_with({});
  r.data.tokenizer = dir + "/no_tokenizer";
  Baseline b = unigram_baseline(r);
  EXPECT_TRUE(std::isnan(b.bpb));
  EXPECT_NE(b.why.find("data.tokenizer '" + dir + "/no_tokenizer' not found"), std::string::npos) << b.why;
  r.data.tokenizer = dir;  // exists; the shards do not
  r.data.train = dir + "/train_*.bin";
  b = unigram_baseline(r);
  EXPECT_NE(b.why.find("data.train '" + dir + "/train_*.bin' matches no shard"), std::string::npos) << b.why;
}

TEST(Baseline, ShardGlobsAreSortedAndReadInOrder) {
  const std::string dir = ::testing::TempDir() + "/nanotrn_baseline_glob";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  data::write_shard(dir + "/t_000001.bin", std::vector<int32_t>{3, 4}, 16);
  data::write_shard(dir + "/t_000000.bin", std::vector<int32_t>{1, 2}, 16);
  const std::vector<std::string> g = data::glob_shards(dir + "/t_*.bin");
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(data::read_shard_ids(g, 16), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_TRUE(data::glob_shards(dir + "/none_*.bin").empty());
}

}  // namespace
}  // namespace nanotrn::report
