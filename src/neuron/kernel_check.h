// Host references and error bounds for `nanotrn kernel run --check` (kernel_run.h): seeded inputs for each
// kernel, and an element-by-element comparison of the executor's output with fp64 host math on the same (rounded)
// inputs. u = unit roundoff of the output dtype (fp32 2^-24, fp16 2^-11, bf16 2^-8, fp8 e4m3 2^-4, e5m2 2^-3),
// e = 2^-24 (fp32 arithmetic):
//   matmul     |c - ref| <= (K + 2) e sum_k |a b|                 (fp32 accumulation of exact products)
//   transpose  exact (y == x^T bit for bit: PSUM fp32 holds every narrower value, the copy back is exact)
//   softmax    |y - ref| <= ref ((C + 8 + 2 spread) e + u), spread = max - min of the row: the exp argument's
//              rounding (<= spread e relative), fp32 exp (2 e), the C-term fp32 sum, reciprocal and multiply
//              (e each), then the output rounding u
//   rmsnorm    |y - ref| <= |ref| ((D + 12) e + 2u + u^2): square, D-term sum, 1/D and eps, rsqrt (half the
//              relative error of its argument plus 2 e), x * rstd rounded to the dtype (u), the gamma multiply in
//              fp32, then the output rounding (u)
//   attention  |o - ref| <= u |ref| + (2^-8 + (2 T + d + 32) e + 2 delta) A, with A = sum_s p_s |v_s| / sum_s p_s
//              (the probability-weighted mean |v|), delta = (d + 10) e max_s scale sum_i |q_i k_si| (the fp32 error
//              of a score and of its exp argument): P is rounded to bf16 for the P V matmul (2^-8 relative each,
//              while the row sum adds the unrounded fp32 values), the exp arguments carry delta each, the T-term sums
//              and rescales carry fp32 rounding, then the output rounding u. The reference is causal softmax
//              attention in fp64 on the inputs rounded to bf16 (the kernel's compute dtype), with the kernel's fp32
//              scale 1/sqrt(d).
// Inputs: uniform [-1, 1) (softmax: [-4, 4); rmsnorm gamma: [0.5, 1.5); attention q and k: [-2, 2)) from
// std::mt19937(seed), rounded to the dtype.
// Not here: the executor run (kernel_run.cpp), ULP tests of single instructions (tests/neuron/executor_test.cpp).
#pragma once

#include <string>
#include <vector>

#include "neuron/kernel_run.h"

namespace nanotrn::neuron {

// The unit roundoff of a dtype: fp32 2^-24, fp16 2^-11, bf16 2^-8, fp8 e4m3 2^-4, e5m2 2^-3 (int32: as fp32).
double unit_roundoff(DType t);

// The kernel's input tensors in declaration order (matmul: a_t [K, M], b [K, N]; transpose / softmax: x; rmsnorm:
// x, gamma; attention: q_t, k_t [d, heads T], v [heads T, d]), row-major, rounded to options.dtype.
std::vector<std::vector<float>> make_check_inputs(const KernelRunOptions& options);

struct CheckOutcome {
  double max_abs_error = 0, max_bound = 0;
  size_t failures = 0;
  std::string rule;  // the bound in words
};
// Compares `output` (row-major, the kernel's whole output tensor) with the host reference.
CheckOutcome check_against_host(const KernelRunOptions& options, const std::vector<std::vector<float>>& inputs,
                                const std::vector<float>& output);

}  // namespace nanotrn::neuron
