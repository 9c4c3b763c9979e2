// The run folder: a fresh run refuses a folder that holds a run, naming what is there; --resume keeps it for
// appending; --overwrite removes the old checkpoint and metrics so nothing of the old run remains.
#include "train/run_folder.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "base/error.h"

namespace nanotrn::train {
namespace {

namespace fs = std::filesystem;

// A folder that looks like a finished run of recipe "probe" (its metrics events, a checkpoint file).
std::string folder_with_a_run(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/nanotrn_run_folder_" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/metrics.jsonl") << R"({"event":"start","recipe":{"name":"probe"},"step":0})"
                                        << "\n"
                                        << R"({"event":"step","step":5,"loss":3.0})"
                                        << "\n"
                                        << R"({"event":"summary","steps":7})"
                                        << "\n";
  std::ofstream(dir + "/checkpoint.safetensors") << "not really";
  return dir;
}

TEST(RunFolder, AFreshRunRefusesAFolderHoldingARunAndNamesIt) {
  const std::string dir = folder_with_a_run("refuse");
  try {
    prepare_run_folder(dir, RunFolderUse::fresh);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(dir + " already holds a run: checkpoint.safetensors and metrics.jsonl (recipe probe, finished "
                           "at step 7)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("--resume"), std::string::npos) << m;
    EXPECT_NE(m.find("--overwrite"), std::string::npos) << m;
  }
  EXPECT_TRUE(fs::exists(dir + "/checkpoint.safetensors"));
  EXPECT_TRUE(fs::exists(dir + "/metrics.jsonl"));
  // Either file alone is a run too.
  fs::remove(dir + "/checkpoint.safetensors");
  EXPECT_THROW(prepare_run_folder(dir, RunFolderUse::fresh), Error);
}

TEST(RunFolder, ResumeKeepsTheRunAndOverwriteRemovesIt) {
  const std::string dir = folder_with_a_run("flags");
  const auto size_before = fs::file_size(dir + "/metrics.jsonl");
  prepare_run_folder(dir, RunFolderUse::resume);
  EXPECT_EQ(fs::file_size(dir + "/metrics.jsonl"), size_before);
  EXPECT_TRUE(fs::exists(dir + "/checkpoint.safetensors"));
  prepare_run_folder(dir, RunFolderUse::overwrite);
  EXPECT_FALSE(fs::exists(dir + "/metrics.jsonl"));
  EXPECT_FALSE(fs::exists(dir + "/checkpoint.safetensors"));
  EXPECT_EQ(describe_run_folder(dir), "");
  EXPECT_NO_THROW(prepare_run_folder(dir, RunFolderUse::fresh));
}

TEST(RunFolder, AMissingFolderIsCreated) {
  const std::string dir = ::testing::TempDir() + "/nanotrn_run_folder_new/a/b";
  fs::remove_all(::testing::TempDir() + "/nanotrn_run_folder_new");
  prepare_run_folder(dir, RunFolderUse::fresh);
  EXPECT_TRUE(fs::is_directory(dir));
}

}  // namespace
}  // namespace nanotrn::train
