// The ZeRO-1 ownership table: every parameter has one owner in range, the split is the greedy LPT one (checked against
// a plain re-derivation), it balances within the largest parameter, and it depends only on sizes and world size.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "base/error.h"
#include "dist/ownership.h"

namespace nanotrn::dist {
namespace {

TEST(Ownership, EveryParameterHasOneOwnerAndLoadsBalance) {
  const std::vector<int64_t> sizes = {65536, 256, 65536, 4, 131072, 256, 65536, 1, 98304, 65536};
  for (int world : {1, 2, 3, 4, 16}) {
    const std::vector<int> owner = assign_owners(sizes, world);
    ASSERT_EQ(owner.size(), sizes.size());
    std::vector<int64_t> load(static_cast<size_t>(world), 0);
    for (size_t i = 0; i < sizes.size(); i++) {
      ASSERT_GE(owner[i], 0);
      ASSERT_LT(owner[i], world);
      load[static_cast<size_t>(owner[i])] += sizes[i];
    }
    const int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
    const int64_t largest = *std::max_element(sizes.begin(), sizes.end());
    const int64_t most = *std::max_element(load.begin(), load.end());
    // LPT's guarantee: no rank exceeds the mean by more than the largest item.
    EXPECT_LE(most, total / world + largest) << "world " << world;
    EXPECT_EQ(owner, assign_owners(sizes, world));  // a pure function: every rank derives the same table
  }
  EXPECT_EQ(assign_owners(sizes, 1), std::vector<int>(sizes.size(), 0));
}

TEST(Ownership, GreedyLargestFirstToTheLeastLoadedRank) {
  // By hand: 10 -> r0, 8 -> r1, 5 -> r1 (8 < 10), 3 -> r0 (10 < 13), 1 -> r0 (13 = 13: the lower rank).
  EXPECT_EQ(assign_owners({5, 10, 1, 8, 3}, 2), (std::vector<int>{1, 0, 0, 1, 0}));
  EXPECT_THROW(assign_owners({1}, 0), Error);
  EXPECT_THROW(assign_owners({-1}, 2), Error);
}

}  // namespace
}  // namespace nanotrn::dist
