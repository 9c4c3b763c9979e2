// The device catalog: the embedded data parses, every number carries a source (a hardware-facts reference key, a
// derivation or an explicit assumption), the loader rejects malformed entries by name, and the device-level
// closed forms (roofline, ring all-reduce) equal their formulas.
#include <gtest/gtest.h>

#include "base/error.h"
#include "hw/catalog.h"
#include "hw/roofline.h"

namespace nanotrn::hw {
namespace {

bool has_acceptable_source(const std::string& s) {
  if (s.find('[') != std::string::npos) return true;  // [TRN2], [derived] ... (hardware-facts.md reference keys)
  for (const char* prefix :
       {"assumed:", "measured at run time", "not applicable", "not modelled", "one ", "roofline:", "this host"}) {
    if (s.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

TEST(Catalog, BuiltinHasTheIssueDevicesAndEveryNumberASource) {
  const Catalog c = builtin_catalog();
  for (const char* n :
       {"trn1", "trn2", "trn3", "trn2-server", "trn3-ultraserver", "h100", "h200", "b200", "gb300", "host"}) {
    EXPECT_TRUE(c.contains(n)) << n;
  }
  for (const Device& d : c.devices()) {
    EXPECT_EQ(d.numbers.size(), device_number_names().size()) << d.name;
    for (const auto& [field, num] : d.numbers) {
      EXPECT_TRUE(has_acceptable_source(num.source)) << d.name << "." << field << ": '" << num.source << "'";
    }
  }
}

TEST(Catalog, TrainiumLayoutsFollowTheDocs) {
  const Catalog c = builtin_catalog();
  // [TRN2], [LNC]: 8 physical NeuronCore-v3, LNC=2 by default -> 4 logical cores per chip.
  EXPECT_EQ(c.find("trn2").physical_cores_per_chip(), 8);
  EXPECT_EQ(c.find("trn2").logical_cores_per_chip(), 4);
  EXPECT_EQ(c.find("trn1").logical_cores_per_chip(), 2);
  // [TRN2-INST]: 16 chips, 10.7 PFLOPS BF16 for the instance (16 x 667 = 10.67).
  EXPECT_NEAR(c.find("trn2-server").peak_bf16_flops(), 10.7e15, 0.05e15);
  // [TRN3-INST]: 144 chips, 96,624 TFLOPS BF16.
  EXPECT_EQ(c.find("trn3-ultraserver").chips(), 144);
  EXPECT_NEAR(c.find("trn3-ultraserver").peak_bf16_flops(), 96624e12, 100e12);
}

TEST(Catalog, HostPeakIsFilledFromTheMeasurement) {
  const Catalog c = builtin_catalog();
  EXPECT_EQ(c.find("host").value("peak_bf16_flops_per_chip"), 0.0);
  EXPECT_DOUBLE_EQ(host_device(c, 123.0).peak_bf16_flops(), 123e9);
  EXPECT_THROW(host_device(c, 0.0), Error);
}

std::string one_device(const std::string& numbers_extra, const std::string& source = "\"[X]\"") {
  std::string nums;
  for (const std::string& f : device_number_names()) {
    nums += (nums.empty() ? "" : ",") + ("\"" + f + "\": {\"value\": 1, \"source\": " + source + "}");
  }
  return R"({"schema": 1, "devices": [{"name": "x", "kind": "gpu", "neuron_core": "", "description": "d",)" +
         std::string(R"( "numbers": {)") + nums + numbers_extra + "}}]}";
}

TEST(Catalog, LoaderIsStrict) {
  EXPECT_NO_THROW(load_catalog(one_device(""), "t"));
  auto message = [](const std::string& text) {
    try {
      load_catalog(text, "t");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(one_device(R"(, "warp_speed": {"value": 1, "source": "[X]"})")).find("unknown key 'warp_speed'"),
            std::string::npos);
  EXPECT_NE(message(one_device("", "\"\"")).find("source"), std::string::npos);
  std::string missing = one_device("");
  missing.replace(missing.find("\"chips\""), 7, "\"chipz\"");
  EXPECT_NE(message(missing).find("chipz"), std::string::npos);
  EXPECT_NE(message("{\"schema\": 2, \"devices\": []}").find("schema"), std::string::npos);
  EXPECT_NE(message("not json").find("not valid JSON"), std::string::npos);
  try {
    builtin_catalog().find("trn9");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("known: trn1"), std::string::npos);
  }
}

TEST(Roofline, EqualsTheFormula) {
  // 2 TFLOP at 1 PFLOP/s = 2 ms; 1 GB at 1 TB/s = 1 ms: compute-bound, 2 ms.
  EXPECT_DOUBLE_EQ(roofline_seconds(2e12, 1e9, 1e15, 1e12), 2e-3);
  EXPECT_DOUBLE_EQ(roofline_seconds(1e9, 4e9, 1e15, 1e12), 4e-3);
  EXPECT_THROW(roofline_seconds(1.0, 0.0, 0.0, 1.0), Error);
}

TEST(Roofline, RingAllReduce) {
  // 1 GB over 4 ranks at 100 GB/s with 1 us hops: 2 * 3/4 * 10 ms + 6 us.
  EXPECT_DOUBLE_EQ(ring_allreduce_seconds(1e9, 4, 1e11, 1e-6), 2.0 * 3.0 / 4.0 * 1e9 / 1e11 + 6e-6);
  EXPECT_EQ(ring_allreduce_seconds(1e9, 1, 1e11, 1e-6), 0.0);
}

}  // namespace
}  // namespace nanotrn::hw
