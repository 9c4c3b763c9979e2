// Gathering and writing a run folder's HTML report. See run_report.h.
#include "report/run_report.h"
#include "base/json_parse.h"

#include <cmath>
#include <filesystem>

#include "base/error.h"
#include "base/file.h"
#include "base/utf8.h"
#include "base/version.h"
#include "hw/catalog.h"
#include "report/baseline.h"

namespace nanotrn::report {

namespace fs = std::filesystem;

namespace {

nlohmann::json read_json_file(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  try {
    return nanotrn::parse_json(bytes);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path + ": not valid JSON (" + e.what() + ")");
  }
}

// core.json as `eval core` writes it: {"core": number, "tasks": [{"label": string, "centered": number, ...}]}.
// Anything else is an Error naming the file and the field, not undefined behaviour in the page.
nlohmann::json read_core_json(const std::string& path) {
  const nlohmann::json j = read_json_file(path);
  const auto require = [&](bool ok, const std::string& what) {
    check(ok, path + ": " + what + " (not core.json as `nanotrn eval core` writes it)");
  };
  require(j.is_object(), "not a JSON object");
  require(j.contains("core") && j["core"].is_number(), "no \"core\" number");
  require(j.contains("tasks") && j["tasks"].is_array(), "no \"tasks\" list");
  for (size_t i = 0; i < j["tasks"].size(); ++i) {
    const nlohmann::json& t = j["tasks"][i];
    const std::string at = "task " + std::to_string(i) + ": ";
    require(t.is_object() && t.contains("label") && t["label"].is_string(), at + "no \"label\" string");
    const std::string label = t["label"].get<std::string>();
    require(find_invalid_utf8(label) == std::string::npos && find_control_character(label) == std::string::npos,
            at + "the label is not printable UTF-8 text");
    for (const char* key : {"centered", "accuracy"})
      require(!t.contains(key) || t[key].is_number(), at + "\"" + key + "\" is not a number");
    for (const char* key : {"num_fewshot", "examples"})
      require(!t.contains(key) || t[key].is_number_integer(), at + "\"" + key + "\" is not an integer");
  }
  return j;
}

}  // namespace

std::vector<predict::Prediction> predict_on_devices(recipe::Recipe recipe, const std::vector<std::string>& devices,
                                                    const std::string& budget) {
  recipe.train.budget = recipe::Duration::parse(budget);  // a bad budget fails before any device is priced
  recipe.train.steps = 0;
  const hw::Catalog catalog = hw::builtin_catalog();
  std::vector<predict::Prediction> out;
  for (const std::string& d : devices) out.push_back(predict::predict(recipe, catalog.find(d)));
  return out;
}

ReportInputs gather_run_report(const std::string& run_dir, const RunReportOptions& o) {
  check(fs::is_directory(run_dir), "report: " + run_dir + " is not a folder (give a run folder: train --out DIR)");
  const std::string metrics = run_dir + "/metrics.jsonl";
  check(fs::exists(metrics), "report: " + metrics + " not found (is " + run_dir + " a run folder?)");
  ReportInputs in;
  in.metrics = read_run_metrics(metrics);
  in.source = fs::absolute(run_dir).lexically_normal().string();
  in.generated_by = version_line();
  const recipe::Recipe recipe = recipe::recipe_from_json(in.metrics.recipe);
  in.title = o.title.empty() ? "nanotrn run report: " + recipe.name : o.title;
  if (std::isfinite(o.unigram_bpb)) {
    in.unigram_bpb = o.unigram_bpb;
  } else {
    const Baseline b = unigram_baseline(recipe);
    in.unigram_bpb = b.bpb;
    in.unigram_why = b.why;
  }
  if (fs::exists(run_dir + "/core.json")) in.core = read_core_json(run_dir + "/core.json");
  in.predictions = predict_on_devices(recipe, o.devices, o.budget);
  return in;
}

RunReportWritten write_run_report(const std::string& run_dir, const RunReportOptions& o) {
  RunReportWritten w;
  w.path = o.output.empty() ? run_dir + "/report.html" : o.output;
  const ReportInputs in = gather_run_report(run_dir, o);
  if (!in.metrics.torn_tail.empty()) w.notes.push_back(in.metrics.torn_tail);
  const std::string html = run_report_html(in);
  write_file_atomic(w.path, html.data(), html.size());
  return w;
}

}  // namespace nanotrn::report
