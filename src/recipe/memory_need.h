// The memory a training run needs at least, so the trainer and the predictor refuse a size that cannot fit (naming
// what it needs and what there is) before allocating, instead of ending in std::bad_alloc or the OOM killer.
//
//   MemoryNeed need = training_memory(recipe, model::resolve(recipe.model), recipe.batch.rows);
//   require_fits(need, host_memory().available_bytes, "this machine has ... available (MemAvailable)");
//
// It is a lower bound, from model::count_params of a resolved config (resolve() refuses counts that would overflow):
// fp32 weights and gradients (4 + 4 bytes per parameter), the optimiser state (AdamW: two fp32 moments per embedding,
// head, gate and scalar parameter; Muon: one fp32 momentum per block-matrix parameter, or two moments under
// optim.kind adamw), the EMA copy when ema.decay >
// 0, and the activations backward needs at the least: the residual stream entering each block and the final norm, rows
// x seq_len x model_dim fp32 values each. Workspaces, logits and per-op saved tensors come on top, so a run the check
// admits can still be too big, but one it refuses never fits.
#pragma once

#include <cstdint>
#include <string>

#include "model/config.h"
#include "recipe/recipe.h"

namespace nanotrn::recipe {

struct MemoryNeed {
  double weights = 0, gradients = 0, optimizer = 0, ema = 0, activations = 0;  // bytes
  double total() const { return weights + gradients + optimizer + ema + activations; }
  // "40.0 GiB (weights 10.0 GiB, gradients 10.0 GiB, optimizer state 15.0 GiB, activations 5.0 GiB)"
  std::string describe() const;
};

// fp32 optimiser state: one Muon momentum per block-matrix parameter (kind muon) or two AdamW moments (kind adamw),
// two AdamW moments per other parameter (the rule the host check and the predictor's device memory table both use).
double optimizer_state_bytes(const model::GptConfig& resolved, OptimizerKind kind);
double optimizer_state_bytes(double block_matrix_parameters, double other_parameters, OptimizerKind kind);

// `rows` is the micro-batch rows one process (or rank) holds at a time.
MemoryNeed training_memory(const Recipe& recipe, const model::GptConfig& resolved, int64_t rows);

// Throws an Error "<what> needs at least <need>; <have_text>" when need.total() > available_bytes.
void require_fits(const MemoryNeed& need, double available_bytes, const std::string& what,
                  const std::string& have_text);

// The trainer's check: the recipe's run against this host's available memory (base/host_memory.h); a no-op where
// the host's memory cannot be read.
void require_fits_host(const Recipe& recipe);

}  // namespace nanotrn::recipe
