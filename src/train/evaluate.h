// val_bpb of a model on a fixed validation stream (recipe-spec §5.1), without autograd.
//
//   BpbResult r = evaluate_bpb(ctx, gpt, val_source, token_bytes, {.tokens = 65536, .rows = 8, .seq_len = 256});
//
// Scores floor(tokens / (rows * seq_len)) batches (at least one) read from `source` from its current position; the
// caller rewinds the source (restore()) so that every evaluation sees the same tokens. Per-token losses are the
// training loss's (same softcapped fp32 logits), summed in double by BpbAccumulator: per batch, then the batch sums in
// batch order. With a communicator of N ranks, every rank reads every batch (the stream position stays the same on
// all ranks) and scores batches b with b mod N == rank; the per-batch sums are exchanged exactly (each slot is
// filled by one rank, the others add zeros) and added in batch order, so the result has the same bits at every world
// size.
#pragma once

#include <cstdint>
#include <vector>

#include "dist/communicator.h"
#include "eval/bpb.h"
#include "model/gpt.h"
#include "train/token_source.h"

namespace nanotrn::train {

struct EvalShape {
  int64_t tokens = 65536;
  int64_t rows = 8;
  int64_t seq_len = 256;
};

struct BpbResult {
  double bpb = 0.0;
  double nats_per_token = 0.0;  // mean loss over the scored (byte-carrying) targets
  int64_t tokens = 0;
  int64_t bytes = 0;
};

BpbResult evaluate_bpb(Ctx& ctx, model::Gpt& gpt, TokenSource& source, const std::vector<int32_t>& token_bytes,
                       const EvalShape& shape, dist::Communicator* comm = nullptr);

}  // namespace nanotrn::train
