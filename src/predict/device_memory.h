// One rank's HBM use during training on a modelled device, item by item, against its share of the chip's HBM, so a
// layout that cannot fit is refused before it is priced.
//
//   RankMemory m = rank_memory(recipe, config, layout, DType::bf16, mtp_heads, hbm_per_rank);
//   m.items ("weights", "gradients", "optimizer state", "activations", ...), m.total(), m.capacity
//   require_fits(m, recipe, config, layout, dtype);  // throws naming the largest item and a change that fits
//
// Rules (a model, not a measurement; no public per-rank figure to check it against):
//  * parameters are one tensor-parallel rank's shard (lowering.h: rank_parameters; launch.tp);
//  * weights: fp32 master copy (4 B per parameter), plus a bf16 compute copy (2 B) for a bf16 recipe;
//  * gradients: fp32 (4 B); optimiser state: recipe/memory_need.h's optimizer_state_bytes (Muon momentum, AdamW
//    moments, fp32);
//  * ZeRO over the data-parallel ranks (launch.zero): stage 1 divides the optimiser state by the ranks, stage 2 also
//    the gradients, stage 3 also the weights, and adds a gather buffer of two blocks' weights in the compute dtype
//    (the block in use and the prefetched next one);
//  * activations saved for the backward, per token of the rank's micro-batch, in the compute dtype: per block the
//    block input, both norm outputs and the mid-block residual (4 d), q/k/v before and q/k after rotary and QK-norm,
//    the attention output ((H + 2K) hd + (H + K) hd + H hd), the MLP's pre- and post-activation (2 m; SwiGLU's gate,
//    up and product: 3 m), and the
//    fp32 log-sum-exp (H); the head's norm output (d) and fp32 logits per active MTP head (4 V). With
//    launch.recompute only each block's input is kept, plus one block's full set while it is recomputed. Under tensor
//    parallelism H, K, m and V are the rank's shares; width-d tensors are replicated, or split over the tp ranks with
//    launch.sequence_parallel;
//  * the collective buffer: with more than one rank, one gradient-sized buffer in the all-reduce dtype (stages 0-1)
//    or one block's gradients (stages 2-3: reduce-scatter per block);
//  * pipeline parallelism (launch.pp): parameters, gradients and optimiser state are divided by pp; the first stage
//    holds ceil(depth / pp) blocks' activations for min(pp, accum) micro-batches in flight (1F1B), and the head's
//    are counted once;
//  * not counted: workspaces, the runtime's own reservations, fragmentation (so a table that fits can still fail).
#pragma once

#include <string>
#include <vector>

#include "dtype/dtype.h"
#include "model/config.h"
#include "predict/launch.h"
#include "predict/lowering.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {

struct MemoryItem {
  std::string name;
  double bytes = 0;
};

struct RankMemory {
  std::vector<MemoryItem> items;
  double capacity = 0;      // the rank's share of HBM capacity (launch.h)
  std::string capacity_of;  // what the capacity is when it is not HBM ("this machine's MemAvailable" on the host)
  double total() const;
  const MemoryItem& largest() const;
  bool fits() const { return total() <= capacity; }
  // "weights 1.2 GiB, gradients ..., total 9.8 GiB of 12.0 GiB" (+ " (capacity_of)")
  std::string describe() const;
};

// `capacity`: the rank's share of HBM (the chip's capacity / ranks on the chip).
// `accum`: the most micro-batches of any phase (1F1B keeps up to min(pp, accum) in flight).
RankMemory rank_memory(const recipe::Recipe& recipe, const model::GptConfig& resolved, const Layout& layout,
                       DType dtype, int mtp_heads, int64_t accum, double capacity);

// Throws when `m` does not fit: names the largest item and the first of these that makes the table fit, tried in
// order: launch.recompute, ZeRO stage 1, 2, 3 (more than one rank), launch.ep doubled (a mixture of experts), fewer
// rows per micro-batch (halved until one); or says that none of them does and points at more chips, tp, pp or ep.
void require_fits(const RankMemory& m, const recipe::Recipe& recipe, const model::GptConfig& resolved,
                  const Layout& layout, DType dtype, int mtp_heads, int64_t accum, const std::string& device_name);

}  // namespace nanotrn::predict
