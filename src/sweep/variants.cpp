// Sweep variants: grids and random draws. See variants.h.
#include "sweep/variants.h"
#include "base/json_parse.h"

#include <cmath>
#include <cstdio>
#include <set>

#include "base/error.h"
#include "base/file.h"
#include "base/rng.h"

namespace nanotrn::sweep {
namespace {

using nlohmann::json;

struct Axis {
  std::string key;
  std::vector<std::string> values;
};

Axis parse_axis(const std::string& text) {
  const size_t eq = text.find('=');
  check(eq != std::string::npos && eq > 0, "--grid expects key=v1,v2,... (got '" + text + "')");
  Axis a{text.substr(0, eq), {}};
  const std::string rest = text.substr(eq + 1);
  size_t at = 0;
  while (true) {
    const size_t comma = rest.find(',', at);
    const std::string v = rest.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    check(!v.empty(), "--grid " + text + ": an empty value");
    a.values.push_back(v);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return a;
}

std::string variant_id(size_t i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "v%02zu", i + 1);
  return buf;
}

std::string real_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// A [lo, hi] pair of numbers, or an Error naming the key.
std::pair<double, double> bounds(const json& j, const std::string& where) {
  check(j.is_array() && j.size() == 2 && j[0].is_number() && j[1].is_number(),
        where + " must be [low, high], two numbers");
  const double lo = j[0].get<double>(), hi = j[1].get<double>();
  check(std::isfinite(lo) && std::isfinite(hi) && lo <= hi, where + ": low must be <= high, both finite");
  return {lo, hi};
}

void check_distribution(const std::string& key, const json& d, const std::string& where) {
  const std::string at = where + ": " + key;
  check(d.is_object() && d.size() == 1,
        at + " must be one of {\"uniform\": [lo, hi]}, {\"log_uniform\": [lo, hi]}, {\"int\": [lo, hi]}, "
             "{\"choice\": [...]}");
  const std::string kind = d.begin().key();
  if (kind == "choice") {
    check(d.at("choice").is_array() && !d.at("choice").empty(), at + ".choice must be a non-empty list");
    for (const json& v : d.at("choice"))
      check(v.is_number() || v.is_string() || v.is_boolean(), at + ".choice: values are numbers, strings or booleans");
    return;
  }
  check(kind == "uniform" || kind == "log_uniform" || kind == "int",
        at + ": unknown distribution '" + kind + "' (uniform, log_uniform, int, choice)");
  const auto [lo, hi] = bounds(d.at(kind), at + "." + kind);
  if (kind == "log_uniform") check(lo > 0, at + ".log_uniform needs low > 0");
  if (kind == "int") check(std::floor(lo) == lo && std::floor(hi) == hi, at + ".int bounds must be integers");
}

// Draw number `draw` of `key` (stream k of the search seed).
std::string draw_value(const json& d, uint64_t seed, uint64_t stream, uint64_t draw) {
  const std::string kind = d.begin().key();
  const double u = static_cast<double>(random_u32(seed, stream, draw)) / 4294967296.0;  // [0, 1)
  if (kind == "choice") {
    const json& v = d.at("choice")[static_cast<size_t>(u * static_cast<double>(d.at("choice").size()))];
    return v.is_string() ? v.get<std::string>() : v.dump();
  }
  const double lo = d.at(kind)[0].get<double>(), hi = d.at(kind)[1].get<double>();
  if (kind == "int") return std::to_string(static_cast<int64_t>(lo + std::floor(u * (hi - lo + 1))));
  if (kind == "log_uniform") return real_text(std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo))));
  return real_text(lo + u * (hi - lo));
}

}  // namespace

std::vector<Variant> grid_variants(const std::vector<std::string>& grid) {
  std::vector<Axis> axes;
  std::set<std::string> keys;
  for (const std::string& g : grid) {
    axes.push_back(parse_axis(g));
    check(keys.insert(axes.back().key).second, "--grid names '" + axes.back().key + "' twice");
  }
  std::vector<Variant> out;
  if (axes.empty()) return out;
  std::vector<size_t> at(axes.size(), 0);
  while (true) {
    Variant v{variant_id(out.size()), {}};
    for (size_t i = 0; i < axes.size(); i++) v.set.push_back(axes[i].key + "=" + axes[i].values[at[i]]);
    out.push_back(std::move(v));
    size_t i = axes.size();
    while (i > 0 && ++at[i - 1] == axes[i - 1].values.size()) at[--i] = 0;
    if (i == 0) break;
  }
  return out;
}

SearchSpace search_space_from_json(const json& j, const std::string& where) {
  check(j.is_object() && !j.empty(), where + ": a search space is a non-empty JSON object {key: distribution}");
  for (const auto& [key, d] : j.items()) check_distribution(key, d, where);
  return {j};
}

SearchSpace read_search_space(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  json j;
  try {
    j = nanotrn::parse_json(bytes);
  } catch (const json::exception& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
  return search_space_from_json(j, path);
}

std::vector<Variant> random_variants(const SearchSpace& space, int count, uint64_t seed) {
  check(count >= 1, "--random needs at least 1 draw");
  std::vector<Variant> out;
  for (int n = 0; n < count; n++) {
    Variant v{variant_id(static_cast<size_t>(n)), {}};
    uint64_t stream = 0;
    for (const auto& [key, d] : space.spec.items())
      v.set.push_back(key + "=" + draw_value(d, seed, stream++, static_cast<uint64_t>(n)));
    out.push_back(std::move(v));
  }
  return out;
}

std::string describe(const Variant& v) {
  if (v.set.empty()) return "(the recipe as given)";
  std::string s;
  for (const std::string& x : v.set) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace nanotrn::sweep
