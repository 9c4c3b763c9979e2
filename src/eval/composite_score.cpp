// The Phase 2 composite score. See composite_score.h.
#include "eval/composite_score.h"
#include "base/json_parse.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <system_error>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kExpected =
    "a result file is a JSON object with \"val_bpb\" and \"params\", and \"core\" once CORE is scored";

// The file a RESULT argument names: itself, or FOLDER/result.json.
std::string result_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return path;
  const std::string file = (fs::path(path) / "result.json").string();
  check(fs::exists(file, ec), "'" + path + "' is a folder without a result.json (looked for '" + file + "')");
  return file;
}

json parse_json(const std::string& file) {
  const std::vector<uint8_t> bytes = read_file(file);
  json j = nanotrn::parse_json_or_discarded(bytes);
  if (!j.is_discarded()) return j;
  // Parse again with exceptions for the byte position of the error, noting the last key read: a value JSON cannot
  // hold ("val_bpb": NaN, or 1e400, beyond a double) fails right after its key.
  std::string last_key;
  const auto note_key = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key && parsed.is_string()) last_key = parsed.get<std::string>();
    return true;
  };
  const auto where = [&] { return last_key.empty() ? std::string() : " (the last key read: \"" + last_key + "\")"; };
  try {
    nanotrn::check_json_depth({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
    j = json::parse(bytes.begin(), bytes.end(), note_key);
  } catch (const json::parse_error& e) {
    throw Error(file + ": byte " + std::to_string(e.byte) + ": not valid JSON" + where() + ": " + e.what());
  } catch (const json::exception& e) {  // out_of_range: a number too large for a double ("1e400")
    throw Error(file + ": not valid JSON" + where() + ": " + e.what());
  }
  throw Error(file + ": not valid JSON");
}

// A JSON value for a message: its type, and the value itself unless it is null or a container.
std::string describe(const json& v) {
  if (v.is_null() || v.is_structured()) return v.type_name();
  return std::string(v.type_name()) + " " + v.dump();
}

const json& required_key(const json& j, const std::string& file, const char* key) {
  const auto it = j.find(key);
  check(it != j.end(), file + ": missing key \"" + key + "\" (" + kExpected + ")");
  return *it;
}

double finite_number(const json& j, const std::string& file, const char* key) {
  const json& v = required_key(j, file, key);
  check(v.is_number(), file + ": key \"" + key + "\" must be a number, got " + describe(v));
  const double x = v.get<double>();
  check(std::isfinite(x), file + ": key \"" + key + "\" must be finite, got " + v.dump());
  return x;
}

int64_t positive_count(const json& j, const std::string& file, const char* key) {
  const json& v = required_key(j, file, key);
  check(v.is_number_integer(), file + ": key \"" + key + "\" must be an integer, got " + describe(v));
  check(!v.is_number_unsigned() || v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
        file + ": key \"" + key + "\" is too large: " + v.dump());
  const int64_t n = v.get<int64_t>();
  check(n > 0, file + ": key \"" + key + "\" must be > 0, got " + v.dump());
  return n;
}

// (x - lo) / (hi - lo), or the middle of the scale when the range is zero (see the header for why). Subtracting
// from the worst end keeps the worst run's part +0, never -0.
double part(double distance_from_worst, double range) { return range == 0.0 ? 0.5 : distance_from_worst / range; }

}  // namespace

const char* tie_break_name(TieBreak t) {
  switch (t) {
    case TieBreak::none:
      return "none";
    case TieBreak::params:
      return "params";
    case TieBreak::input_order:
      return "input order";
  }
  return "?";
}

