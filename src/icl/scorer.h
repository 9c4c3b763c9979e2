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
// It runs through the model once into a KV cache (when there are two rows or more: a lone row runs as one forward); the
// cache is replicated over the rows and only the tokens after it run, right-padded to the longest (the causal mask
// keeps padding from reaching any scored position). The head runs only at the positions some row scores (gathered from
// the hidden rows). The forward is fp32 (ctx's matmul dtype is ignored) so that it is the model the reference scorer in
// PyTorch sees; losses are summed in double. Examples are not batched together: rows of several examples in one forward
// (their prefixes left-padded under a key-padding mask) was measured slower on the shipped bundle (docs/PERFORMANCE.md,
// "CORE evaluation"). Memory is bounded whatever the number of choices: the rows after the prefix run in passes of as
// many rows as fit pass_bytes (256 MiB by default: their logits, attention scores, cache replicas and activations,
// estimated), one pass when they all fit (every shipped task), so an example with 10^6 choices costs time, not memory.
// The head runs once per pass: the prefix's last position rides with the first pass's scored rows.
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
  int64_t tokens = 0;          // tokens run through the model (the shared prefix once, no padding)
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
  // An example's shape: the shared prefix L (never past a span's first predicting position), the rest M that the
  // longest row runs after it, the first rest position F any row scores, the tokens it runs (prefix once).
  struct Layout {
    int64_t L = 0, M = 0, F = 0, tokens = 0;
  };
  Layout layout(const ScoredRows& rows) const;  // checks the rows (non-empty, tokens in the vocabulary)
  // The positions of rows first .. first + n - 1 that score a token after the prefix (>= L), as indices into a pass's
  // [n * M] rows; row first + r's run starts at first_of[r] and covers max(start - 1, L) .. end - 2.
  struct ScoredPositions {
    std::vector<int32_t> index;
    std::vector<int64_t> first_of;
  };
  static ScoredPositions scored_positions(const ScoredRows& rows, int64_t first, int64_t n, int64_t L, int64_t M);
  // The pass's token ids [n, M]: the tokens of rows first .. first + n - 1 after the prefix, right-padded with 0.
  static Tensor rest_ids(const ScoredRows& rows, int64_t first, int64_t n, int64_t L, int64_t M);
  // The head's logits [rows, V] for one pass: at the scored positions of the rest pass `ids` run after `cache` (one
  // cache row per ids row, or none; ids undefined: no rest), the head only on those positions' hidden rows, then
  // `tail` (a [1, 1, D] hidden row, or undefined) as the last row. The first pass carries the prefix's last row as its
  // tail, so the head's weights (V x D, the largest matrix) are read once per example instead of twice.
  Tensor head_logits(Ctx& ctx, const Tensor& ids, const ScoredPositions& at, model::KvCache* cache, const Tensor& tail);
  // The mean loss over row i's span (NaN when empty), and &= into all_hit whether every position's argmax is its
  // token: position L - 1 reads `prefix` (the prefix's last logits), later ones rest[0, 1, ...] in order.
  static double span_mean(const ScoredRows& rows, size_t i, int64_t L, const float* prefix, const float* rest,
                          int64_t V, bool& all_hit);
  // The example's score from its rows' means (multiple_choice / schema) or all_hit (language_modeling).
  static ExampleScore verdict(TaskType type, std::vector<double> means, bool all_hit, int64_t gold, int64_t tokens);

  Ctx ctx_;
  model::Gpt& gpt_;
  double pass_bytes_;
};

}  // namespace nanotrn::icl
