// Uniform random test inputs for the NeuronCore tests (executor, kernels): n floats in [lo, hi) from a fixed seed.
#pragma once

#include <random>
#include <vector>

namespace nanotrn::neuron {

inline std::vector<float> randoms(size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(g);
  return v;
}

}  // namespace nanotrn::neuron
