// A sweep's plan. See plan.h.
#include "sweep/plan.h"
#include "base/json_parse.h"

#include <cmath>
#include <set>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn::sweep {
namespace {

using nlohmann::json;

template <class T>
T field(const json& j, const char* key, const std::string& where) {
  check(j.contains(key), where + ": '" + key + "' is missing");
  try {
    return j.at(key).get<T>();
  } catch (const json::exception& e) {
    throw Error(where + ": '" + key + "' has the wrong type: " + e.what());
  }
}

std::vector<Variant> variants_from_json(const json& j, const std::string& where) {
  check(j.is_array() && !j.empty(), where + ": 'variants' must be a non-empty list");
  std::vector<Variant> out;
  std::set<std::string> ids;
  for (const json& v : j) {
    check(v.is_object(), where + ": a variant is an object {id, set}");
    Variant x{field<std::string>(v, "id", where), field<std::vector<std::string>>(v, "set", where)};
    check(!x.id.empty() && ids.insert(x.id).second, where + ": variant ids must be unique and non-empty");
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace

std::vector<std::string> all_variant_ids(const SweepPlan& p) {
  std::vector<std::string> ids;
  for (const Variant& v : p.variants) ids.push_back(v.id);
  return ids;
}

const Variant& variant_of(const SweepPlan& p, const std::string& id) {
  for (const Variant& v : p.variants)
    if (v.id == id) return v;
  throw Error("sweep plan: no variant '" + id + "'");
}

int rung_count(const SweepPlan& p) { return p.halving.on ? p.halving.rungs : 1; }

double rung_fraction(const SweepPlan& p, int rung) {
  return std::pow(static_cast<double>(p.halving.eta), static_cast<double>(rung - (rung_count(p) - 1)));
}

std::vector<Trial> rung_trials(const SweepPlan& p, int rung, const std::vector<std::string>& variants) {
  std::vector<Trial> out;
  for (const std::string& id : variants) {
    const Variant& v = variant_of(p, id);
    for (int k = 0; k < p.seeds; k++) {
      Trial t;
      t.variant = id;
      t.seed = p.base_seed + static_cast<uint64_t>(k);
      t.id = id + "-s" + std::to_string(k) + (p.halving.on ? "-r" + std::to_string(rung) : "");
      t.set = v.set;
      t.set.push_back("seed=" + std::to_string(t.seed));
      t.rung = rung;
      t.budget_fraction = rung_fraction(p, rung);
      out.push_back(std::move(t));
    }
  }
  return out;
}

json plan_to_json(const SweepPlan& p) {
  json variants = json::array();
  for (const Variant& v : p.variants) variants.push_back({{"id", v.id}, {"set", v.set}});
  return {{"format", "nanotrn sweep plan 1"},
          {"recipe", p.recipe},
          {"sets", p.sets},
          {"clock", p.clock},
          {"device", p.device},
          {"budget", p.budget},
          {"base_seed", p.base_seed},
          {"seeds", p.seeds},
          {"workers", p.workers},
          {"threads", p.threads},
          {"core", p.core},
          {"core_bundle", p.core_bundle},
          {"core_max_per_task", p.core_max_per_task},
          {"halving", {{"on", p.halving.on}, {"eta", p.halving.eta}, {"rungs", p.halving.rungs}}},
          {"search", p.search},
          {"variants", variants},
          {"baseline", p.baseline}};
}

SweepPlan plan_from_json(const json& j, const std::string& where) {
  check(j.is_object(), where + ": a sweep plan is a JSON object");
  check(j.value("format", "") == "nanotrn sweep plan 1", where + ": not a nanotrn sweep plan (format)");
  SweepPlan p;
  p.recipe = field<std::string>(j, "recipe", where);
  p.sets = field<std::vector<std::string>>(j, "sets", where);
  p.clock = field<std::string>(j, "clock", where);
  p.device = field<std::string>(j, "device", where);
  p.budget = field<std::string>(j, "budget", where);
  p.base_seed = field<uint64_t>(j, "base_seed", where);
  p.seeds = field<int>(j, "seeds", where);
  p.workers = field<int>(j, "workers", where);
  p.threads = field<int>(j, "threads", where);
  p.core = field<bool>(j, "core", where);
  p.core_bundle = field<std::string>(j, "core_bundle", where);
  p.core_max_per_task = field<int64_t>(j, "core_max_per_task", where);
  const json h = field<json>(j, "halving", where);
  p.halving = {field<bool>(h, "on", where), field<int>(h, "eta", where), field<int>(h, "rungs", where)};
  p.search = field<json>(j, "search", where);
  p.variants = variants_from_json(field<json>(j, "variants", where), where);
  p.baseline = field<std::string>(j, "baseline", where);
  check(p.seeds >= 1 && p.workers >= 1 && p.threads >= 0, where + ": seeds and workers must be >= 1, threads >= 0");
  check(!p.halving.on || (p.halving.eta >= 2 && p.halving.rungs >= 2), where + ": halving needs eta >= 2, rungs >= 2");
  variant_of(p, p.baseline);
  return p;
}

void write_plan(const std::string& dir, const SweepPlan& p) {
  const std::string text = plan_to_json(p).dump(2) + "\n";
  write_file_atomic(dir + "/sweep.json", text.data(), text.size());
}

SweepPlan read_plan(const std::string& dir) {
  const std::string path = dir + "/sweep.json";
  const std::vector<uint8_t> bytes = read_file(path);
  json j;
  try {
    j = nanotrn::parse_json(bytes);
  } catch (const json::exception& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
  return plan_from_json(j, path);
}

}  // namespace nanotrn::sweep
