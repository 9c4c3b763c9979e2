// CORE from val_bpb. See core_map.h.
#include "forecast/core_map.h"
#include "base/json_parse.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "forecast/line_fit.h"

namespace nanotrn::forecast {
namespace {

// The shipped pair files' texts, {name, JSON}: generated from configs/forecast/*.json (cmake/embed_json.cmake).
const std::vector<std::pair<std::string, std::string>>& builtin_texts() {
  static const std::vector<std::pair<std::string, std::string>> texts = {
#include "forecast/core_pairs.json.inc"
  };
  return texts;
}

std::string text_field(const nlohmann::json& j, const char* key, const std::string& where) {
  check(j.contains(key) && j.at(key).is_string(), where + ": \"" + key + "\" must be a string");
  return j.at(key).get<std::string>();
}

double number_field(const nlohmann::json& j, const char* key, const std::string& where) {
  check(j.contains(key) && j.at(key).is_number() && std::isfinite(j.at(key).get<double>()),
        where + ": \"" + key + "\" must be a finite number");
  return j.at(key).get<double>();
}

}  // namespace

std::optional<double> CoreMap::at(double val_bpb) const {
  if (!(val_bpb >= lo && val_bpb <= hi)) return std::nullopt;
  return intercept + slope * val_bpb;
}

CoreMap core_map_from_json(const nlohmann::json& j, const std::string& where) {
  check(j.is_object(), where + ": a CORE map is a JSON object {name, dataset, note, pairs}");
  CoreMap m;
  m.name = text_field(j, "name", where);
  m.dataset = text_field(j, "dataset", where);
  m.note = text_field(j, "note", where);
  check(j.contains("pairs") && j.at("pairs").is_array() && j.at("pairs").size() >= 3,
        where + ": \"pairs\" must be an array of at least 3 {run, val_bpb, core, source}");
  for (size_t i = 0; i < j.at("pairs").size(); i++) {
    const nlohmann::json& p = j.at("pairs")[i];
    const std::string at = where + ": pairs[" + std::to_string(i) + "]";
    check(p.is_object(), at + " must be an object");
    m.pairs.push_back({text_field(p, "run", at), text_field(p, "source", at), number_field(p, "val_bpb", at),
                       number_field(p, "core", at)});
  }
  std::vector<double> x, y;
  for (const CorePair& p : m.pairs) {
    x.push_back(p.val_bpb);
    y.push_back(p.core);
  }
  const LineFit all = fit_line(x, y, "CORE map " + where);
  m.intercept = all.intercept;
  m.slope = all.slope;
  m.loo = leave_one_out_errors(x, y, "CORE map " + where);
  double sum = 0;
  for (const double e : m.loo) {
    sum += e * e;
    m.loo_max = std::max(m.loo_max, std::abs(e));
  }
  m.loo_rms = std::sqrt(sum / static_cast<double>(m.pairs.size()));
  const auto [lo, hi] = std::minmax_element(m.pairs.begin(), m.pairs.end(),
                                            [](const CorePair& a, const CorePair& b) { return a.val_bpb < b.val_bpb; });
  m.lo = lo->val_bpb;
  m.hi = hi->val_bpb;
  return m;
}

const CoreMap& builtin_core_map() {
  static const CoreMap m = [] {
    for (const auto& [name, text] : builtin_texts())
      if (name == "core_vs_bpb") return core_map_from_json(nanotrn::parse_json(text), "configs/forecast/" + name);
    throw Error("the build holds no configs/forecast/core_vs_bpb.json");
  }();
  return m;
}

nlohmann::json CoreMap::to_json() const {
  return {{"name", name},       {"dataset", dataset}, {"intercept", intercept},    {"slope", slope},
          {"loo_rms", loo_rms}, {"loo_max", loo_max}, {"val_bpb_range", {lo, hi}}, {"pairs", pairs.size()}};
}

}  // namespace nanotrn::forecast
