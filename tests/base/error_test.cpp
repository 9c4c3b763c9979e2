// What a user is shown for an Error: the message alone when the failing check is nanotrn's own (a detail of src/),
// with its location when that is the user's code (a custom kernel's line: here, this test file) or when debugging.
#include "base/error.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "base/file.h"

namespace nanotrn {
namespace {

TEST(Error, TheLibrarysLocationsAreShownOnlyWhenDebugging) {
  try {
    read_file("/nanotrn/no/such/file");  // fails in src/base/file.cpp
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(is_internal(e.where()));
    EXPECT_EQ(user_message(e, false), e.message());
    EXPECT_EQ(user_message(e, true), e.what());
    EXPECT_NE(std::string(e.what()).find("src/base/file.cpp:"), std::string::npos) << e.what();
    EXPECT_EQ(e.message().find("file.cpp"), std::string::npos) << e.message();
  }
  // A check in the user's code (this file is outside src/) keeps its location: it is what the user must fix.
  const Error users("[shape] operand shapes differ");
  EXPECT_FALSE(is_internal(users.where()));
  EXPECT_EQ(user_message(users, false), users.what());
  EXPECT_NE(user_message(users, false).find("error_test.cpp:"), std::string::npos);
  // Any other exception is shown as it is.
  EXPECT_EQ(user_message(std::runtime_error("plain"), false), "plain");
}

}  // namespace
}  // namespace nanotrn
