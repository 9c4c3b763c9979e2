// The cost line (predict/run_cost.h) against hand arithmetic: chip-hours, the chips' share of an instance and the
// whole instances a launch rents; a device without a public price gets chip-hours and the catalog's reason.
#include <gtest/gtest.h>

#include "base/error.h"
#include "base/format.h"
#include "hw/catalog.h"
#include "predict/run_cost.h"

namespace nanotrn::predict {
namespace {

hw::InstancePrice price(double usd, int64_t chips, const std::string& source = "[T] test price") {
  return hw::InstancePrice{.instance = "x.48xlarge", .instance_chips = chips, .usd_per_hour = {usd, source}};
}

TEST(RunCost, OneChipOfASixteenChipInstance) {
  const RunCost c = run_cost(1800.0, 1, 1, price(21.5, 16));
  EXPECT_EQ(c.chips, 1);
  EXPECT_DOUBLE_EQ(c.chip_hours, 0.5);
  EXPECT_DOUBLE_EQ(c.usd_share, 0.5 * 21.5 / 16.0);
  EXPECT_EQ(c.instances, 1);
  EXPECT_DOUBLE_EQ(c.usd_instances, 0.5 * 21.5);
  const std::string t = cost_text(c);
  EXPECT_NE(t.find("0.5 chip-hours"), std::string::npos) << t;
  EXPECT_NE(t.find("$0.67 as the chips' share of x.48xlarge at $21.50/h per 16 chip(s)"), std::string::npos) << t;
  EXPECT_NE(t.find("$10.75 renting 1 whole instance(s) ([T] test price)"), std::string::npos) << t;
}

TEST(RunCost, WholeInstancesPerNodeRoundUp) {
  // 20 chips per node need two 16-chip instances on each of 3 nodes; the share pays for 60 chips only.
  const RunCost c = run_cost(7200.0, 20, 3, price(32.0, 16));
  EXPECT_EQ(c.chips, 60);
  EXPECT_DOUBLE_EQ(c.chip_hours, 120.0);
  EXPECT_EQ(c.instances, 6);
  EXPECT_DOUBLE_EQ(c.usd_share, 120.0 * 2.0);
  EXPECT_DOUBLE_EQ(c.usd_instances, 6 * 2.0 * 32.0);
  EXPECT_EQ(cost_json(c)["instances"], 6);
}

TEST(RunCost, NoPublicPriceGivesChipHoursAndTheReason) {
  const RunCost c = run_cost(3600.0, 1, 1, price(0.0, 16, "no public On-Demand price: Capacity Blocks only"));
  EXPECT_DOUBLE_EQ(c.chip_hours, 1.0);
  EXPECT_EQ(c.usd_share, 0.0);
  const std::string t = cost_text(c);
  EXPECT_NE(t.find("Capacity Blocks only (give --usd-per-chip-hour)"), std::string::npos) << t;
  EXPECT_TRUE(cost_json(c)["usd_share"].is_null());
  const RunCost none = run_cost(3600.0, 1, 1, std::nullopt);
  EXPECT_NE(cost_text(none).find("no price for this device"), std::string::npos);
  EXPECT_FALSE(cost_json(none).contains("instance"));
  EXPECT_THROW(run_cost(-1.0, 1, 1, std::nullopt), Error);
}

TEST(RunCost, DollarsPrintWithSeparatorsAndCents) {
  EXPECT_EQ(format_usd(3087202.918), "$3,087,202.92");
  EXPECT_EQ(format_usd(0.004), "$0.00");
  EXPECT_EQ(format_usd(0.995), "$1.00");
  EXPECT_EQ(format_usd(-12.5), "-$12.50");
}

TEST(RunCost, CatalogPricesTheRentedDevicesWithSourcesAndDates) {
  const hw::Catalog c = hw::builtin_catalog();
  for (const hw::Device& d : c.devices()) {
    if (d.kind == hw::DeviceKind::cpu) {
      EXPECT_FALSE(d.price) << d.name;
      continue;
    }
    ASSERT_TRUE(d.price) << d.name;
    EXPECT_GE(d.price->instance_chips, d.chips() > 16 ? 16 : d.chips()) << d.name;
    const std::string& src = d.price->usd_per_hour.source;
    EXPECT_NE(src.find("2026-"), std::string::npos) << d.name << ": a price says when it was read: " << src;
    if (d.price->known()) {
      EXPECT_NE(src.find("[EC2-PRICES]"), std::string::npos) << d.name;
    } else {
      EXPECT_EQ(src.rfind("no public", 0), 0u) << d.name << ": " << src;
    }
  }
  EXPECT_DOUBLE_EQ(c.find("trn1").price->usd_per_chip_hour(), 21.5 / 16.0);
  EXPECT_DOUBLE_EQ(c.find("h100").price->usd_per_chip_hour(), 55.04 / 8.0);
  EXPECT_FALSE(c.find("trn2").price->known());
}

}  // namespace
}  // namespace nanotrn::predict
