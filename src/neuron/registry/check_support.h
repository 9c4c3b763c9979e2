// What the shipped kernels' host checks share (registry/<kernel>_entry.cpp): the unit roundoff of a dtype and
// seeded inputs. u = unit roundoff of the output dtype (fp32 2^-24, fp16 2^-11, bf16 2^-8, fp8 e4m3 2^-4, e5m2
// 2^-3); e = 2^-24 (fp32 arithmetic) in every bound.
// Inputs: uniform [lo, hi) from std::mt19937(seed), drawn in the order a definition asks for them, each rounded to
// the dtype.
// Not here: the bounds themselves (each definition states its own), the references (src/ref/), running kernels
// (kernel_run.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "dtype/dtype.h"
#include "ref/ops_ref.h"

namespace nanotrn::neuron {

// The host references are plain fp64 loops; these limits keep a --check to seconds: the fast executor runs a 1024^3
// bf16 matmul in about 0.2 s (bench/executor_bench.cpp), the whole `kernel run matmul --m 1024 --k 1024 --n 1024
// --check` takes 12.6 s, nearly all of it the fp64 host reference (2-vCPU Zen 3).
inline constexpr int64_t kMaxCheckMacs = int64_t{1024} * 1024 * 1024;  // matmul, attention (heads T^2 d)
inline constexpr int64_t kMaxCheckElements = int64_t{1} << 24;         // the element-wise kernels

// The unit roundoff of a dtype: fp32 2^-24, fp16 2^-11, bf16 2^-8, fp8 e4m3 2^-4, e5m2 2^-3 (int32: as fp32).
double unit_roundoff(DType t);

// A kernel's host tensor as the fp64 reference's input (every check compares against src/ref/).
ref::RefTensor as_ref(const std::vector<float>& values, ref::Shape shape);

class SeededInputs {
 public:
  SeededInputs(uint64_t seed, DType dtype) : gen_(static_cast<std::mt19937::result_type>(seed)), dtype_(dtype) {}
  // n values uniform in [lo, hi), each rounded to the dtype.
  std::vector<float> uniform(size_t n, float lo, float hi);

 private:
  std::mt19937 gen_;
  DType dtype_;
};

}  // namespace nanotrn::neuron
