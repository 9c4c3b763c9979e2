// Which rank owns which parameter under the sharded optimiser (ZeRO-1): the owner alone keeps the parameter's
// optimiser state (AdamW moments, Muon momentum and NorMuon moments), runs its update (the Newton-Schulz
// orthogonalisation of a matrix runs on exactly one rank) and then sends the new values to every rank.
//
//   std::vector<int> owner = assign_owners(sizes, world);     // owner[i] in [0, world)
//
// The rule: parameters in decreasing size (ties: lower index first) each go to the rank with the least total so
// far (ties: the lower rank), the greedy longest-processing-time split. It depends only on the sizes and the world
// size, so every rank computes the same table without talking. At world size 1 rank 0 owns everything.
#pragma once

#include <cstdint>
#include <vector>

namespace nanotrn::dist {

std::vector<int> assign_owners(const std::vector<int64_t>& sizes, int world);

}  // namespace nanotrn::dist
