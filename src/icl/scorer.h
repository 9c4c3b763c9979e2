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
// position). The head runs only from the first position any row scores. The forward is fp32 (ctx's matmul dtype is
// ignored) so that it is the model the reference scorer in PyTorch sees; losses are summed in double.
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
  Scorer(const Ctx& ctx, model::Gpt& gpt) : ctx_(ctx), gpt_(gpt) {}
  ExampleScore score(TaskType type, const ScoredRows& rows, int64_t gold);

 private:
  Ctx ctx_;
  model::Gpt& gpt_;
};

}  // namespace nanotrn::icl
