// The softmax kernel's definition (kernels/softmax.h): row softmax of x[rows, cols]; an SPMD launch splits the rows.
// Check: |y - ref| <= ref ((C + 8 + 2 spread) e + u), spread = max - min of the row: the exp argument's rounding
// (<= spread e relative), fp32 exp (2 e), the C-term fp32 sum, reciprocal and multiply (e each), then the output
// rounding u. Inputs uniform [-4, 4).
#include <algorithm>
#include <cmath>

#include "neuron/kernels/softmax.h"
#include "neuron/registry/builtin_kernels.h"
#include "neuron/registry/check_support.h"
#include "neuron/registry/rows_params.h"
#include "ref/ops_ref.h"

namespace nanotrn::neuron {

KernelDefinition<RowsShape> softmax_definition() {
  KernelDefinition<RowsShape> d;
  d.name = "softmax";
  d.description =
      "row softmax: VectorE -max, ScalarE exp with bias and fused row sum, VectorE reciprocal and scale; "
      "pipelined: 4 tile sets, steps skewed across tiles, scale alternating Vector/Scalar";
  set_rows_shape_parts(d);
  d.build = [](KernelBuilder& b, const RowsShape& s, const KernelContext& c, KernelIo& io) {
    const View x = io.add_input(b.hbm("x", s.rows, s.cols, c.dtype));
    const View y = b.hbm("y", s.rows, s.cols, c.dtype);
    const auto [lo, hi] = core_share(s.rows, c.core, c.cores);
    const View w = io.add_output(y, b.slice(y, lo, hi - lo, 0, s.cols));
    softmax_kernel(b, b.slice(x, lo, hi - lo, 0, s.cols), w, c.schedule);
  };
  d.inputs = [](const RowsShape& s, DType t, uint64_t seed) {
    return HostTensors{SeededInputs(seed, t).uniform(static_cast<size_t>(s.rows * s.cols), -4, 4)};
  };
  d.check = [](const RowsShape& s, DType t, const HostTensors& in, const HostTensors& out) {
    CheckOutcome c;
    c.rule = "|y - ref| <= ref ((C + 8 + 2 spread) 2^-24 + u_out)";
    const double e = std::ldexp(1.0, -24), u = unit_roundoff(t);
    const ref::RefTensor probs = ref::softmax(as_ref(in[0], {s.rows, s.cols}));
    for (int64_t i = 0; i < s.rows; ++i) {
      // The bound grows with the row's spread (max - min of its inputs): exp's argument range.
      const auto row = in[0].begin() + i * s.cols;
      const auto [lo, hi] = std::minmax_element(row, row + s.cols);
      const double rel = (static_cast<double>(s.cols) + 8 + 2 * (static_cast<double>(*hi) - *lo)) * e + u;
      for (int64_t j = 0; j < s.cols; ++j) {
        const auto at = static_cast<size_t>(i * s.cols + j);
        c.compare(static_cast<double>(out[0][at]), probs.v[at], probs.v[at] * rel);
      }
    }
    return c;
  };
  d.check_size = [](const RowsShape& s) { return elements_check_size(s.rows, s.cols); };
  d.hbm_bytes = [](const RowsShape& s, DType t) { return 2.0 * static_cast<double>(dtype_size(t) * s.rows * s.cols); };
  d.batched = [](RowsShape s, int64_t g) {
    s.rows *= g;
    return s;
  };
  return d;
}

}  // namespace nanotrn::neuron
