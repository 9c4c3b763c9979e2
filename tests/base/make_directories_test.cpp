// make_directories: creates nested folders, accepts an existing one, and fails with an Error naming the folder and
// the reason (a file in the way, a place no one can create folders in) instead of a raw std::filesystem exception.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn {
namespace {

TEST(MakeDirectories, CreatesParentsAndAcceptsAnExistingFolder) {
  const std::string root = ::testing::TempDir() + "/nanotrn_make_directories";
  std::filesystem::remove_all(root);
  make_directories(root + "/a/b/c");
  EXPECT_TRUE(std::filesystem::is_directory(root + "/a/b/c"));
  EXPECT_NO_THROW(make_directories(root + "/a/b"));
  std::filesystem::remove_all(root);
}

TEST(MakeDirectories, AFileInTheWayIsAnErrorNamingIt) {
  const std::string root = ::testing::TempDir() + "/nanotrn_make_directories_file";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  std::ofstream(root + "/f") << "x";
  for (const std::string& path : {root + "/f", root + "/f/sub"}) {
    try {
      make_directories(path);
      FAIL() << "created " << path;
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("cannot create the folder '" + path + "'"), std::string::npos) << e.message();
    }
  }
  std::filesystem::remove_all(root);
}

TEST(MakeDirectories, AnUncreatablePlaceIsAnErrorNamingIt) {
  // /proc accepts no new folders, even for root.
  try {
    make_directories("/proc/nanotrn_no_such/x");
    FAIL() << "created a folder under /proc";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("'/proc/nanotrn_no_such/x'"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace nanotrn
