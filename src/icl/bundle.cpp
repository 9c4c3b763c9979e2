// Reading a CORE bundle. See bundle.h.
#include "icl/bundle.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "base/utf8.h"
#include "data/jsonl.h"
#include "io/csv.h"

namespace nanotrn::icl {

namespace fs = std::filesystem;

const char* task_type_name(TaskType type) {
  switch (type) {
    case TaskType::multiple_choice:
      return "multiple_choice";
    case TaskType::schema:
      return "schema";
    case TaskType::language_modeling:
      return "language_modeling";
  }
  return "?";
}

namespace {

// A bundle's files must lie inside it once symlinks are followed: a link out of the bundle (to ~/.netrc, say) is
// refused before a byte is read, so no message ever quotes a file the user did not mean to hand over, as `../` in a
// dataset_uri is refused.
void check_inside_bundle(const std::string& dir, const std::string& path) {
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  check(!ec, "eval core: cannot resolve the bundle folder " + dir + ": " + ec.message());
  const fs::path real = fs::canonical(path, ec);
  check(!ec, "eval core: cannot resolve " + path + ": " + ec.message());
  const auto [r, p] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
  check(r == root.end(), "eval core: " + path + " leads out of the bundle (a link to " + real.string() +
                             "); every file of a bundle must lie inside " + root.string());
  check(fs::is_regular_file(real), "eval core: " + path + " is not a regular file");
}

std::string where(const std::string& name, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.is_null() ? name + ": "
                     : name + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}

std::string yaml_string(const YAML::Node& task, const char* key, const std::string& name) {
  const YAML::Node v = task[key];
  check(v.IsDefined() && !v.IsNull(), where(name, task) + "the task has no '" + key + "'");
  check(v.IsScalar(), where(name, v) + "'" + key + "' must be a string");
  return v.Scalar();
}

int64_t yaml_count(const YAML::Node& v, const std::string& name) {
  int64_t k = -1;
  const std::string& s = v.Scalar();
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), k);
  check(ec == std::errc() && ptr == s.data() + s.size() && k >= 0 && k <= 1000000,
        where(name, v) + "num_fewshot must be a whole number of shots >= 0, got '" + s + "'");
  return k;
}

TaskType parse_type(const YAML::Node& v, const std::string& name) {
  const std::string& s = v.Scalar();
  if (s == "multiple_choice") return TaskType::multiple_choice;
  if (s == "schema") return TaskType::schema;
  if (s == "language_modeling") return TaskType::language_modeling;
  throw Error(where(name, v) + "unknown icl_task_type '" + s +
              "' (CORE scores multiple_choice, schema and language_modeling)");
}

}  // namespace

std::vector<TaskSpec> parse_core_yaml(const std::string& text, const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                ": not valid YAML: " + e.msg);
  }
  check(root.IsMap(), name + ": expected a map with the key icl_tasks");
  const YAML::Node list = root["icl_tasks"];
  check(list.IsDefined() && list.IsSequence(), where(name, root) + "no icl_tasks list");
  std::vector<TaskSpec> tasks;
  std::map<std::string, int64_t> seen;
  for (const YAML::Node& t : list) {
    check(t.IsMap(), where(name, t) + "each of icl_tasks must be a map");
    TaskSpec s;
    s.label = yaml_string(t, "label", name);
    check(!s.label.empty(), where(name, t["label"]) + "the label is empty");
    s.dataset_uri = yaml_string(t, "dataset_uri", name);
    check(!s.dataset_uri.empty() && s.dataset_uri.find('\0') == std::string::npos &&
              fs::path(s.dataset_uri).is_relative() &&
              fs::path(s.dataset_uri).lexically_normal().string().rfind("..", 0) != 0,
          where(name, t["dataset_uri"]) + "dataset_uri must be a path inside eval_data/, got '" + s.dataset_uri + "'");
    yaml_string(t, "icl_task_type", name);
    s.type = parse_type(t["icl_task_type"], name);
    const YAML::Node shots = t["num_fewshot"];
    check(shots.IsDefined() && !shots.IsNull(), where(name, t) + "the task has no 'num_fewshot'");
    if (shots.IsSequence()) {
      check(shots.size() > 0 && shots[0].IsScalar(), where(name, shots) + "num_fewshot must be a list of numbers");
      s.num_fewshot = yaml_count(shots[0], name);
    } else {
      check(shots.IsScalar(), where(name, shots) + "num_fewshot must be a list of numbers");
      s.num_fewshot = yaml_count(shots, name);
    }
    const YAML::Node delim = t["continuation_delimiter"];
    if (delim.IsDefined() && !delim.IsNull()) {
      check(delim.IsScalar(), where(name, delim) + "continuation_delimiter must be a string");
      s.delimiter = delim.Scalar();
    }
    check(find_invalid_utf8(s.label + s.delimiter) == std::string::npos, where(name, t) + "text is not valid UTF-8");
    check(find_control_character(s.label) == std::string::npos,
          where(name, t["label"]) + "the label holds a control character at byte " +
              std::to_string(find_control_character(s.label)) + " (a label is printed to the terminal)");
    const auto [it, fresh] = seen.emplace(s.label, t.Mark().line + 1);
    check(fresh, where(name, t) + "the label '" + s.label + "' is also the task at line " + std::to_string(it->second));
    tasks.push_back(std::move(s));
  }
  check(!tasks.empty(), name + ": icl_tasks is empty");
  return tasks;
}

