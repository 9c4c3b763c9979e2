// A transpose tile kernel: y[C, R] = x[R, C]^T (HBM, same float dtype), on the TensorEngine (nc_transpose
// semantics: SBUF [P <= 128, F <= 128] -> PSUM [F, P], exact), evicted PSUM -> SBUF and stored.
//
//   KernelBuilder b(spec_for("v3"));
//   View x = b.hbm("x", R, C, DType::bf16), y = b.hbm("y", C, R, DType::bf16);
//   transpose_kernel(b, x, y, Schedule::pipelined);
//
// Schedules:
//   naive      per 128 x 128 block: load (queue 0), transpose, VectorE copy, store (queue 0); single buffers.
//   pipelined  rows in groups of 512 (four 128-row strips, loaded [128, column chunk] at a time over queues 0-7,
//              double-buffered); for each 128-column block the four strips' transposes fill one PSUM bank
//              [128, 512] (rotating over the 8 banks), evicted alternately by VectorE and ScalarE and stored as one
//              [128, 512] block of y over queues 8-15: longer DMA rows, engines overlapped.
// Any R, C >= 1 (ragged edges use smaller blocks). Throws nanotrn::Error "[shape]" for non-HBM or mismatched views.
// Not here: DMA transpose, the VectorE 32 x 32 transpose.
#pragma once

#include <source_location>

#include "neuron/isa/builder.h"
#include "neuron/kernels/schedule.h"

namespace nanotrn::neuron {

void transpose_kernel(KernelBuilder& b, const View& x, const View& y, Schedule schedule,
                      std::source_location loc = std::source_location::current());

}  // namespace nanotrn::neuron
