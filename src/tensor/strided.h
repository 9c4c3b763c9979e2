// Strided iteration for element-wise kernels: walks an index space row by row (the last dimension is the row) and
// hands the kernel the base offset of each operand, so that the kernel's inner loop is a plain, vectorisable loop
// over `row_length` elements with per-operand inner strides (1 for contiguous rows, 0 for broadcast ones).
//
//   for_each_row<2>(out_shape, {&a_strides, &b_strides}, [&](int64_t n, const std::array<int64_t, 2>& off) {
//     for (int64_t i = 0; i < n; i++) y[off[0] + i * sa] = ...;  });
//
// Rows are distributed over OpenMP threads when the space holds more than `parallel_from` elements.
// Not here: reductions across rows (ops/reduce.cpp), type dispatch.
#pragma once

#include <array>
#include <cstdint>

#include "tensor/tensor.h"

namespace nanotrn {

// Numpy broadcasting: aligns trailing dimensions; sizes must match or be 1. Throws naming both shapes otherwise.
Shape broadcast_shapes(const Shape& a, const Shape& b);
// The strides to read a tensor of `shape`/`strides` broadcast to `target` (0 on broadcast dimensions).
Shape broadcast_strides(const Shape& shape, const Shape& strides, const Shape& target);

template <size_t N, typename F>
void for_each_row(const Shape& shape, const std::array<const Shape*, N>& strides, F&& kernel,
                  int64_t parallel_from = 1 << 15) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  const int64_t row = nd == 0 ? 1 : shape[nd - 1];
  const int64_t total = shape_numel(shape);
  if (total == 0) return;
  const int64_t rows = total / row;
#pragma omp parallel for if (total >= parallel_from) schedule(static)
  for (int64_t r = 0; r < rows; r++) {
    std::array<int64_t, N> off{};
    int64_t rem = r;
    for (int64_t d = nd - 2; d >= 0; d--) {
      const int64_t i = rem % shape[d];
      rem /= shape[d];
      for (size_t k = 0; k < N; k++) off[k] += i * (*strides[k])[d];
    }
    kernel(row, off);
  }
}

// Inner stride of an operand along the row (0 for a 0-dim tensor).
inline int64_t row_stride(const Shape& strides) { return strides.empty() ? 0 : strides.back(); }

}  // namespace nanotrn
