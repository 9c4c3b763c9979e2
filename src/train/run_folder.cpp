// The run folder. See run_folder.h.
#include "train/run_folder.h"
#include "base/json_parse.h"

#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn::train {

namespace {

namespace fs = std::filesystem;

constexpr const char* kRunFiles[] = {"checkpoint.safetensors", "metrics.jsonl"};

// "recipe NAME, finished at step N" (or "last logged step N" for an unfinished run) from metrics.jsonl's events;
// "" when it says neither.
std::string metrics_summary(const std::string& path) {
  std::ifstream in(path);
  std::string name, where, line;
  while (std::getline(in, line)) {
    const nlohmann::json j = nanotrn::parse_json_or_discarded(line);
    if (!j.is_object()) continue;
    const std::string event = j.contains("event") && j["event"].is_string() ? j["event"].get<std::string>() : "";
    if (event == "start" && j.contains("recipe") && j["recipe"].is_object() && j["recipe"].contains("name") &&
        j["recipe"]["name"].is_string())
      name = j["recipe"]["name"].get<std::string>();
    if (event == "step" && j.contains("step") && j["step"].is_number_integer())
      where = "last logged step " + std::to_string(j["step"].get<int64_t>());
    if (event == "summary" && j.contains("steps") && j["steps"].is_number_integer())
      where = "finished at step " + std::to_string(j["steps"].get<int64_t>());
  }
  std::string out = name.empty() ? "" : "recipe " + name;
  if (!where.empty()) out += (out.empty() ? "" : ", ") + where;
  return out;
}

}  // namespace

std::string describe_run_folder(const std::string& dir) {
  std::vector<std::string> present;
  for (const char* f : kRunFiles) {
    std::error_code ec;
    if (fs::exists(fs::path(dir) / f, ec)) present.emplace_back(f);
  }
  if (present.empty()) return "";
  std::string out = present[0];
  for (size_t i = 1; i < present.size(); i++) out += " and " + present[i];
  const std::string summary = metrics_summary((fs::path(dir) / "metrics.jsonl").string());
  return summary.empty() ? out : out + " (" + summary + ")";
}

void prepare_run_folder(const std::string& dir, RunFolderUse use) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  check(!ec, "cannot create the run folder " + dir + ": " + ec.message());
  // A FIFO or device in a run file's place would block the first read or write (even SIGTERM could not end it).
  for (const char* f : kRunFiles) check_regular_or_absent((fs::path(dir) / f).string());
  if (use == RunFolderUse::resume) return;
  const std::string there = describe_run_folder(dir);
  if (there.empty()) return;
  check(use == RunFolderUse::overwrite, dir + " already holds a run: " + there + "; pass --resume " + dir +
                                            "/checkpoint.safetensors to continue it, --overwrite to replace it, or "
                                            "--out with another folder");
  for (const char* f : kRunFiles) {
    fs::remove(fs::path(dir) / f, ec);
    check(!ec, "cannot remove " + (fs::path(dir) / f).string() + " to overwrite the run: " + ec.message());
  }
}

}  // namespace nanotrn::train
