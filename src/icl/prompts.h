// CORE prompts, exactly as nanochat renders them (recipe-spec §5.2), as text: which examples a task keeps, which
// few-shot examples each one gets, and the prompts of every option.
//
//   std::vector<Example> data = task_subset(read_task_examples(b, t), max_per_task);
//   std::vector<size_t> shots = fewshot_indices(data.size(), idx, t.num_fewshot);
//   Prompts p = render_prompts(t, data, idx, shots);
//
// task_subset: the examples shuffled by CPython's random.Random(1337).shuffle, then the first max_per_task kept
// (all when max_per_task <= 0). fewshot_indices: random.Random(1234 + idx).sample(others, k) where others are the
// subset's indices except idx, in order; k = min(num_fewshot, subset size - 1) (nanochat raises when max_per_task
// leaves fewer than k others; we use them all instead).
// Rendering: every few-shot example is rendered like the query with its gold answer and followed by a blank line;
//   multiple_choice   one prompt per choice:  shots + query + delim + choice
//   schema            one prompt per option:  shots + option + delim + continuation
//   language_modeling two prompts: without = strip(shots + trim(context) + delim), with = the same unstripped +
//                     continuation; a shot is trim(context) + delim + continuation
// where trim and strip are Python's str.strip(): every Unicode whitespace code point (str.isspace) at both ends.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "icl/bundle.h"

namespace nanotrn::icl {

// Python's str.strip() on UTF-8 text.
std::string python_strip(std::string_view s);

std::vector<Example> task_subset(std::vector<Example> data, int64_t max_per_task);
std::vector<size_t> fewshot_indices(size_t n, size_t idx, int64_t num_fewshot);

struct Prompts {
  // multiple_choice / schema: one prompt per option. language_modeling: {without, with}.
  std::vector<std::string> texts;
};
Prompts render_prompts(const TaskSpec& task, const std::vector<Example>& data, size_t idx,
                       const std::vector<size_t>& shots);

}  // namespace nanotrn::icl
