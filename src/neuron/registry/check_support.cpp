// Shared parts of the host checks (see check_support.h).
#include "neuron/registry/check_support.h"

#include <cmath>
#include <utility>

#include "dtype/convert.h"

namespace nanotrn::neuron {

ref::RefTensor as_ref(const std::vector<float>& values, ref::Shape shape) {
  return ref::RefTensor{std::move(shape), std::vector<double>(values.begin(), values.end())};
}

double unit_roundoff(DType t) {
  switch (t) {
    case DType::f32:
    case DType::i32:
      return std::ldexp(1.0, -24);
    case DType::f16:
      return std::ldexp(1.0, -11);
    case DType::bf16:
      return std::ldexp(1.0, -8);
    case DType::f8e4m3:
      return std::ldexp(1.0, -4);
    case DType::f8e5m2:
      return std::ldexp(1.0, -3);
  }
  return 0;
}

std::vector<float> SeededInputs::uniform(size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = round_to(dtype_, d(gen_));
  return v;
}

}  // namespace nanotrn::neuron
