// The softmax kernel's definition (kernels/softmax.h): row softmax of x[rows, cols]; an SPMD launch splits the rows.
// Check: |y - ref| <= ref ((C + 8 + 2 spread) e + u), spread = max - min of the row: the exp argument's rounding
// (<= spread e relative), fp32 exp (2 e), the C-term fp32 sum, reciprocal and multiply (e each), then the output
// rounding u. Inputs uniform [-4, 4).
#include <cmath>

#include "neuron/kernels/softmax.h"
#include "neuron/registry/builtin_kernels.h"
#include "neuron/registry/rows_params.h"

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
    auto x = [&](int64_t i, int64_t j) { return static_cast<double>(in[0][static_cast<size_t>(i * s.cols + j)]); };
    for (int64_t i = 0; i < s.rows; ++i) {
      double mx = -INFINITY, mn = INFINITY, sum = 0;
      for (int64_t j = 0; j < s.cols; ++j) {
        mx = std::max(mx, x(i, j));
        mn = std::min(mn, x(i, j));
      }
      for (int64_t j = 0; j < s.cols; ++j) sum += std::exp(x(i, j) - mx);
      const double rel = (static_cast<double>(s.cols) + 8 + 2 * (mx - mn)) * e + u;
      for (int64_t j = 0; j < s.cols; ++j) {
        const double ref = std::exp(x(i, j) - mx) / sum;
        c.compare(static_cast<double>(out[0][static_cast<size_t>(i * s.cols + j)]), ref, ref * rel);
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
