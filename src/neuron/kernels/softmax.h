// A row-softmax tile kernel: y[r, :] = softmax(x[r, :]) for x, y [R, C] in HBM (one float dtype), 128 rows per
// tile, the whole row resident in SBUF. Per tile:
//   VectorE  m = -max_f x            (tensor_reduce max with negate, fp32 [P, 1])
//   ScalarE  e = exp(x + m), s = sum_f e   (activation with bias vector -max and the free-axis add-reduction)
//   VectorE  r = 1 / s               (reciprocal)
//   y = e * r                        (VectorE tensor_scalar with r as the per-partition operand, or ScalarE
//                                     activation copy with r as the scale vector), rounded to the dtype, stored.
//
//   KernelBuilder b(spec_for("v3"));
//   View x = b.hbm("x", R, C, DType::bf16), y = b.hbm("y", R, C, DType::bf16);
//   softmax_kernel(b, x, y, Schedule::pipelined);
//
// Schedules:
//   naive      single buffers, every DMA on queue 0, the final multiply on VectorE: load, four engine steps, store,
//              one after the other.
//   pipelined  three rotating sets of tiles, loads on queues 0-7, stores on 8-15, the final multiply alternating
//              between VectorE and ScalarE (balances them): the next tile's load and the previous tile's store
//              overlap the current tile's compute.
// Throws nanotrn::Error "[shape]" for non-HBM / mismatched views, "[sbuf-capacity]" when a row does not fit.
// Not here: online (flash) softmax over column blocks, masking (affine_select), the v4 VectorE `exponential`.
#pragma once

#include <source_location>

#include "neuron/isa/builder.h"
#include "neuron/kernels/schedule.h"

namespace nanotrn::neuron {

void softmax_kernel(KernelBuilder& b, const View& x, const View& y, Schedule schedule,
                    std::source_location loc = std::source_location::current());

}  // namespace nanotrn::neuron
