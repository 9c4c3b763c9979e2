// The transpose kernel's definition (kernels/transpose.h): y[C, R] = x[R, C]^T on TensorE; an SPMD launch splits
// the columns of x (rows of y). Check: exact (PSUM fp32 holds every narrower value, the copy back is exact).
#include "neuron/kernels/transpose.h"
#include "neuron/registry/builtin_kernels.h"
#include "neuron/registry/rows_params.h"

namespace nanotrn::neuron {

KernelDefinition<RowsShape> transpose_definition() {
  KernelDefinition<RowsShape> d;
  d.name = "transpose";
  d.description =
      "y[C,R] = x[R,C]^T on TensorE (nc_transpose); naive per 128x128 block, pipelined with 512-row groups "
      "filling PSUM banks, double-buffered strips, Vector/Scalar eviction";
  set_rows_shape_parts(d);
  d.build = [](KernelBuilder& b, const RowsShape& s, const KernelContext& c, KernelIo& io) {
    const View x = io.add_input(b.hbm("x", s.rows, s.cols, c.dtype));
    const View y = b.hbm("y", s.cols, s.rows, c.dtype);
    const auto [lo, hi] = core_share(s.cols, c.core, c.cores);
    const View w = io.add_output(y, b.slice(y, lo, hi - lo, 0, s.rows));
    transpose_kernel(b, b.slice(x, 0, s.rows, lo, hi - lo), w, c.schedule);
  };
  d.inputs = [](const RowsShape& s, DType t, uint64_t seed) {
    return HostTensors{SeededInputs(seed, t).uniform(static_cast<size_t>(s.rows * s.cols), -1, 1)};
  };
  d.check = [](const RowsShape& s, DType, const HostTensors& in, const HostTensors& out) {
    CheckOutcome c;
    c.rule = "exact: y == x^T";
    for (int64_t i = 0; i < s.rows; ++i)
      for (int64_t j = 0; j < s.cols; ++j)
        c.compare(static_cast<double>(out[0][static_cast<size_t>(j * s.rows + i)]),
                  static_cast<double>(in[0][static_cast<size_t>(i * s.cols + j)]), 0.0);
    return c;
  };
  d.check_size = [](const RowsShape& s) { return elements_check_size(s.rows, s.cols); };
  d.hbm_bytes = [](const RowsShape& s, DType t) { return 2.0 * static_cast<double>(dtype_size(t) * s.rows * s.cols); };
  return d;
}

}  // namespace nanotrn::neuron
