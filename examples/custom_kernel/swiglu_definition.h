// The SwiGLU gate kernel's one registry entry: what makes it a kernel nanotrn can list, run, time, trace and check
// (`run_kernel(registry, kernel_options("swiglu", SwigluShape{...}))`), exactly as the shipped kernels are.
#pragma once

#include <cstdint>

#include "neuron/registry/kernel_definition.h"

namespace example {

struct SwigluShape {
  int64_t rows = 2048, cols = 2048;  // tokens x the MLP's hidden width
  int64_t chunk = 512;               // columns per SBUF tile
};

nanotrn::neuron::KernelDefinition<SwigluShape> swiglu_definition();

}  // namespace example
