// Home::path: relative paths go under the data root, absolute ones stay; an empty Home changes nothing.
#include "base/home.h"

#include <gtest/gtest.h>

namespace nanotrn {
namespace {

TEST(Home, RelativePathsGoUnderTheDataRootAbsoluteOnesStay) {
  const Home h{.data_root = "/data/root", .data_root_from = "test", .project = "/src/nanotrn"};
  EXPECT_EQ(h.path("out/tokenizer"), "/data/root/out/tokenizer");
  EXPECT_EQ(h.path("./out/../out/tokens/train_*.bin"), "/data/root/out/tokens/train_*.bin");
  EXPECT_EQ(h.path("/elsewhere/tok"), "/elsewhere/tok");
  EXPECT_EQ(h.path(""), "");
  EXPECT_EQ(Home{}.path("out/tokenizer"), "out/tokenizer");
}

TEST(Home, TheTestBinaryFindsThisCheckoutAsItsProjectFolder) {
  // The test binary lives in build/<preset>/ inside the checkout, so the nearest folder above it with recipes/ is the
  // checkout itself (the same folder CMake compiled in as NANOTRN_PROJECT_DIR).
  const Home h = find_home();
  EXPECT_EQ(h.project, NANOTRN_SOURCE_DIR);
  EXPECT_FALSE(h.data_root.empty());
}

}  // namespace
}  // namespace nanotrn
