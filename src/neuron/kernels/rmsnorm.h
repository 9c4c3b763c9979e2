// An RMSNorm tile kernel: y[r, :] = x[r, :] / sqrt(mean_f x[r, f]^2 + eps) * gamma[:] for x, y [R, D] and gamma
// [1, D] in HBM (one float dtype), 128 rows per tile, the whole row resident in SBUF. gamma is loaded once, broadcast
// to every partition by a stride-0 DMA access pattern. Per tile:
//   ScalarE  sq = x^2, ss = sum_f sq          (activation square with the free-axis add-reduction)
//   VectorE  ms = ss * (1 / D) + eps          (tensor_scalar, two immediate ops)
//   ScalarE  rstd = rsqrt(ms)                 (activation rsqrt)
//   ScalarE  xn = x * rstd                    (activation copy with rstd as the per-partition scale), rounded to the
//                                             dtype (bf16: the gamma multiply then runs at VectorE's bf16 rate)
//   VectorE  y = xn * gamma                   (tensor_tensor multiply), rounded to the dtype, stored.
//
//   KernelBuilder b(spec_for("v3"));
//   View x = b.hbm("x", R, D, DType::bf16), g = b.hbm("gamma", 1, D, DType::bf16), y = b.hbm("y", R, D, DType::bf16);
//   rmsnorm_kernel(b, x, g, y, 1e-6f, Schedule::pipelined);
//
// Schedules:
//   naive      single buffers, every DMA on queue 0: each step waits for the previous one.
//   pipelined  four (or three) rotating sets of tiles, loads on queues 0-6, stores on 8-14, gamma on 15, the steps
//              skewed across tiles: iteration i loads tile i + 2, squares tile i + 1 and finishes tile i, so DMA,
//              ScalarE and VectorE work on different tiles at once.
// Throws nanotrn::Error "[shape]" for non-HBM / mismatched views, "[sbuf-capacity]" when a row does not fit.
// Not here: the fused RMSNorm + quantise kernel of the NKI library, bn_stats / bn_aggr.
#pragma once

#include <source_location>

#include "neuron/isa/builder.h"
#include "neuron/kernels/schedule.h"

namespace nanotrn::neuron {

void rmsnorm_kernel(KernelBuilder& b, const View& x, const View& gamma, const View& y, float eps, Schedule schedule,
                    std::source_location loc = std::source_location::current());

}  // namespace nanotrn::neuron
