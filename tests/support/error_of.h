// What a call throws, for tests that assert on the text of an error: "" when it throws nothing. Only nanotrn::Error
// is caught, so any other exception (a raw library one: a bug) still fails the test.
//
//   EXPECT_NE(error_message_of([&] { load(path); }).find(path), std::string::npos);   // the message alone
//   error_text_of([&] { ... })    // with the "file:line: " prefix of the failing check (e.what())
#pragma once

#include <functional>
#include <string>

#include "base/error.h"

namespace nanotrn::testing_support {

inline std::string error_message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

inline std::string error_text_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace nanotrn::testing_support
