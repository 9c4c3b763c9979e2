// CORE (DCLM in-context evaluation, recipe-spec §5.2) of a model over a bundle's tasks:
//
//   CoreResult r = evaluate_core(ctx, gpt, tok, read_bundle("eval_bundle"), {.max_len = 1024, .max_per_task = 500});
//   r.core;                       // the mean of the tasks' centered accuracies
//   core_json(r, false).dump(2);  // per task: examples, accuracy, centered, seconds
//
// Per task: the examples (icl/prompts.h task_subset: seeded shuffle, first max_per_task), each rendered with its
// few-shot examples (icl/prompts.h), tokenized into rows with answer spans (icl/rows.h), scored (icl/scorer.h).
// accuracy = correct / examples; centered = (accuracy - 0.01 rb) / (1 - 0.01 rb) with rb the task's random
// baseline in percent; CORE = the unweighted mean of the centered accuracies of the tasks evaluated (the 22 of the
// real bundle; a --tasks subset or another bundle gives the mean over its tasks, and the output says how many).
// Examples run side by side on `threads` workers, each single-threaded with its own engine, in fp32 (the scorer
// ignores ctx's matmul dtype); every example's result is independent of the others and of the worker that ran it.
// A failing example (the first, in order) is thrown after the task's other examples finish.
// Rows are cropped on the left to max_len, the model's length (the recipe's batch.seq_len: what it was trained on).
//
// Ranks: with world > 1 a rank scores examples rank, rank + world, ... and its TaskResult holds its count of
// correct examples; summing `correct` (an integer) over ranks and dividing by `examples` gives the accuracy
// exactly, whatever the order of the sum (combine_ranks).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "icl/bundle.h"
#include "icl/rows.h"
#include "model/gpt.h"
#include "tokenizer/tokenizer.h"

namespace nanotrn::icl {

struct CoreOptions {
  int64_t max_len = 0;             // the model's length in tokens (required)
  int64_t max_per_task = 0;        // <= 0: every example
  std::vector<std::string> tasks;  // labels; empty: all of the bundle's
  int64_t rank = 0, world = 1;     // this process's share of the examples
  int threads = 0;                 // examples scored side by side, one thread each; 0: ctx's engine's threads
  bool keep_examples = false;      // keep every example's rows, losses and verdict (TaskResult::records)
  // Called after each example with the task's index and examples done / of the task's total (a progress bar).
  std::function<void(size_t task, int64_t done, int64_t total)> progress;
};

struct ExampleRecord {
  int64_t index = 0;  // position in the task's subset
  ScoredRows rows;
  std::vector<double> losses;
  bool correct = false;
};

struct TaskResult {
  TaskSpec spec;
  int64_t examples = 0;  // the subset's size (over all ranks)
  int64_t correct = 0;   // by this rank (all, when world == 1)
  // Examples whose answer is longer than the model's length (rows.h AnswerBeyondContext): scored as wrong (they stay
  // in `examples`, so every model is judged on the same set) and counted here, by this rank.
  int64_t beyond_context = 0;
  int64_t tokens = 0;  // run through the model by this rank
  double accuracy = 0.0, centered = 0.0, seconds = 0.0;
  std::vector<ExampleRecord> records;  // with keep_examples
};

struct CoreResult {
  std::vector<TaskResult> tasks;
  double core = 0.0;
  double seconds = 0.0;
};

double centered_accuracy(double accuracy, double random_baseline_percent);

CoreResult evaluate_core(const Ctx& ctx, model::Gpt& gpt, const tokenizer::Tokenizer& tok, const Bundle& bundle,
                         const CoreOptions& options);
// Sums the ranks' correct counts (every rank's result, same tasks) and recomputes accuracy, centered and CORE.
CoreResult combine_ranks(const std::vector<CoreResult>& per_rank);

// {"core", "seconds", "tasks": [{"label", "type", "num_fewshot", "random_baseline", "examples", "correct", "tokens",
// "accuracy", "centered", "seconds"[, "records": [{"index", "rows", "start", "end", "losses", "correct"}]]}]}; records
// (with_examples) are the fields tests/python/core_reference.py writes per example.
nlohmann::ordered_json core_json(const CoreResult& r, bool with_examples);

}  // namespace nanotrn::icl
