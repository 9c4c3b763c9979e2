// The shipped kernels in `kernel list` order (see builtin_kernels.h).
#include "neuron/registry/builtin_kernels.h"

namespace nanotrn::neuron {

void add_builtin_kernels(KernelRegistry& r) {
  r.add(matmul_definition());
  r.add(transpose_definition());
  r.add(softmax_definition());
  r.add(rmsnorm_definition());
  r.add(vector_add_definition());
  r.add(attention_definition());
  r.add(attention_backward_definition());
}

}  // namespace nanotrn::neuron
