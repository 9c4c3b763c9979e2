// Software-stack profiles. See stack_profile.h.
#include "recipe/stack_profile.h"
#include "base/json_parse.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn::recipe {

using nlohmann::json;

namespace {

// The shipped profiles' texts, {name, JSON}: generated from configs/stacks/*.json (cmake/embed_json.cmake).
const std::vector<std::pair<std::string, std::string>>& builtin_texts() {
  static const std::vector<std::pair<std::string, std::string>> texts = {
#include "recipe/stacks.json.inc"
  };
  return texts;
}

const std::map<std::string, std::string, std::less<>>& aliases() {
  static const std::map<std::string, std::string, std::less<>> a = {{"compiled", "torchneuron-compiled"},
                                                                    {"eager", "torchneuron-eager"}};
  return a;
}

// The closed range of each parameter: efficiencies are positive multipliers of speed; times are seconds.
struct ParamRange {
  double lo, hi;
  bool open_lo;
};
ParamRange range_of(StackParam p) {
  switch (p) {
    case StackParam::matmul_efficiency:
    case StackParam::attention_efficiency:
    case StackParam::vector_efficiency:
    case StackParam::collective_efficiency:
      return {0.0, 10.0, true};
    case StackParam::dma_contention:
      return {0.0, 10.0, false};
    case StackParam::graph_launch_s:
    case StackParam::op_dispatch_s:
    case StackParam::step_overhead_s:
      return {0.0, 1e3, false};
    case StackParam::compile_s_per_instruction:
      return {0.0, 1.0, false};
  }
  return {0.0, 0.0, false};
}

using Lookup = std::function<const StackProfile&(std::string_view name)>;

Sourced read_number(const json& j, const std::string& field, const std::string& where, const Lookup& lookup,
                    std::optional<StackParam> param) {
  check(j.is_object(), where + ": " + field + " must be an object {value, source} or {from, why}");
  if (j.contains("from")) {
    check(param.has_value(), where + ": " + field + " cannot take its value from another profile");
    for (const auto& [k, v] : j.items())
      check(k == "from" || k == "why", where + ": " + field + ": unknown key '" + k + "' (from, why)");
    check(j.at("from").is_string() && j.contains("why") && j.at("why").is_string() &&
              !j.at("why").get<std::string>().empty(),
          where + ": " + field + ": {\"from\": \"<shipped profile>\", \"why\": \"<reason>\"}, both strings");
    const std::string from = j.at("from").get<std::string>();
    const Sourced& s = lookup(from).param(*param);
    return {s.value, "from " + from + " (" + s.source + "); " + j.at("why").get<std::string>()};
  }
  for (const auto& [k, v] : j.items())
    check(k == "value" || k == "source", where + ": " + field + ": unknown key '" + k + "' (value, source)");
  check(j.contains("value") && j.at("value").is_number(), where + ": " + field + ".value must be a number");
  check(j.contains("source") && j.at("source").is_string() && !j.at("source").get<std::string>().empty(),
        where + ": " + field + ".source must be a non-empty string (where the number comes from)");
  const double v = j.at("value").get<double>();
  check(std::isfinite(v), where + ": " + field + ".value must be finite");
  return {v, j.at("source").get<std::string>()};
}

void check_range(const Sourced& s, StackParam p, const std::string& where) {
  const ParamRange r = range_of(p);
  const bool ok = (r.open_lo ? s.value > r.lo : s.value >= r.lo) && s.value <= r.hi;
  check(ok, where + ": parameters." + std::string(to_string(p)) + " = " + std::to_string(s.value) + " is outside " +
                (r.open_lo ? "(" : "[") + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]");
}

void read_parameters(const json& j, StackProfile& p, const std::string& where, const Lookup& lookup) {
  check(j.is_object(), where + ": parameters must be an object");
  std::set<std::string> seen;
  for (const auto& [k, v] : j.items()) {
    const std::optional<StackParam> sp = stack_param_named(k);
    if (!sp) {
      std::string known;
      for (StackParam q : all_stack_params()) known += (known.empty() ? "" : ", ") + std::string(to_string(q));
      throw Error(where + ": unknown parameter '" + k + "' (known: " + known + ")");
    }
    p.param(*sp) = read_number(v, "parameters." + k, where, lookup, sp);
    check_range(p.param(*sp), *sp, where);
    seen.insert(k);
  }
  for (StackParam q : all_stack_params())
    check(seen.count(std::string(to_string(q))) > 0,
          where + ": parameters." + std::string(to_string(q)) + " is missing (every parameter is stated)");
}

void read_band(const json& j, StackProfile& p, const std::string& where, const Lookup& lookup) {
  check(j.is_object(), where + ": band must be an object {low, high}");
  for (const auto& [k, v] : j.items()) check(k == "low" || k == "high", where + ": band: unknown key '" + k + "'");
  check(j.contains("low") && j.contains("high"), where + ": band needs low and high");
  p.band_low = read_number(j.at("low"), "band.low", where, lookup, std::nullopt);
  p.band_high = read_number(j.at("high"), "band.high", where, lookup, std::nullopt);
  check(p.band_low.value > 0 && p.band_low.value <= 1.0,
        where + ": band.low must be in (0, 1] (a multiplier of the predicted step time)");
  check(p.band_high.value >= 1.0 && p.band_high.value <= 100.0, where + ": band.high must be in [1, 100]");
}

StackProfile parse_profile(const json& j, const std::string& where, const Lookup& lookup) {
  check(j.is_object(), where + ": a stack profile is a JSON object");
  static const std::set<std::string> keys = {"name", "description", "execution", "parameters", "band", "fit"};
  for (const auto& [k, v] : j.items())
    check(keys.count(k) > 0, where + ": unknown key '" + k + "' (name, description, execution, parameters, band, fit)");
  for (const char* k : {"name", "description", "execution"})
    check(j.contains(k) && j.at(k).is_string(), where + ": " + k + " must be a string");
  StackProfile p;
  p.name = j.at("name").get<std::string>();
  check(!p.name.empty(), where + ": name must not be empty");
  p.description = j.at("description").get<std::string>();
  const std::string ex = j.at("execution").get<std::string>();
  check(ex == "compiled" || ex == "eager", where + ": execution must be compiled or eager, got '" + ex + "'");
  p.execution = ex == "eager" ? Execution::eager : Execution::compiled;
  check(j.contains("parameters"), where + ": parameters is missing");
  read_parameters(j.at("parameters"), p, where, lookup);
  check(j.contains("band"), where + ": band is missing");
  read_band(j.at("band"), p, where, lookup);
  if (j.contains("fit")) {
    check(j.at("fit").is_object() || j.at("fit").is_null(), where + ": fit must be an object or null");
    p.fit = j.at("fit");
  }
  return p;
}

// Parses the shipped profiles in any order, resolving "from" references on demand (a cycle is an Error).
std::vector<StackProfile> parse_builtins() {
  std::map<std::string, StackProfile, std::less<>> done;
  std::set<std::string, std::less<>> busy;
  std::function<const StackProfile&(std::string_view)> get = [&](std::string_view name) -> const StackProfile& {
    if (auto it = done.find(name); it != done.end()) return it->second;
    check(!busy.count(name),
          "builtin stack profiles: a cycle of \"from\" references through '" + std::string(name) + "'");
    const auto& texts = builtin_texts();
    auto t = std::find_if(texts.begin(), texts.end(), [&](const auto& x) { return x.first == name; });
    check(t != texts.end(), "builtin stack profiles: \"from\" names '" + std::string(name) + "', which is not shipped");
    busy.insert(std::string(name));
    const std::string where = "builtin stack profile configs/stacks/" + t->first + ".json";
    json j;
    try {
      j = nanotrn::parse_json(t->second);
    } catch (const json::exception& e) {
      throw Error(where + ": " + e.what());
    }
    StackProfile p = parse_profile(j, where, get);
    check(p.name == t->first, where + ": name '" + p.name + "' differs from the file name");
    busy.erase(std::string(name));
    return done.emplace(t->first, std::move(p)).first->second;
  };
  std::vector<StackProfile> all;
  for (const auto& [name, text] : builtin_texts()) all.push_back(get(name));
  return all;
}

}  // namespace