Bundle read_bundle(const std::string& dir) {
  check(fs::is_directory(dir),
        "eval core: no bundle folder " + dir + " (expected core.yaml, eval_meta_data.csv, eval_data/)");
  Bundle b{dir, {}};
  const std::string yaml_path = dir + "/core.yaml";
  check(fs::exists(yaml_path), "eval core: " + yaml_path + " is missing (is " + dir + " an eval_bundle?)");
  check_inside_bundle(dir, yaml_path);
  const std::vector<uint8_t> bytes = read_file(yaml_path);
  b.tasks = parse_core_yaml(std::string(bytes.begin(), bytes.end()), yaml_path);

  const std::string csv_path = dir + "/eval_meta_data.csv";
  check(fs::exists(csv_path), "eval core: " + csv_path + " is missing (it gives each task's random baseline)");
  check_inside_bundle(dir, csv_path);
  const io::CsvTable csv = io::read_csv(csv_path);
  const size_t task_col = csv.column("Eval Task");
  const size_t rb_col = csv.column("Random baseline");
  std::map<std::string, double> baselines;
  for (size_t r = 0; r < csv.rows.size(); ++r) {
    const std::string& cell = csv.cell(r, rb_col);
    double v = NAN;
    const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
    check(ec == std::errc() && ptr == cell.data() + cell.size() && std::isfinite(v) && v >= 0.0 && v < 100.0,
          csv_path + ":" + std::to_string(csv.row_lines[r]) + ": the random baseline of '" + csv.cell(r, task_col) +
              "' must be a percentage in [0, 100), got '" + cell + "'");
    baselines[csv.cell(r, task_col)] = v;
  }
  for (TaskSpec& t : b.tasks) {
    const auto it = baselines.find(t.label);
    check(it != baselines.end(), csv_path + ": no row for the task '" + t.label + "' (its Eval Task column)");
    t.random_baseline = it->second;
  }
  return b;
}

std::vector<TaskSpec> select_tasks(const Bundle& b, const std::vector<std::string>& labels) {
  if (labels.empty()) return b.tasks;
  std::string all;
  for (const TaskSpec& t : b.tasks) all += (all.empty() ? "" : ", ") + t.label;
  for (const std::string& l : labels) {
    bool found = false;
    for (const TaskSpec& t : b.tasks) found = found || t.label == l;
    check(found, "eval core: no task '" + l + "' in " + b.dir + "/core.yaml (it has " + all + ")");
  }
  std::vector<TaskSpec> out;
  for (const TaskSpec& t : b.tasks) {
    for (const std::string& l : labels) {
      if (t.label == l) {
        out.push_back(t);
        break;
      }
    }
  }
  return out;
}

namespace {

const nlohmann::json& field(const nlohmann::json& j, const char* key, const std::string& at) {
  const auto it = j.find(key);
  check(it != j.end(), at + "no \"" + key + "\" field");
  return *it;
}

std::string text_field(const nlohmann::json& j, const char* key, const std::string& at) {
  const nlohmann::json& v = field(j, key, at);
  check(v.is_string(), at + "\"" + key + "\" must be a string");
  return v.get<std::string>();
}

std::vector<std::string> list_field(const nlohmann::json& j, const char* key, const std::string& at) {
  const nlohmann::json& v = field(j, key, at);
  check(v.is_array() && !v.empty(), at + "\"" + key + "\" must be a non-empty list of strings");
  std::vector<std::string> out;
  for (const nlohmann::json& e : v) {
    check(e.is_string(), at + "\"" + key + "\" must be a non-empty list of strings");
    out.push_back(e.get<std::string>());
  }
  return out;
}

int64_t gold_field(const nlohmann::json& j, size_t options, const std::string& at) {
  const nlohmann::json& v = field(j, "gold", at);
  check(v.is_number_integer(), at + "\"gold\" must be an integer index");
  const int64_t g = v.get<int64_t>();
  check(g >= 0 && static_cast<size_t>(g) < options,
        at + "gold " + std::to_string(g) + " is out of range for " + std::to_string(options) + " options");
  return g;
}

}  // namespace

std::vector<Example> parse_task_examples(std::string_view content, TaskType type, const std::string& name) {
  std::vector<Example> out;
  data::for_each_jsonl_object(content, name, [&](const nlohmann::json& j, int64_t line, const std::string& at) {
    Example ex;
    ex.line = line;
    switch (type) {
      case TaskType::multiple_choice:
        ex.query = text_field(j, "query", at);
        ex.choices = list_field(j, "choices", at);
        ex.gold = gold_field(j, ex.choices.size(), at);
        break;
      case TaskType::schema:
        ex.context_options = list_field(j, "context_options", at);
        ex.continuation = text_field(j, "continuation", at);
        ex.gold = gold_field(j, ex.context_options.size(), at);
        break;
      case TaskType::language_modeling:
        ex.context = text_field(j, "context", at);
        ex.continuation = text_field(j, "continuation", at);
        break;
    }
    out.push_back(std::move(ex));
  });
  check(!out.empty(), name + ": the task file holds no examples");
  return out;
}

std::vector<Example> read_task_examples(const Bundle& b, const TaskSpec& task) {
  const std::string path = b.dir + "/eval_data/" + task.dataset_uri;
  check(fs::exists(path), "eval core: the task '" + task.label + "' reads " + path + ", which is missing");
  check_inside_bundle(b.dir, path);
  const std::vector<uint8_t> bytes = read_file(path);
  return parse_task_examples(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), task.type,
                             path);
}

}  // namespace nanotrn::icl
