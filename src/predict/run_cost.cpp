// What a predicted run costs to rent. See run_cost.h.
#include "predict/run_cost.h"

#include <cmath>

#include "base/error.h"
#include "base/format.h"

namespace nanotrn::predict {

RunCost run_cost(double held_s, int64_t chips_per_node, int64_t nodes, const std::optional<hw::InstancePrice>& price) {
  check(held_s >= 0 && chips_per_node >= 1 && nodes >= 1, "run_cost: held time >= 0, chips and nodes >= 1");
  RunCost c;
  c.held_s = held_s;
  c.chips = chips_per_node * nodes;
  c.chip_hours = static_cast<double>(c.chips) * held_s / 3600.0;
  c.price = price;
  if (!price) return c;
  c.instances = (chips_per_node + price->instance_chips - 1) / price->instance_chips * nodes;
  if (!price->known()) return c;
  c.usd_share = c.chip_hours * price->usd_per_chip_hour();
  c.usd_instances = static_cast<double>(c.instances) * held_s / 3600.0 * price->usd_per_hour.value;
  return c;
}

std::string cost_text(const RunCost& c) {
  std::string s =
      "cost: " + (c.chip_hours < 1e5 ? format_number("%.4g", c.chip_hours) : format_count(std::llround(c.chip_hours))) +
      " chip-hours (" + format_count(c.chips) + " chip(s) x " + format_number("%.4g h", c.held_s / 3600.0) +
      " held: compile and steps; evaluation not included)";
  if (!c.price) return s + "; no price for this device in the catalog\n";
  const hw::InstancePrice& p = *c.price;
  if (!p.known()) return s + "; " + p.instance + ": " + p.usd_per_hour.source + " (give --usd-per-chip-hour)\n";
  s += "; " + format_usd(c.usd_share) + " as the chips' share of " + p.instance + " at " +
       format_usd(p.usd_per_hour.value) + "/h per " + std::to_string(p.instance_chips) + " chip(s); " +
       format_usd(c.usd_instances) + " renting " + std::to_string(c.instances) + " whole instance(s) (" +
       p.usd_per_hour.source + ")\n";
  return s;
}

nlohmann::json cost_json(const RunCost& c) {
  nlohmann::json j = {{"held_s", c.held_s}, {"chips", c.chips}, {"chip_hours", c.chip_hours}};
  if (c.price) {
    j["instance"] = c.price->instance;
    j["instance_chips"] = c.price->instance_chips;
    j["usd_per_instance_hour"] = c.price->known() ? nlohmann::json(c.price->usd_per_hour.value) : nlohmann::json();
    j["price_source"] = c.price->usd_per_hour.source;
    j["instances"] = c.instances;
    j["usd_share"] = c.price->known() ? nlohmann::json(c.usd_share) : nlohmann::json();
    j["usd_instances"] = c.price->known() ? nlohmann::json(c.usd_instances) : nlohmann::json();
  }
  return j;
}

}  // namespace nanotrn::predict