std::string_view to_string(Execution e) { return e == Execution::eager ? "eager" : "compiled"; }

std::string_view to_string(StackParam p) {
  switch (p) {
    case StackParam::matmul_efficiency:
      return "matmul_efficiency";
    case StackParam::attention_efficiency:
      return "attention_efficiency";
    case StackParam::vector_efficiency:
      return "vector_efficiency";
    case StackParam::collective_efficiency:
      return "collective_efficiency";
    case StackParam::dma_contention:
      return "dma_contention";
    case StackParam::graph_launch_s:
      return "graph_launch_s";
    case StackParam::op_dispatch_s:
      return "op_dispatch_s";
    case StackParam::step_overhead_s:
      return "step_overhead_s";
    case StackParam::compile_s_per_instruction:
      return "compile_s_per_instruction";
  }
  return "?";
}

std::array<StackParam, kStackParamCount> all_stack_params() {
  std::array<StackParam, kStackParamCount> a{};
  for (int i = 0; i < kStackParamCount; i++) a[static_cast<size_t>(i)] = static_cast<StackParam>(i);
  return a;
}

std::optional<StackParam> stack_param_named(std::string_view name) {
  for (StackParam p : all_stack_params())
    if (to_string(p) == name) return p;
  return std::nullopt;
}

StackProfile stack_profile_from_json(const json& j, const std::string& where) {
  return parse_profile(j, where, [](std::string_view n) -> const StackProfile& { return builtin_stack(n); });
}

