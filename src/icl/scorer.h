// Scoring one CORE example with the model (recipe-spec §5.2), sharing the work its rows have in common:
//
//   Scorer scorer(ctx, gpt);
//   ExampleScore s = scorer.score(task.type, rows, example.gold);   // rows: icl/rows.h
//
// What is scored is nanochat's: the loss at position t is the cross-entropy of predicting token t + 1.
// multiple_choice / schema: per row the mean loss over its answer span (positions start - 1 .. end - 2); the
// prediction is the first row with the smallest mean, taken as Python's min() does (a NaN mean, from an empty span,
// is never smaller than another, and stays the minimum when it comes first); correct when it is the gold index.
// language_modeling: correct when the greedy argmax (the first maximum) at every span position is the next token.
//
// How (the part that is ours): the rows of an example share a token prefix (BOS, the few-shot examples, the query).
// It runs through the model once, with batch 1, into a KV cache; the cache is replicated over the rows and only the
// tokens after it run, right-padded with BOS to the longest (the causal mask keeps padding from reaching any scored
// position). The head runs only at the positions some row scores (gathered from the hidden rows). The forward is fp32
// (ctx's matmul dtype is ignored) so that it is the model the reference scorer in PyTorch sees; losses are summed in
// double. Memory is bounded whatever the number of choices: the rows after the prefix run in passes of as many rows as
// fit pass_bytes (256 MiB by default: their logits, attention scores, cache replicas and activations, estimated), one
// pass when they all fit (every shipped task), so an example with 10^6 choices costs time, not memory.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/engine.h"
#include "icl/bundle.h"
#include "icl/rows.h"
#include "model/gpt.h"

namespace nanotrn::icl {

struct ExampleScore {
  bool correct = false;
  std::vector<double> losses;  // multiple_choice / schema: the mean loss per row; empty for language_modeling
  int64_t tokens = 0;          // tokens run through the model (the shared prefix once)
};

class Scorer {
 public:
  // pass_bytes: the most host bytes one pass over the rows after the prefix may hold (estimated; tests pass a small
  // figure to force several passes).
  Scorer(const Ctx& ctx, model::Gpt& gpt, double pass_bytes = kRestPassBytes)
      : ctx_(ctx), gpt_(gpt), pass_bytes_(pass_bytes) {}
  ExampleScore score(TaskType type, const ScoredRows& rows, int64_t gold);

  // The default bound of one pass (estimated bytes).
  static constexpr double kRestPassBytes = 256.0 * 1024 * 1024;
  // How many of R rows one pass takes, given the prefix length L, the padded rest M and the first scored position F.
  int64_t rows_per_pass(int64_t R, int64_t L, int64_t M, int64_t F) const;

 private:
  // The positions of rows first .. first + n - 1 that score a token after the prefix (>= L), as indices into the
  // pass's [n * M] rows; row first + i's run starts at first[i] and covers max(start - 1, L) .. end - 2.
  struct ScoredPositions {
    std::vector<int32_t> index;
    std::vector<int64_t> first;
  };
  static ScoredPositions scored_positions(const ScoredRows& rows, int64_t first, int64_t n, int64_t L, int64_t M);
  // Logits [at.index.size(), V] at the scored positions of rows first .. first + n - 1 after the prefix, from a
  // replica of the prefix's cache (the head runs on those positions only).
  Tensor rest_pass(Ctx& ctx, const ScoredRows& rows, int64_t first, int64_t n, int64_t L, int64_t M,
                   const ScoredPositions& at, const model::KvCache& prefix_cache);

  Ctx ctx_;
  model::Gpt& gpt_;
  double pass_bytes_;
};

}  // namespace nanotrn::icl
