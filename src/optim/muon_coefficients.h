// Which Newton-Schulz coefficients Muon's orthogonalisation uses (optim/muon.h), on its own so that what only names
// the choice (the recipe) does not compile against the GEMM and tensor headers.
//
//   classic:       Keller Jordan's fixed quintic (3.4445, -4.7750, 2.0315) at every step.
//   polar_express: Polar Express's per-step coefficients (Amsel et al. 2025), as nanochat and modded-nanogpt use.
#pragma once

namespace nanotrn {

enum class MuonCoefficients { classic, polar_express };

}  // namespace nanotrn
