// A CORE evaluation bundle, read exactly as DCLM/nanochat distribute it (recipe-spec §5.2):
//
//   Bundle b = read_bundle("eval_bundle");                    // core.yaml + eval_meta_data.csv
//   for (const TaskSpec& t : b.tasks) {
//     std::vector<Example> data = read_task_examples(b, t);  // eval_data/<dataset_uri>, one example per line
//   }
//
// core.yaml: `icl_tasks:` a list of maps with `label`, `dataset_uri` (relative to eval_data/), `num_fewshot` (a list
// whose first element is used, or a number), `icl_task_type` (multiple_choice | schema | language_modeling) and an
// optional `continuation_delimiter` (default one space). Other keys are ignored. eval_meta_data.csv: the row whose
// `Eval Task` is a task's label gives its `Random baseline` (percent). Task files are JSON Lines; the fields read
// depend on the type:
//   multiple_choice    query (string), choices (non-empty list of strings), gold (integer index into choices)
//   schema             context_options (non-empty list of strings), continuation (string), gold (index)
//   language_modeling  context (string), continuation (string)
// Other fields (jeopardy's has_categories, ...) are ignored; blank lines are skipped (nanochat would stop on one).
//
// Errors: every problem is an Error that names the file and, where there is one, its line: a missing file, YAML that
// does not parse (with yaml-cpp's line and column), a task without a required key, an unknown task type, a label with
// no row in the CSV, a line that is not JSON or lacks a field of its type, a gold index out of range.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nanotrn::icl {

// The small bundle the project ships (eval_bundles/brown-core/README.md), relative to the project folder: the default
// of `eval core --bundle` and of the speedrun's CORE stage.
inline constexpr const char* kShippedBundle = "eval_bundles/brown-core";

enum class TaskType { multiple_choice, schema, language_modeling };
// "multiple_choice", "schema", "language_modeling".
const char* task_type_name(TaskType type);

struct TaskSpec {
  std::string label;
  std::string dataset_uri;  // relative to <bundle>/eval_data/
  TaskType type = TaskType::multiple_choice;
  int64_t num_fewshot = 0;
  std::string delimiter = " ";   // continuation_delimiter
  double random_baseline = 0.0;  // percent, from eval_meta_data.csv
};

// One line of a task file. Only the fields of the task's type are set.
struct Example {
  std::string query;                         // multiple_choice
  std::vector<std::string> choices;          // multiple_choice
  std::vector<std::string> context_options;  // schema
  std::string context;                       // language_modeling
  std::string continuation;                  // schema, language_modeling
  int64_t gold = 0;                          // multiple_choice, schema
  int64_t line = 0;                          // 1-based line in its file, for messages
};

struct Bundle {
  std::string dir;
  std::vector<TaskSpec> tasks;  // in core.yaml order
};

// Every file it reads (core.yaml, eval_meta_data.csv, eval_data/<uri>) must lie inside `dir` once symlinks are
// followed; a link out of the bundle is an Error naming it, before a byte of the target is read.
Bundle read_bundle(const std::string& dir);
// Tasks of `b` whose labels are in `labels` (all when empty), in the bundle's order; an unknown label is an Error
// listing the bundle's labels.
std::vector<TaskSpec> select_tasks(const Bundle& b, const std::vector<std::string>& labels);
std::vector<Example> read_task_examples(const Bundle& b, const TaskSpec& task);
// The parser behind read_task_examples, from memory (fuzzed): `name` prefixes messages.
std::vector<Example> parse_task_examples(std::string_view content, TaskType type, const std::string& name);
// core.yaml's text to task specs without baselines (fuzzed): `name` prefixes messages.
std::vector<TaskSpec> parse_core_yaml(const std::string& text, const std::string& name);

}  // namespace nanotrn::icl
