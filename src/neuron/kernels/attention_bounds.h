// The document-bounds mask of the attention tile kernels (attention.h forward, attention_backward.h backward): on a
// [128 queries x w keys] score tile whose rows' bounds (attention_mask.h bound_min / bound_max) cut it, adds
//   0 where bound_min[p] <= k0 + f <= bound_max[p],  else <= -1e30
// so the exp that follows gives exactly 0 there. The bounds are per-partition [128, 1] fp32 vectors (the query
// tile's rows of the kernel's HBM bounds tensor, exact integers below 2^24).
//   GpSimd   keys[p, f] = k0 + f                                      (iota, fp32)
//   VectorE  lo = min(keys - bound_min[p], 0) * 1e30;  scores += lo   (0 inside, <= -1e30 before the document)
//   VectorE  hi = max(keys - bound_max[p], 0) * -1e30; scores += hi   (0 inside, <= -1e30 after it)
// Six VectorE passes over the tile: the kernels call it only on tiles the bounds cut (bounds_cover false).
//
//   add_bounds_mask(b, scores_chunk, keys, tmp, bmin, bmax, /*k0=*/kc);
// Not here: which tiles are cut (attention_mask.h), the causal / window masks (affine_select tiles in the kernels).
#pragma once

#include <cstdint>
#include <source_location>

#include "neuron/isa/builder.h"

namespace nanotrn::neuron {

// scores [P, w] fp32 (PSUM or SBUF); keys, tmp [P, w] fp32 SBUF scratch; bmin, bmax [P, 1] fp32 SBUF.
void add_bounds_mask(KernelBuilder& b, const View& scores, const View& keys, const View& tmp, const View& bmin,
                     const View& bmax, int64_t k0);

// Both kernels' rule for their bounds operand: a float HBM tensor [T, 2]; nanotrn::Error "[shape] <kernel>: ..."
// naming `loc` otherwise.
void check_bounds_tensor(const KernelBuilder& b, const char* kernel, const View& bounds, int64_t T,
                         std::source_location loc);

}  // namespace nanotrn::neuron
