// What a predicted run costs to rent (`predict`'s cost line): the time its chips are held (the compile before the
// first step and the steps of the budget walk; evaluation and data loading not included) times the chips launched,
// priced at the device's on-demand instance price from the catalog (hw::InstancePrice, with its source and date).
//
//   RunCost c = run_cost(held_s, chips_per_node, nodes, device.price);
//   cost_text(c);   // "cost: 0.52 chip-hours ...; $0.70 as 1/16 of trn1.32xlarge at $21.50/h ..."
//
// Two prices, both stated: the chips' share (chip-hours x instance price / its chips: what the work costs when the
// rest of the instance is used too) and the whole instances a launch must rent (ceil(chips per node / instance
// chips) per node, for the held time). A device whose price is 0 (no public price) or absent gets chip-hours only,
// with the catalog's reason.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hw/catalog.h"

namespace nanotrn::predict {

struct RunCost {
  double held_s = 0;      // compile + steps
  int64_t chips = 0;      // chips per node x nodes
  double chip_hours = 0;  // chips x held hours
  std::optional<hw::InstancePrice> price;
  int64_t instances = 0;     // whole instances rented (0 without a price entry)
  double usd_share = 0;      // chip_hours x usd per chip-hour (0 without a known price)
  double usd_instances = 0;  // instances x held hours x usd per instance-hour (0 without a known price)
};

RunCost run_cost(double held_s, int64_t chips_per_node, int64_t nodes, const std::optional<hw::InstancePrice>& price);
std::string cost_text(const RunCost& c);  // one line, "cost: ..."
nlohmann::json cost_json(const RunCost& c);

}  // namespace nanotrn::predict
