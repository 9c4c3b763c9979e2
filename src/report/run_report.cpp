// Gathering and writing a run folder's HTML report. See run_report.h.
#include "report/run_report.h"

#include <cmath>
#include <filesystem>

#include "base/error.h"
#include "base/file.h"
#include "base/version.h"
#include "hw/catalog.h"
#include "report/baseline.h"

namespace nanotrn::report {

namespace fs = std::filesystem;

namespace {

nlohmann::json read_json_file(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  try {
    return nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path + ": not valid JSON (" + e.what() + ")");
  }
}

}  // namespace

std::vector<predict::Prediction> predict_on_devices(recipe::Recipe recipe, const std::vector<std::string>& devices,
                                                    const std::string& budget) {
  recipe::parse_duration(budget);  // a bad budget fails before any device is priced
  recipe.train.budget = budget;
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
  if (fs::exists(run_dir + "/core.json")) in.core = read_json_file(run_dir + "/core.json");
  in.predictions = predict_on_devices(recipe, o.devices, o.budget);
  return in;
}

std::string write_run_report(const std::string& run_dir, const RunReportOptions& o) {
  const std::string path = o.output.empty() ? run_dir + "/report.html" : o.output;
  const std::string html = run_report_html(gather_run_report(run_dir, o));
  write_file_atomic(path, html.data(), html.size());
  return path;
}

}  // namespace nanotrn::report
