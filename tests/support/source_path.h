// A file of the source tree (a shipped recipe, config or test fixture), for tests that read one:
//
//   load_recipe(testing_support::source_path("recipes/cpu-tiny.json"))
//
// Built with append: GCC 12's -Warray-bounds misfires on `std::string(...) + "literal"` inside gtest's macros.
#pragma once

#include <string>
#include <string_view>

namespace nanotrn::testing_support {

inline std::string source_path(std::string_view relative) {
  return std::string(NANOTRN_SOURCE_DIR).append("/").append(relative);
}

}  // namespace nanotrn::testing_support
