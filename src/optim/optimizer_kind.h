// Which optimiser updates the 2-D matrices inside the blocks (optim.kind), on its own so that what only names the
// choice (the recipe, the predictor) does not compile against the optimisers:
//
//   muon:  Muon (the baseline, recipe-spec §3.1: Newton-Schulz orthogonalised momentum), one fp32 momentum each.
//   adamw: AdamW at optim.adamw_matrix_lr (what the Megatron / NeuronX Distributed runs use), two fp32 moments each.
//
// Every other group (embeddings, head, scalars, norm gains) is AdamW under either kind.
#pragma once

#include <string_view>

namespace nanotrn {

enum class OptimizerKind { muon, adamw };

inline std::string_view optimizer_kind_name(OptimizerKind k) { return k == OptimizerKind::muon ? "muon" : "adamw"; }

}  // namespace nanotrn
