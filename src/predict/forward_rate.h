// How fast a device runs the model's forward alone, from the step predictor: for pricing inference-only work such as
// CORE scoring (`nanotrn eval core --project trn2`).
//
//   ForwardRate f = forward_rate(recipe, hw::builtin_catalog().find("trn2"));
//   double seconds = tokens / f.tokens_per_s;
//
// The forward of one micro-batch of the recipe's launch (rows per rank x batch.seq_len tokens on every rank) is the
// sum of the predicted times of its forward kernels, one after another (no overlap between them: an upper bound on the
// predictor's own figure); the chip's rate is all ranks' tokens over that time. Model assumption: scoring rows shorter
// than seq_len cost their tokens' share of it (their attention is cheaper, so this overstates the time), and the
// head runs at every position (the scorer needs it only at scored ones).
#pragma once

#include "hw/catalog.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {

struct ForwardRate {
  double micro_batch_forward_s = 0;    // one micro-batch's forward on one rank
  int64_t tokens_per_micro_batch = 0;  // all ranks
  double tokens_per_s = 0;
};

ForwardRate forward_rate(const recipe::Recipe& recipe, const hw::Device& device);

}  // namespace nanotrn::predict
