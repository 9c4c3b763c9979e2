// When a finite loss means dead weights. A run can diverge without overflowing: its weights grow to 1e16, its loss
// returns to ln V (no better than guessing uniformly over the vocabulary) and stays there, and a resume with sane
// learning rates cannot bring it back. Such weights are finite, so the non-finite checks let their checkpoint be
// written over the last useful one. This rule names them:
//
//   if (diverged_to_uniform(best_loss_so_far, loss, vocab_size)) ...   // stop; keep the last healthy checkpoint
//
// True when the run had learned (its best loss at least kLearnedNats below ln V) and the loss is back at ln V or
// above. A run that never learned is not judged (its early loss sits near ln V by construction).
#pragma once

#include <cstdint>

namespace nanotrn::train {

// How far below uniform guessing a run must have been before a return to it counts as divergence: 1 nat, a factor
// of e in perplexity (assumed; a spike that recovers stays below ln V in every run we have logged).
inline constexpr double kLearnedNats = 1.0;

bool diverged_to_uniform(double best_loss, double loss, int64_t vocab_size);

}  // namespace nanotrn::train