RunResult read_run_result(const std::string& path) {
  const std::string file = result_file(path);
  const json j = parse_json(file);
  check(j.is_object(), file + ": " + kExpected + ", got " + j.type_name());
  RunResult r;
  r.name = file;
  if (const auto it = j.find("name"); it != j.end()) {
    check(it->is_string(), file + ": key \"name\" must be a string, got " + describe(*it));
    r.name = it->get<std::string>();
    check(!r.name.empty(), file + ": key \"name\" is empty (leave it out to name the run after the file)");
  }
  r.val_bpb = finite_number(j, file, "val_bpb");
  r.has_core = j.contains("core");
  r.core = r.has_core ? finite_number(j, file, "core") : 0.0;
  r.params = positive_count(j, file, "params");
  return r;
}

std::vector<RunResult> read_run_results(const std::vector<std::string>& paths) {
  std::vector<RunResult> runs;
  std::vector<std::string> files;
  for (size_t i = 0; i < paths.size(); ++i) {
    runs.push_back(read_run_result(paths[i]));
    files.push_back(result_file(paths[i]));
    for (size_t k = 0; k < i; ++k) {
      std::error_code ec;
      check(!fs::equivalent(files[k], files[i], ec), "'" + paths[i] + "' and '" + paths[k] + "' are the same file ('" +
                                                         files[i] + "'): each run is scored once");
    }
  }
  return runs;
}

std::vector<RankedRun> composite_score(std::vector<RunResult> runs) {
  check(!runs.empty(), "composite score: no runs to score");
  for (const RunResult& r : runs) {
    check(std::isfinite(r.val_bpb), "composite score: run '" + r.name + "': val_bpb is not finite");
    check(!r.has_core || std::isfinite(r.core), "composite score: run '" + r.name + "': core is not finite");
    check(r.has_core == runs.front().has_core,
          "composite score: run '" + (r.has_core ? runs.front() : r).name + "' has no CORE while run '" +
              (r.has_core ? r : runs.front()).name +
              "' has one: score CORE for every run (nanotrn eval core --ckpt RUN/checkpoint.safetensors) or for none");
    check(r.params > 0, "composite score: run '" + r.name + "': params must be > 0, got " + std::to_string(r.params));
  }
  const auto [bpb_lo, bpb_hi] =
      std::minmax_element(runs.begin(), runs.end(), [](auto& a, auto& b) { return a.val_bpb < b.val_bpb; });
  const auto [core_lo, core_hi] =
      std::minmax_element(runs.begin(), runs.end(), [](auto& a, auto& b) { return a.core < b.core; });
  const double bpb_best = bpb_lo->val_bpb, bpb_worst = bpb_hi->val_bpb;
  const double core_worst = core_lo->core, core_best = core_hi->core;
  check(std::isfinite(bpb_worst - bpb_best) && std::isfinite(core_best - core_worst),
        "composite score: the range of val_bpb or core overflows a double");

  const double scale = std::pow(10.0, composite_digits);
  const auto rounded = [scale](double x) { return std::round(x * scale) / scale; };
  std::vector<RankedRun> out;
  out.reserve(runs.size());
  for (RunResult& r : runs) {
    RankedRun k;
    const double bpb_part = part(bpb_worst - r.val_bpb, bpb_worst - bpb_best);
    const double core_part = part(r.core - core_worst, core_best - core_worst);
    k.bpb_part = rounded(bpb_part);
    k.core_part = rounded(core_part);
    k.composite = rounded(0.5 * bpb_part + 0.5 * core_part);
    k.run = std::move(r);
    out.push_back(std::move(k));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    for (size_t j = 0; j < out.size(); ++j) {
      if (i == j || out[i].composite != out[j].composite) continue;
      if (out[i].run.params == out[j].run.params) {
        out[i].tie = TieBreak::input_order;
        break;
      }
      out[i].tie = TieBreak::params;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const RankedRun& a, const RankedRun& b) {
    if (a.composite != b.composite) return a.composite > b.composite;
    return a.run.params < b.run.params;
  });
  for (size_t i = 0; i < out.size(); ++i) out[i].rank = static_cast<int>(i) + 1;
  return out;
}

}  // namespace nanotrn
