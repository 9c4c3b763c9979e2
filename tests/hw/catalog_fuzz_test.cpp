// Inputs that once escaped load_catalog as raw library exceptions (the class fuzz/catalog_fuzz.cpp looks for).
#include <gtest/gtest.h>

#include "base/error.h"
#include "hw/catalog.h"

namespace nanotrn::hw {
namespace {

TEST(CatalogFuzzRegressions, ANumberTooLargeForADoubleIsAnErrorNamingTheOrigin) {
  // nlohmann::json reports this as out_of_range, not parse_error.
  try {
    load_catalog(R"({"schema": 1E400})", "big.json");
    FAIL() << "loaded a catalog with an overflowing number";
  } catch (const Error& e) {
    EXPECT_EQ(e.message().rfind("big.json: not valid JSON", 0), 0u) << e.message();
  }
}

}  // namespace
}  // namespace nanotrn::hw
