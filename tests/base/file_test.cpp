// Crash leftovers of write_file_atomic: remove_stale_temporaries() deletes a temporary whose process is gone and
// keeps a live process's and files that only look similar.
#include "base/file.h"
#include "base/error.h"
#include "base/temp_files.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace nanotrn {
namespace {

namespace fs = std::filesystem;

// The pid of a process that has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

TEST(File, StaleTemporariesOfDeadProcessesAreRemovedLiveOnesKept) {
  const std::string dir = ::testing::TempDir() + "/nanotrn_stale_tmp";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const pid_t gone = dead_pid();
  const std::string dead = dir + "/checkpoint.safetensors.nanotrn-tmp." + std::to_string(gone);
  const std::string live = dir + "/checkpoint.safetensors.nanotrn-tmp." + std::to_string(::getpid());
  const std::string other = dir + "/notes.tmp.draft";
  const std::string users = dir + "/notes.tmp." + std::to_string(gone);  // another tool's name: never ours
  for (const std::string& p : {dead, live, other, users}) std::ofstream(p) << "x";
  const std::vector<std::string> removed = remove_stale_temporaries(dir);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0], dead);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_TRUE(fs::exists(users));
}

// The checks a long job makes before it computes: a writable path passes and leaves nothing behind; a missing folder,
// a folder or a FIFO in the file's place is an Error naming the path.
TEST(File, CheckCanWriteLeavesNothingAndNamesWhatIsWrong) {
  const std::string dir = ::testing::TempDir() + "/nanotrn_can_write";
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_NO_THROW(check_can_write(dir + "/core.json"));
  EXPECT_TRUE(fs::is_empty(dir));
  EXPECT_THROW(check_can_write(dir + "/no/such/core.json"), Error);
  EXPECT_THROW(check_can_write(dir), Error);  // a folder
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0644), 0);
  try {
    check_regular_or_absent(dir + "/fifo");
    ADD_FAILURE() << "a FIFO passed";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("cannot write '" + dir + "/fifo': it is not a regular file"), std::string::npos)
        << e.message();
  }
  EXPECT_NO_THROW(check_regular_or_absent(dir + "/absent"));
}

TEST(File, WriteFileAtomicLeavesNoTemporary) {
  const std::string dir = ::testing::TempDir() + "/nanotrn_atomic";
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_file_atomic(dir + "/a.bin", "abc", 3);
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename() == "a.bin" ? 0 : 1;
  EXPECT_EQ(n, 0);
  EXPECT_EQ(read_file(dir + "/a.bin").size(), 3u);
}

TEST(File, WriteFileAtomicNeverRenamesOverADeviceOrFolder) {
  // /dev/full is a character device: renaming a temporary over it would turn it into a plain file.
  for (const std::string& path : {std::string("/dev/full"), ::testing::TempDir()}) {
    try {
      write_file_atomic(path, "abc", 3);
      FAIL() << "wrote over " << path;
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("cannot write '" + path + "': it is not a regular file"), std::string::npos)
          << e.message();
    }
  }
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

}  // namespace
}  // namespace nanotrn
