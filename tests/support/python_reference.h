// Runs one of the independent references in tests/python/ through Debian's interpreter on a JSON input and returns
// the JSON it prints:
//
//   const nlohmann::json want = python_reference("welch_reference.py", "", pairs);
//
// The input goes through a file in the calling test's own temporary folder (its suite, name and process id), so two
// tests that call the same reference at once under `ctest -j` never read each other's input (they once did: two
// ScalingLaw tests shared one fixed file name and one compared itself with the other's answer on CI).
#pragma once

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "data/temp_dir.h"

namespace nanotrn::testing_support {

inline nlohmann::json python_reference(const std::string& script, const std::string& args,
                                       const nlohmann::json& input) {
  const data::testing::TempDir dir;
  const std::string in = dir / "reference_in.json";
  std::ofstream(in) << input.dump();
  const std::string cmd = "/usr/bin/python3 " NANOTRN_SOURCE_DIR "/tests/python/" + script + " " + args + " < " + in;
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  char buf[4096];
  for (size_t n; p && (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  const int rc = p ? pclose(p) : -1;
  EXPECT_EQ(rc, 0) << "the reference " << script << " failed (python3-scipy and python3-numpy: scripts/setup.sh)";
  return nlohmann::json::parse(text);
}

}  // namespace nanotrn::testing_support
