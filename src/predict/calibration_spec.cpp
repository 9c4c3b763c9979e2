// Reading a calibration's runs. See calibration.h.
#include <algorithm>
#include <filesystem>
#include <set>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"
#include "neuron/registry/kernel_run.h"
#include "predict/calibration.h"
#include "recipe/recipe_paths.h"

namespace nanotrn::predict {
namespace {

using nlohmann::json;

void only_keys(const json& j, const std::set<std::string>& keys, const std::string& where) {
  for (const auto& [k, v] : j.items()) {
    if (keys.count(k)) continue;
    std::string known;
    for (const std::string& x : keys) known += (known.empty() ? "" : ", ") + x;
    throw Error(where + ": unknown key '" + k + "' (known: " + known + ")");
  }
}

std::string text_of(const json& j, const char* key, const std::string& where, bool required) {
  if (!j.contains(key)) {
    check(!required, where + ": " + key + " is missing");
    return "";
  }
  check(j.at(key).is_string(), where + ": " + key + " must be a string");
  return j.at(key).get<std::string>();
}

double positive_of(const json& j, const char* key, const std::string& where) {
  check(j.contains(key) && j.at(key).is_number(), where + ": " + key + " must be a number (seconds)");
  const double v = j.at(key).get<double>();
  check(v > 0 && std::isfinite(v), where + ": " + key + " must be positive and finite");
  return v;
}

void read_call(const json& c, CalibrationRun& run, const std::string& where) {
  check(c.is_object(), where + ": call must be an object {\"matmul\": [m, k, n], \"dtype\": \"f32\"}");
  only_keys(c, {"matmul", "dtype"}, where + ".call");
  check(c.contains("matmul") && c.at("matmul").is_array() && c.at("matmul").size() == 3,
        where + ": call.matmul must be [m, k, n]");
  for (const json& x : c.at("matmul")) {
    check(x.is_number_integer() && x.get<int64_t>() >= 1 && x.get<int64_t>() <= (int64_t{1} << 20),
          where + ": call.matmul sizes must be integers in [1, 2^20]");
    run.call_matmul.push_back(x.get<int64_t>());
  }
  run.call_dtype = neuron::kernel_dtype(c.contains("dtype") ? text_of(c, "dtype", where + ".call", true) : "f32");
}

void read_recipe_run(const json& j, CalibrationRun& run, const std::string& where, const Home& home) {
  std::vector<std::string> sets;
  if (j.contains("set")) {
    check(j.at("set").is_array(), where + ": set must be a list of \"key=value\" strings");
    for (const json& s : j.at("set")) {
      check(s.is_string(), where + ": set must be a list of \"key=value\" strings");
      sets.push_back(s.get<std::string>());
    }
  }
  try {
    run.recipe = recipe::open_recipe(text_of(j, "recipe", where, true), sets, home);
  } catch (const Error& e) {
    throw Error(where + ": " + e.message());
  }
  if (j.contains("phase")) {
    check(j.at("phase").is_number_integer(), where + ": phase must be an integer");
    run.phase = j.at("phase").get<int64_t>();
  }
  check(run.phase >= 0 && static_cast<size_t>(run.phase) < run.recipe->batch.phases.size(),
        where + ": phase " + std::to_string(run.phase) + ": the recipe has " +
            std::to_string(run.recipe->batch.phases.size()) + " batch phase(s)");
  if (j.contains("mtp_heads")) {
    check(j.at("mtp_heads").is_number_integer() && j.at("mtp_heads").get<int>() >= 1 &&
              static_cast<size_t>(j.at("mtp_heads").get<int>()) <= run.recipe->train.mtp_weights.size(),
          where + ": mtp_heads must be between 1 and the recipe's MTP heads");
    run.mtp_heads = j.at("mtp_heads").get<int>();
  }
  run.measured_s = positive_of(j, "step_s", where);
}

CalibrationRun read_run(const json& j, size_t index, const std::string& origin, const Home& home) {
  std::string where = origin + ": runs[" + std::to_string(index) + "]";
  check(j.is_object(), where + ": a run is an object");
  only_keys(j,
            {"label", "source", "recipe", "set", "device", "phase", "mtp_heads", "step_s", "compile_s", "call",
             "call_s", "held_out"},
            where);
  CalibrationRun run;
  run.spec = j;
  run.label = text_of(j, "label", where, false);
  if (run.label.empty()) run.label = "run " + std::to_string(index);
  where = origin + ": run '" + run.label + "'";
  run.source = text_of(j, "source", where, false);
  run.device = text_of(j, "device", where, true);
  const hw::Device d = hw::builtin_catalog().find(run.device);
  check(d.kind == hw::DeviceKind::trainium,
        where + ": device '" + run.device + "' is not a Trainium device (stack profiles describe Trainium software)");
  check(j.contains("call") != j.contains("recipe"), where + ": a run has either a recipe (a step) or a call");
  if (j.contains("call")) {
    check(!j.contains("step_s") && !j.contains("set") && !j.contains("phase") && !j.contains("compile_s"),
          where + ": a call run takes call and call_s only");
    read_call(j.at("call"), run, where);
    run.measured_s = positive_of(j, "call_s", where);
  } else {
    check(!j.contains("call_s"), where + ": call_s belongs to a call run; a recipe run measures step_s");
    read_recipe_run(j, run, where, home);
  }
  if (j.contains("compile_s")) run.compile_s = positive_of(j, "compile_s", where);
  if (j.contains("held_out")) {
    check(j.at("held_out").is_boolean(), where + ": held_out must be true or false");
    run.held_out = j.at("held_out").get<bool>();
  }
  return run;
}

}  // namespace

CalibrationSpec calibration_spec_from_json(const json& j, const std::string& origin, const Home& home) {
  check(j.is_object(), origin + ": a calibration is a JSON object {\"base\": ..., \"runs\": [...]}");
  only_keys(j, {"base", "name", "description", "fit", "runs"}, origin);
  CalibrationSpec s;
  s.origin = origin;
  s.base_name = text_of(j, "base", origin, true);
  s.base = recipe::resolve_stack(s.base_name);
  s.name = text_of(j, "name", origin, false);
  s.description = text_of(j, "description", origin, false);
  if (j.contains("fit")) {
    check(j.at("fit").is_array() && !j.at("fit").empty(), origin + ": fit must be a non-empty list of parameter names");
    for (const json& f : j.at("fit")) {
      check(f.is_string(), origin + ": fit must be a list of parameter names");
      const std::string n = f.get<std::string>();
      check(n == "scale" || recipe::stack_param_named(n).has_value(),
            origin + ": fit: unknown parameter '" + n + "' (scale, or a stack parameter: matmul_efficiency, ...)");
      check(n != "compile_s_per_instruction",
            origin + ": fit: compile_s_per_instruction is fitted from the runs' compile_s, not listed");
      s.fit.push_back(n);
    }
  }
  check(j.contains("runs") && j.at("runs").is_array() && !j.at("runs").empty(),
        origin + ": runs must be a non-empty list");
  for (size_t i = 0; i < j.at("runs").size(); i++) s.runs.push_back(read_run(j.at("runs")[i], i, origin, home));
  check(std::any_of(s.runs.begin(), s.runs.end(), [](const CalibrationRun& r) { return !r.held_out; }),
        origin + ": every run is held out; at least one must be fitted");
  return s;
}

CalibrationSpec read_calibration_spec(const std::string& path, const Home& home) {
  const std::vector<uint8_t> bytes = read_file(path);
  json j;
  try {
    j = nanotrn::parse_json(bytes);
  } catch (const json::parse_error& e) {
    throw Error(path + ": byte " + std::to_string(e.byte) + ": not valid JSON: " + e.what());
  } catch (const json::exception& e) {
    throw Error(path + ": not valid JSON: " + e.what());
  }
  return calibration_spec_from_json(j, path, home);
}

}  // namespace nanotrn::predict
