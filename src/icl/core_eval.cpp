// CORE over a bundle. See core_eval.h.
#include "icl/core_eval.h"
#include "base/stopwatch.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>

#include "base/error.h"
#include "icl/prompts.h"
#include "icl/scorer.h"

namespace nanotrn::icl {

double centered_accuracy(double accuracy, double random_baseline_percent) {
  const double rb = 0.01 * random_baseline_percent;
  return (accuracy - rb) / (1.0 - rb);
}

namespace {

void finish(TaskResult& t) {
  t.accuracy = t.examples > 0 ? static_cast<double>(t.correct) / static_cast<double>(t.examples) : 0.0;
  t.centered = centered_accuracy(t.accuracy, t.spec.random_baseline);
}

double mean_centered(const std::vector<TaskResult>& tasks) {
  double sum = 0.0;
  for (const TaskResult& t : tasks) sum += t.centered;
  return tasks.empty() ? 0.0 : sum / static_cast<double>(tasks.size());
}

}  // namespace

CoreResult evaluate_core(const Ctx& ctx, model::Gpt& gpt, const tokenizer::Tokenizer& tok, const Bundle& bundle,
                         const CoreOptions& options) {
  check(options.world >= 1 && options.rank >= 0 && options.rank < options.world,
        "eval core: rank " + std::to_string(options.rank) + " of " + std::to_string(options.world) + " ranks");
  check(options.max_len >= 2,
        "eval core: the model's length must be at least 2 tokens, got " + std::to_string(options.max_len));
  check(tok.vocab_size() == gpt.config().vocab_size, "eval core: the tokenizer has " +
                                                         std::to_string(tok.vocab_size()) + " tokens, the model " +
                                                         std::to_string(gpt.config().vocab_size));
  const auto t0 = std::chrono::steady_clock::now();
  // One engine (allocator, GEMM primitive cache) per worker: examples run side by side, each on one thread (the
  // OpenMP regions inside the ops are nested and run serially).
  const int workers = options.threads > 0 ? options.threads : std::max(1, ctx.engine.num_threads());
  std::vector<std::unique_ptr<Engine>> engines;
  for (int w = 0; w < workers; ++w) engines.push_back(std::make_unique<Engine>());
  CoreResult result;
  const std::vector<TaskSpec> specs = select_tasks(bundle, options.tasks);
  for (size_t ti = 0; ti < specs.size(); ++ti) {
    const auto t_task = std::chrono::steady_clock::now();
    TaskResult tr;
    tr.spec = specs[ti];
    const std::vector<Example> data = task_subset(read_task_examples(bundle, tr.spec), options.max_per_task);
    tr.examples = static_cast<int64_t>(data.size());
    const auto n = static_cast<int64_t>(data.size());
    std::vector<int64_t> mine;  // this rank's examples
    for (int64_t idx = options.rank; idx < n; idx += options.world) mine.push_back(idx);
    std::vector<ExampleRecord> records(mine.size());
    std::vector<int64_t> tokens(mine.size(), 0);
    std::vector<std::exception_ptr> errors(mine.size());
    std::vector<char> beyond(mine.size(), 0);
    int64_t done = 0;
#pragma omp parallel for num_threads(workers) schedule(dynamic, 1)
    for (size_t k = 0; k < mine.size(); ++k) {
      const int64_t idx = mine[k];
      const auto i = static_cast<size_t>(idx);
      try {
        Ctx wctx{*engines[static_cast<size_t>(omp_get_thread_num())], nullptr, DType::f32};
        Scorer scorer(wctx, gpt);
        const std::string what = tr.spec.label + " example " + std::to_string(idx) + " (line " +
                                 std::to_string(data[i].line) + " of " + tr.spec.dataset_uri + ")";
        const Prompts prompts = render_prompts(tr.spec, data, i, fewshot_indices(data.size(), i, tr.spec.num_fewshot));
        ScoredRows rows = tokenize_prompts(tr.spec.type, prompts, tok, options.max_len, what);
        ExampleScore s = scorer.score(tr.spec.type, rows, data[i].gold);
        tokens[k] = s.tokens;
        records[k] = {idx, std::move(rows), std::move(s.losses), s.correct};
      } catch (const AnswerBeyondContext&) {
        records[k] = {idx, {}, {}, false};  // the model cannot see the answer: scored as wrong, counted
        beyond[k] = 1;
      } catch (...) {
        errors[k] = std::current_exception();  // rethrown below: an exception may not leave an OpenMP region
      }
#pragma omp critical(nanotrn_core_progress)
      {
        ++done;
        if (options.progress) options.progress(ti, done, static_cast<int64_t>(mine.size()));
      }
    }
    for (const std::exception_ptr& e : errors) {
      if (e) std::rethrow_exception(e);  // the first failing example, in order
    }
    for (size_t k = 0; k < mine.size(); ++k) {
      tr.correct += records[k].correct ? 1 : 0;
      tr.beyond_context += beyond[k];
      tr.tokens += tokens[k];
    }
    if (options.keep_examples) tr.records = std::move(records);
    tr.seconds = seconds_since(t_task);
    finish(tr);
    result.tasks.push_back(std::move(tr));
  }
  result.core = mean_centered(result.tasks);
  result.seconds = seconds_since(t0);
  return result;
}

CoreResult combine_ranks(const std::vector<CoreResult>& per_rank) {
  check(!per_rank.empty(), "combine_ranks: no results");
  CoreResult out = per_rank[0];
  for (size_t r = 1; r < per_rank.size(); ++r) {
    check(per_rank[r].tasks.size() == out.tasks.size(), "combine_ranks: the ranks scored different tasks");
    for (size_t t = 0; t < out.tasks.size(); ++t) {
      const TaskResult& x = per_rank[r].tasks[t];
      check(x.spec.label == out.tasks[t].spec.label && x.examples == out.tasks[t].examples,
            "combine_ranks: the ranks scored different tasks");
      out.tasks[t].correct += x.correct;
      out.tasks[t].beyond_context += x.beyond_context;
      out.tasks[t].tokens += x.tokens;
      out.tasks[t].seconds = std::max(out.tasks[t].seconds, x.seconds);
      out.tasks[t].records.insert(out.tasks[t].records.end(), x.records.begin(), x.records.end());
    }
    out.seconds = std::max(out.seconds, per_rank[r].seconds);
  }
  for (TaskResult& t : out.tasks) finish(t);
  out.core = mean_centered(out.tasks);
  return out;
}

nlohmann::ordered_json core_json(const CoreResult& r, bool with_examples) {
  nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
  for (const TaskResult& t : r.tasks) {
    nlohmann::ordered_json j;
    j["label"] = t.spec.label;
    j["type"] = task_type_name(t.spec.type);
    j["num_fewshot"] = t.spec.num_fewshot;
    j["random_baseline"] = t.spec.random_baseline;
    j["examples"] = t.examples;
    j["correct"] = t.correct;
    j["beyond_context"] = t.beyond_context;
    j["tokens"] = t.tokens;
    j["accuracy"] = t.accuracy;
    j["centered"] = t.centered;
    j["seconds"] = t.seconds;
    if (with_examples) {
      nlohmann::ordered_json recs = nlohmann::ordered_json::array();
      for (const ExampleRecord& e : t.records) {
        recs.push_back({{"index", e.index},
                        {"rows", e.rows.rows},
                        {"start", e.rows.start},
                        {"end", e.rows.end},
                        {"losses", e.losses},
                        {"correct", e.correct}});
      }
      j["records"] = std::move(recs);
    }
    tasks.push_back(std::move(j));
  }
  nlohmann::ordered_json out;
  out["core"] = r.core;
  out["tasks_scored"] = r.tasks.size();
  out["seconds"] = r.seconds;
  out["tasks"] = std::move(tasks);
  return out;
}

}  // namespace nanotrn::icl
