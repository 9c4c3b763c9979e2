// The first field where two recipes (or any two JSON objects) differ, as a dotted path with both values:
//
//   first_difference(mine, theirs)   -> "optim.matrix_lr: 0.02 here, 0.04 there"  (nullopt when equal)
//   differing_fields({a, b, c})      -> {"optim.matrix_lr", "train.budget"}: every path not equal in all of them
//
// Objects are compared key by key in sorted order (a key only one side has is a difference), arrays element by
// element, anything else by value. Used where a run must refuse a partner that means another training: a checkpoint
// from another recipe (train/trainer.cpp) and ranks started with different recipes (train/launch_check.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nanotrn::recipe {

std::optional<std::string> first_difference(const nlohmann::json& here, const nlohmann::json& there,
                                            const std::string& here_name = "here",
                                            const std::string& there_name = "there", const std::string& path = "");

// The leaves of a JSON object as dotted paths (an array is one leaf): {"optim": {"kind": "muon"}} ->
// {"optim.kind": "muon"}.
std::map<std::string, nlohmann::json> flatten_fields(const nlohmann::json& j);
// The dotted paths whose leaf is not the same in every one of `objects` (absent counts as a value), sorted.
std::vector<std::string> differing_fields(const std::vector<nlohmann::json>& objects);

}  // namespace nanotrn::recipe
