// val_bpb. See evaluate.h.
#include "train/evaluate.h"

#include <algorithm>

#include "base/error.h"

namespace nanotrn::train {

BpbResult evaluate_bpb(Ctx& ctx, model::Gpt& gpt, TokenSource& source, const std::vector<int32_t>& token_bytes,
                       const EvalShape& shape, dist::Communicator* comm) {
  check(shape.rows >= 1 && shape.seq_len >= 1, "evaluate_bpb: rows and seq_len must be >= 1");
  check(static_cast<int64_t>(token_bytes.size()) == gpt.config().vocab_size,
        "evaluate_bpb: the token-bytes table has " + std::to_string(token_bytes.size()) +
            " entries, the model's vocabulary " + std::to_string(gpt.config().vocab_size));
  NoGradGuard no_grad(ctx);
  const int64_t per_batch = shape.rows * shape.seq_len;
  const int64_t batches = std::max<int64_t>(1, shape.tokens / per_batch);
  std::vector<int32_t> in(static_cast<size_t>(per_batch)), tg(in.size());
  const int rank = comm ? comm->rank() : 0, world = comm ? comm->size() : 1;
  // Per batch: nats, bytes, tokens (doubles: byte and token counts are exact in a double far beyond any evaluation).
  std::vector<double> sums(static_cast<size_t>(3 * batches), 0.0);
  for (int64_t b = 0; b < batches; b++) {
    source.next(shape.rows, shape.seq_len, in.data(), tg.data());
    if (b % world != rank) continue;
    const Tensor ids = Tensor::from_ints({shape.rows, shape.seq_len}, in, ctx.engine.allocator());
    const Tensor targets = Tensor::from_ints({shape.rows, shape.seq_len}, tg, ctx.engine.allocator());
    BpbAccumulator batch;
    batch.add(gpt.per_token_nll(ctx, ids, targets).reshape({per_batch}), targets.reshape({per_batch}), token_bytes);
    sums[static_cast<size_t>(3 * b)] = batch.nats();
    sums[static_cast<size_t>(3 * b + 1)] = static_cast<double>(batch.bytes());
    sums[static_cast<size_t>(3 * b + 2)] = static_cast<double>(batch.tokens());
  }
  if (comm) comm->all_reduce(sums.data(), static_cast<int64_t>(sums.size()));
  BpbAccumulator acc;
  for (int64_t b = 0; b < batches; b++) {
    acc.add_partial(sums[static_cast<size_t>(3 * b)], static_cast<int64_t>(sums[static_cast<size_t>(3 * b + 1)]),
                    static_cast<int64_t>(sums[static_cast<size_t>(3 * b + 2)]));
  }
  BpbResult r;
  r.bpb = acc.bpb();
  r.tokens = acc.tokens();
  r.bytes = acc.bytes();
  r.nats_per_token = acc.tokens() > 0 ? acc.nats() / static_cast<double>(acc.tokens()) : 0.0;
  return r;
}

}  // namespace nanotrn::train
