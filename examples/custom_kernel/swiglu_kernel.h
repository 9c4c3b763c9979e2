// A tile kernel of this example, not of nanotrn: the SwiGLU gate of a Llama-family MLP,
//   out[r, c] = silu(g[r, c]) * u[r, c],   silu(x) = x / (1 + exp(-x)),
// over row-major HBM tensors g, u, out [rows, cols] of one float dtype. Rows go to partitions in tiles of 128, columns
// in chunks of `chunk` (default 512): per tile, ScalarE computes silu(g) in fp32 and VectorE multiplies by u, rounding
// once to out's dtype.
//   naive      one buffer set, every DMA on queue 0: each tile waits for the previous one.
//   pipelined  three buffer sets; loads on queues 0-7, stores on 8-15, so tile i + 1 loads while tile i computes.
// Errors (nanotrn::Error naming the caller's line): operands not in HBM, mismatched shapes or dtypes.
#pragma once

#include <cstdint>
#include <source_location>

#include "neuron/isa/builder.h"
#include "neuron/kernels/schedule.h"

namespace example {

void swiglu_kernel(nanotrn::neuron::KernelBuilder& b, const nanotrn::neuron::View& g, const nanotrn::neuron::View& u,
                   const nanotrn::neuron::View& out, nanotrn::neuron::Schedule schedule, int64_t chunk = 512,
                   std::source_location loc = std::source_location::current());

}  // namespace example
