// The tile kernels nanotrn knows, by name: a value, not a global, so a program adds its own kernels to a copy.
//
//   KernelRegistry r = builtin_kernels();   // matmul, transpose, softmax, rmsnorm, vector_add, attention,
//                                           // attention_bwd (builtin_kernels.cpp, one definition each)
//   r.add(my_definition);                   // KernelDefinition<MyShape> (kernel_definition.h)
//   const KernelEntry& e = r.at("matmul");  // Error naming the known kernels for an unknown name
//   run_kernel(r, kernel_options("scale", ScaleShape{...}));    // kernel_run.h
//
// add() refuses (nanotrn::Error) a second kernel of the same name and a definition missing a required part
// (check_entry), and a parameter name another kernel already uses with a different type, since the CLI offers one
// flag per name. Kernels keep the order they were added in.
// Not here: the definitions (builtin_kernels.cpp), running them (kernel_run.h).
#pragma once

#include <string>
#include <vector>

#include "neuron/registry/kernel_definition.h"

namespace nanotrn::neuron {

class KernelRegistry {
 public:
  template <class Shape>
  void add(KernelDefinition<Shape> d) {
    add_entry(erase(std::move(d)));
  }
  void add_entry(KernelEntry e);
  const KernelEntry* find(const std::string& name) const;
  const KernelEntry& at(const std::string& name) const;
  const std::vector<KernelEntry>& entries() const { return entries_; }

 private:
  std::vector<KernelEntry> entries_;
};

// The shipped kernels, built once (an immutable function-local value).
const KernelRegistry& builtin_kernels();

}  // namespace nanotrn::neuron
