// The definitions of the shipped tile kernels, one function each (one file each, registry/<kernel>_entry.cpp), and
// the call that adds them all to a registry in `nanotrn kernel list` order. Adding a kernel: its tile kernel in
// kernels/, its definition in a new <kernel>_entry.cpp, one line here and one in add_builtin_kernels.
// Not here: the registry (kernel_registry.h), the shapes (shapes.h).
#pragma once

#include "neuron/registry/kernel_registry.h"
#include "neuron/registry/shapes.h"

namespace nanotrn::neuron {

KernelDefinition<MatmulShape> matmul_definition();
KernelDefinition<RowsShape> transpose_definition();
KernelDefinition<RowsShape> softmax_definition();
KernelDefinition<RmsnormShape> rmsnorm_definition();
KernelDefinition<VectorAddShape> vector_add_definition();
KernelDefinition<AttentionShape> attention_definition();
KernelDefinition<AttentionShape> attention_backward_definition();

void add_builtin_kernels(KernelRegistry& registry);

}  // namespace nanotrn::neuron
