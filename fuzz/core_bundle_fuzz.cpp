// libFuzzer target: the CORE bundle parsers (src/icl/bundle.h). The first byte picks the parser, modulo 4 (so the
// seeds start with the printable '0'..'3'): 0 core.yaml (parse_core_yaml, yaml-cpp), 1 multiple_choice, 2 schema,
// 3 language_modeling task lines (parse_task_examples); the rest of the input is the text. Either the parser throws
// nanotrn::Error or its result holds what bundle.h promises:
//   tasks     non-empty; each with a non-empty label (unique, valid UTF-8), a relative dataset_uri inside eval_data/,
//             a known type, 0 <= num_fewshot, a valid UTF-8 delimiter
//   examples  non-empty; lines strictly increasing and within the text; valid UTF-8 strings; for multiple_choice
//             and schema 0 <= gold < the number of choices / context_options (non-empty); only the type's fields set;
//             each example written back as a JSON line parses to the same example
// Any other exception, a crash or a sanitizer report is a finding. Built and run by scripts/fuzz.sh.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "base/utf8.h"
#include "icl/bundle.h"

namespace {

using nanotrn::icl::Example;
using nanotrn::icl::TaskSpec;
using nanotrn::icl::TaskType;

bool utf8(std::string_view s) { return nanotrn::find_invalid_utf8(s) == std::string_view::npos; }

bool all_utf8(const std::vector<std::string>& v) {
  return std::all_of(v.begin(), v.end(), [](const std::string& s) { return utf8(s); });
}

void check_tasks(const std::vector<TaskSpec>& tasks) {
  if (tasks.empty()) __builtin_trap();
  std::set<std::string> labels;
  for (const TaskSpec& t : tasks) {
    if (t.label.empty() || !utf8(t.label)) __builtin_trap();
    if (!labels.insert(t.label).second) __builtin_trap();
    if (t.dataset_uri.empty()) __builtin_trap();
    const std::filesystem::path p(t.dataset_uri);
    if (!p.is_relative() || p.lexically_normal().string().rfind("..", 0) == 0) __builtin_trap();
    if (t.type != TaskType::multiple_choice && t.type != TaskType::schema && t.type != TaskType::language_modeling) {
      __builtin_trap();
    }
    if (t.num_fewshot < 0) __builtin_trap();
    if (!utf8(t.delimiter)) __builtin_trap();
    if (t.random_baseline != 0.0) __builtin_trap();  // parse_core_yaml leaves baselines to read_bundle
  }
}

// The example as a task-file line of its type, the way a bundle generator would write it.
std::string to_line(const Example& e, TaskType type) {
  nlohmann::json j;
  switch (type) {
    case TaskType::multiple_choice:
      j = {{"query", e.query}, {"choices", e.choices}, {"gold", e.gold}};
      break;
    case TaskType::schema:
      j = {{"context_options", e.context_options}, {"continuation", e.continuation}, {"gold", e.gold}};
      break;
    case TaskType::language_modeling:
      j = {{"context", e.context}, {"continuation", e.continuation}};
      break;
  }
  return j.dump();  // control characters escaped: no raw newline, so one line
}

bool same(const Example& a, const Example& b) {
  return a.query == b.query && a.choices == b.choices && a.context_options == b.context_options &&
         a.context == b.context && a.continuation == b.continuation && a.gold == b.gold;
}

void check_examples(const std::vector<Example>& examples, TaskType type, std::string_view text) {
  if (examples.empty()) __builtin_trap();
  const int64_t lines = static_cast<int64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  int64_t last = 0;
  std::string rewritten;
  for (const Example& e : examples) {
    if (e.line <= last || e.line > lines) __builtin_trap();
    last = e.line;
    if (!utf8(e.query) || !all_utf8(e.choices) || !all_utf8(e.context_options) || !utf8(e.context) ||
        !utf8(e.continuation)) {
      __builtin_trap();
    }
    switch (type) {
      case TaskType::multiple_choice:
        if (e.choices.empty() || e.gold < 0 || static_cast<size_t>(e.gold) >= e.choices.size()) __builtin_trap();
        if (!e.context_options.empty() || !e.context.empty() || !e.continuation.empty()) __builtin_trap();
        break;
      case TaskType::schema:
        if (e.context_options.empty() || e.gold < 0 || static_cast<size_t>(e.gold) >= e.context_options.size()) {
          __builtin_trap();
        }
        if (!e.query.empty() || !e.choices.empty() || !e.context.empty()) __builtin_trap();
        break;
      case TaskType::language_modeling:
        if (e.gold != 0 || !e.query.empty() || !e.choices.empty() || !e.context_options.empty()) __builtin_trap();
        break;
    }
    rewritten += to_line(e, type) + "\n";
  }
  // Written back one per line, the examples parse to themselves (the lines are then 1, 2, ...).
  std::vector<Example> again;
  try {
    again = nanotrn::icl::parse_task_examples(rewritten, type, "again.jsonl");
  } catch (const nanotrn::Error&) {
    __builtin_trap();  // what the parser accepted, written back, must parse
  }
  if (again.size() != examples.size()) __builtin_trap();
  for (size_t i = 0; i < again.size(); ++i) {
    if (!same(again[i], examples[i]) || again[i].line != static_cast<int64_t>(i) + 1) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned selector = data[0] % 4;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    if (selector == 0) {
      check_tasks(nanotrn::icl::parse_core_yaml(std::string(text), "core.yaml"));
    } else {
      const TaskType type = selector == 1   ? TaskType::multiple_choice
                            : selector == 2 ? TaskType::schema
                                            : TaskType::language_modeling;
      check_examples(nanotrn::icl::parse_task_examples(text, type, "task.jsonl"), type, text);
    }
  } catch (const nanotrn::Error&) {
  }
  return 0;
}