json stack_profile_to_json(const StackProfile& p) {
  json params = json::object();
  for (StackParam q : all_stack_params())
    params[std::string(to_string(q))] = {{"value", p.value(q)}, {"source", p.param(q).source}};
  json j = {{"name", p.name},
            {"description", p.description},
            {"execution", to_string(p.execution)},
            {"parameters", params},
            {"band",
             {{"low", {{"value", p.band_low.value}, {"source", p.band_low.source}}},
              {"high", {{"value", p.band_high.value}, {"source", p.band_high.source}}}}}};
  if (!p.fit.is_null()) j["fit"] = p.fit;
  return j;
}

StackProfile read_stack_profile(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  json j;
  try {
    j = nanotrn::parse_json(bytes);
  } catch (const json::exception& e) {
    throw Error("stack profile " + path + ": not valid JSON: " + e.what());
  }
  StackProfile p = stack_profile_from_json(j, "stack profile " + path);
  p.origin = path;
  return p;
}

const std::vector<StackProfile>& builtin_stacks() {
  static const std::vector<StackProfile> all = parse_builtins();
  return all;
}

bool is_builtin_stack_name(std::string_view text) {
  if (aliases().count(text)) return true;
  for (const StackProfile& p : builtin_stacks())
    if (p.name == text) return true;
  return false;
}

const StackProfile& builtin_stack(std::string_view name) {
  if (auto a = aliases().find(name); a != aliases().end()) name = a->second;
  std::string known;
  for (const StackProfile& p : builtin_stacks()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw Error("unknown stack profile '" + std::string(name) + "' (shipped: " + known +
              "; compiled and eager name the TorchNeuron ones; or give a profile file)");
}

StackProfile resolve_stack(const std::string& name_or_path) {
  if (is_builtin_stack_name(name_or_path)) return builtin_stack(name_or_path);
  const bool looks_like_path =
      name_or_path.find('/') != std::string::npos || (name_or_path.size() > 5 && name_or_path.ends_with(".json"));
  if (!looks_like_path) builtin_stack(name_or_path);  // throws naming the shipped profiles
  return read_stack_profile(name_or_path);
}

}  // namespace nanotrn::recipe
