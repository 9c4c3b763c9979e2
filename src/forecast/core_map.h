// CORE from val_bpb: a straight line fitted on published (val_bpb, CORE) pairs of one dataset and tokenizer, with its
// leave-one-out error, applied only inside the range of val_bpb the pairs cover.
//
//   const CoreMap& m = builtin_core_map();        // configs/forecast/core_vs_bpb.json, fitted when first used
//   std::optional<double> core = m.at(0.80);       // 0.782 - 0.700 x 0.80; nullopt outside [m.lo, m.hi]
//   m.loo_rms;                                      // the error to state with it
//
// The pairs (configs/forecast/core_vs_bpb.json, embedded at build time) are nanochat's on FineWeb-EDU with its 32K
// tokenizer, each with the source it was read from: the miniseries v1 (d10-d20) and the leaderboard runs (d24-d26).
// val_bpb depends on the data and its evaluation, so the mapping says nothing about a val_bpb measured on other
// data; the forecast prints it only with that caveat (src/cli/forecast.cpp). Fit: ordinary least squares of CORE on
// val_bpb; loo: each pair predicted by the line fitted without it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nanotrn::forecast {

struct CorePair {
  std::string run, source;
  double val_bpb = 0, core = 0;
};

struct CoreMap {
  std::string name, dataset, note;
  std::vector<CorePair> pairs;
  double intercept = 0, slope = 0;  // CORE = intercept + slope x val_bpb
  std::vector<double> loo;          // per pair: predicted without it - published
  double loo_rms = 0, loo_max = 0;
  double lo = 0, hi = 0;  // the pairs' val_bpb range
  std::optional<double> at(double val_bpb) const;
  nlohmann::json to_json() const;
};

CoreMap core_map_from_json(const nlohmann::json& j, const std::string& where);
const CoreMap& builtin_core_map();

}  // namespace nanotrn::forecast
