// The baseline a report shows beside the trained model: the unigram bits per byte of a recipe's own data (token
// frequencies of data.train's shards, scored on data.val's, eval/unigram.h), so val_bpb has its bar in every report.
//
//   Baseline b = unigram_baseline(recipe);     // b.bpb, or NaN with b.why ("data.val 'x/val_*.bin' matches no shard")
//
// Reads the tokenizer data.tokenizer names (its vocabulary and the bytes per token) and every shard of both splits;
// a missing piece is not an error here (a report of a run whose data moved still renders), it is said in `why`.
// Errors in files that exist (a corrupt shard, a tokenizer of another vocabulary) still throw, naming the file.
#pragma once

#include <string>

#include "recipe/recipe.h"

namespace nanotrn::report {

struct Baseline {
  double bpb = 0;   // NaN when not computed
  std::string why;  // why not, when NaN
};

Baseline unigram_baseline(const recipe::Recipe& recipe);

}  // namespace nanotrn::report
