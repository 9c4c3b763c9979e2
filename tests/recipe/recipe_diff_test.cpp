// The first differing field of two recipes, and the launch identity's hash (FNV-1a 64, against its published test
// vectors).
#include <gtest/gtest.h>

#include "recipe/recipe_diff.h"
#include "train/launch_check.h"

namespace nanotrn::recipe {
namespace {

TEST(RecipeDiff, NamesTheFirstDifferingFieldWithBothValues) {
  const nlohmann::json a = {{"optim", {{"matrix_lr", 0.02}, {"momentum", 0.95}}}, {"seed", 1}};
  nlohmann::json b = a;
  EXPECT_FALSE(first_difference(a, b).has_value());
  b["optim"]["matrix_lr"] = 0.04;
  EXPECT_EQ(first_difference(a, b, "on rank 1", "on rank 0").value(),
            "optim.matrix_lr: 0.02 on rank 1, 0.04 on rank 0");
  b = a;
  b["optim"].erase("momentum");
  EXPECT_EQ(first_difference(a, b).value(), "optim.momentum: 0.95 here, absent there");
  const nlohmann::json p = {{"phases", {{{"accum", 1}}, {{"accum", 2}}}}};
  nlohmann::json q = p;
  q["phases"][1]["accum"] = 4;
  EXPECT_EQ(first_difference(p, q, "here", "there", "batch").value(), "batch.phases[1].accum: 2 here, 4 there");
  q["phases"].push_back({{"accum", 8}});  // another length: the arrays differ as a whole
  EXPECT_EQ(first_difference(p, q).value().substr(0, 7), "phases:");
}

TEST(LaunchCheck, Fnv1a64MatchesItsTestVectors) {
  EXPECT_EQ(train::fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(train::fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(train::fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(LaunchCheck, OneRankNeedsNoPartner) {
  auto comm = dist::make_local_communicator();
  EXPECT_NO_THROW(train::require_same_launch(*comm, train::launch_identity(Recipe{}, "build", "out", "")));
}

}  // namespace
}  // namespace nanotrn::recipe
