// fp64 reference implementations of the host ops: dense, scalar, written for obviousness, not speed. Tests compare
// the fast host kernels (and later the tile kernels) with these, and differentiate them by finite differences to check
// every backward. Layouts are row-major and match the host ops' documentation.
// Not here: attention (ref/attention_ref.h), anything fast.
#pragma once

#include <cstdint>
#include <vector>

namespace nanotrn::ref {

using Shape = std::vector<int64_t>;  // the same type as tensor/tensor.h's Shape; ref/ depends on base only

struct RefTensor {
  Shape shape;
  std::vector<double> v;
  int64_t numel() const { return static_cast<int64_t>(v.size()); }
};

enum class BinaryOp { add, sub, mul, div };
RefTensor binary(const RefTensor& a, const RefTensor& b, BinaryOp op);  // numpy broadcasting
RefTensor scale(const RefTensor& x, double s);
RefTensor add_scalar(const RefTensor& x, double s);
RefTensor sum(const RefTensor& x, const std::vector<int64_t>& dims, bool keepdim);
RefTensor mean(const RefTensor& x, const std::vector<int64_t>& dims, bool keepdim);
RefTensor transpose(const RefTensor& x, int64_t d0, int64_t d1);
RefTensor narrow(const RefTensor& x, int64_t dim, int64_t start, int64_t length);
RefTensor concat(const std::vector<RefTensor>& xs, int64_t dim);

enum class Unary { relu2, leaky_relu2, gelu, gelu_tanh, silu, sigmoid, tanh, softcap };
RefTensor unary(const RefTensor& x, Unary f, double param = 0.0);  // param: slope (leaky_relu2) or cap (softcap)
RefTensor softmax(const RefTensor& x);                             // last dimension
RefTensor clamp(const RefTensor& x, double lo, double hi);         // min(max(x, lo), hi)

// a [..., M, K] (or [..., K, M] with ta), b [..., K, N] (or [..., N, K] with tb, or 2-D shared).
RefTensor matmul(const RefTensor& a, const RefTensor& b, bool ta, bool tb);
// The same product and, per element, sum_k |a_ik b_kj|: what a matmul's rounding-error bound is stated in (the tile
// kernels' checks, neuron/registry/matmul_entry.cpp).
struct MatmulRef {
  RefTensor product, magnitude;
};
MatmulRef matmul_with_magnitude(const RefTensor& a, const RefTensor& b, bool ta, bool tb);
RefTensor embedding(const std::vector<int32_t>& ids, const Shape& ids_shape, const RefTensor& table);
RefTensor rms_norm(const RefTensor& x, double eps);
// inv_freq: empty, or R / 2 frequencies in place of base^(-2j/R); cos and sin times magnitude.
RefTensor rotary(const RefTensor& x, double base, double fraction, int64_t position_offset,
                 const std::vector<double>& inv_freq = {}, double magnitude = 1.0);
// Mean over non-ignored targets of logsumexp(z) - z[t], z = softcap(x w^T) (cap 0 = off); also the per-row nll.
double linear_cross_entropy(const RefTensor& x, const RefTensor& w, const std::vector<int32_t>& targets, double softcap,
                            int32_t ignore_index, std::vector<double>* per_row = nullptr);

}  // namespace nanotrn::ref
