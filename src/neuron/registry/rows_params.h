// The rows x cols parameters the element-wise kernels share (transpose, softmax, rmsnorm, vector_add): one
// spelling of the flags, the positivity rule and the check-size rule for all four.
// Not here: the definitions (registry/<kernel>_entry.cpp).
#pragma once

#include <string>
#include <vector>

#include "neuron/registry/check_support.h"
#include "neuron/registry/kernel_definition.h"
#include "neuron/registry/shapes.h"

namespace nanotrn::neuron {

inline std::vector<ParamSpec> rows_cols_params(int64_t rows, int64_t cols) {
  return {int_param("rows", rows, "rows of x (transpose, softmax, rmsnorm, vector_add)"),
          int_param("cols", cols, "columns of x (transpose, softmax, rmsnorm, vector_add)")};
}
// rows and cols of p, both checked positive.
inline std::pair<int64_t, int64_t> rows_cols_of(const KernelParams& p) {
  const int64_t rows = p.integer("rows"), cols = p.integer("cols");
  check(rows > 0 && cols > 0, "kernel sizes must be positive");
  return {rows, cols};
}
inline std::string rows_cols_text(int64_t rows, int64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}
// A RowsShape kernel's parameters, from_params, to_params and describe (transpose, softmax).
inline void set_rows_shape_parts(KernelDefinition<RowsShape>& d) {
  const RowsShape def;
  d.params = rows_cols_params(def.rows, def.cols);
  d.from_params = [](const KernelParams& p) {
    const auto [rows, cols] = rows_cols_of(p);
    return RowsShape{rows, cols};
  };
  d.to_params = [](const RowsShape& s) { return KernelParams{{"rows", s.rows}, {"cols", s.cols}}; };
  d.describe = [](const RowsShape& s) { return rows_cols_text(s.rows, s.cols); };
}
inline CheckSize elements_check_size(int64_t rows, int64_t cols) {
  return {static_cast<double>(rows) * static_cast<double>(cols), static_cast<double>(kMaxCheckElements),
          "elements (got " + rows_cols_text(rows, cols) + ")"};
}

}  // namespace nanotrn::neuron
