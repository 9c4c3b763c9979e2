#include "recipe/memory_need.h"

#include "base/error.h"
#include "base/format.h"
#include "base/host_memory.h"

namespace nanotrn::recipe {

std::string MemoryNeed::describe() const {
  std::string s = format_bytes(total()) + " (weights " + format_bytes(weights) + ", gradients " +
                  format_bytes(gradients) + ", optimizer state " + format_bytes(optimizer);
  if (ema > 0) s += ", EMA " + format_bytes(ema);
  return s + ", activations " + format_bytes(activations) + ")";
}

double optimizer_state_bytes(double block_matrix_parameters, double other_parameters, OptimizerKind kind) {
  const double per_matrix_parameter = kind == OptimizerKind::muon ? 1.0 : 2.0;
  return (per_matrix_parameter * block_matrix_parameters + 2 * other_parameters) * 4.0;
}

double optimizer_state_bytes(const model::GptConfig& c, OptimizerKind kind) {
  const model::ParamCounts n = model::count_params(c);
  const double matrices = static_cast<double>(n.block_matrices);
  return optimizer_state_bytes(matrices, static_cast<double>(n.total()) - matrices, kind);
}

MemoryNeed training_memory(const Recipe& recipe, const model::GptConfig& c, int64_t rows) {
  // resolve() has refused any shape whose count could overflow int64, so count_params is exact here.
  const double params = static_cast<double>(model::count_params(c).total());
  const double depth = static_cast<double>(c.depth), d = static_cast<double>(c.model_dim);
  constexpr double f32 = 4.0;
  MemoryNeed m;
  m.weights = params * f32;
  m.gradients = params * f32;
  m.optimizer = optimizer_state_bytes(c, recipe.optim.kind);
  if (recipe.ema.decay > 0.0f) m.ema = params * f32;
  m.activations = (depth + 1) * static_cast<double>(rows) * static_cast<double>(recipe.batch.seq_len) * d * f32;
  return m;
}

void require_fits(const MemoryNeed& need, double available_bytes, const std::string& what,
                  const std::string& have_text) {
  check(need.total() <= available_bytes, what + " needs at least " + need.describe() + "; " + have_text);
}

void require_fits_host(const Recipe& recipe) {
  const HostMemory host = host_memory();
  if (!host.known) return;
  const MemoryNeed need = training_memory(recipe, model::resolve(recipe.model), recipe.batch.rows);
  require_fits(need, host.available_bytes, "recipe '" + recipe.name + "': training",
               "this machine has " + format_bytes(host.available_bytes) + " available (" + host.basis +
                   "). Make the model (model.depth, model.model_dim, model.vocab_size) or the batch (batch.rows, "
                   "batch.seq_len) smaller");
}

}  // namespace nanotrn::recipe
