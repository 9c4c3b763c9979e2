// Tests the sanitize preset skips and the release preset runs: sweeps and pinned figures that take minutes under
// ASan/UBSan while faster tests run the same code there. Each test says so, and why, in its own body:
//
//   TEST(AttentionQa, AllOfT512...) {
//     NANOTRN_RELEASE_ONLY("32 configurations, 124 s under the sanitizers; AttentionKernel.* run the same code");
//
// so the decision lives beside the test (a rename cannot silently change it) and ctest reports the test as skipped,
// with the reason, in the sanitize preset (gtest prints [  SKIPPED ]; gtest_discover_tests maps that to a skip).
// kSanitized is also what a test reads to run smaller shapes under the sanitizers.
#pragma once

#include <gtest/gtest.h>

namespace nanotrn::testing_support {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace nanotrn::testing_support

// A statement (GTEST_SKIP returns from the test body or from a fixture's SetUp). Written as gtest writes its own
// macros, `if (!c) {} else ...`, so an `else` after it cannot bind to the macro's `if`.
#define NANOTRN_RELEASE_ONLY(why)                \
  if (!::nanotrn::testing_support::kSanitized) { \
  } else                                         \
    GTEST_SKIP() << "release preset only: " << (why)
