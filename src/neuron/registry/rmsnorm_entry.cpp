// The rmsnorm kernel's definition (kernels/rmsnorm.h): y = x rsqrt(mean(x^2) + eps) gamma over x[rows, cols],
// gamma [1, cols]; an SPMD launch splits the rows. Check: |y - ref| <= |ref| ((D + 12) e + 2u + u^2): square,
// D-term sum, 1/D and eps, rsqrt (half the relative error of its argument plus 2 e), x * rstd rounded to the dtype
// (u), the gamma multiply in fp32, then the output rounding (u). Inputs x uniform [-1, 1), gamma [0.5, 1.5).
#include <cmath>

#include "neuron/kernels/rmsnorm.h"
#include "neuron/registry/builtin_kernels.h"
#include "neuron/registry/check_support.h"
#include "neuron/registry/rows_params.h"
#include "ref/ops_ref.h"

namespace nanotrn::neuron {

KernelDefinition<RmsnormShape> rmsnorm_definition() {
  KernelDefinition<RmsnormShape> d;
  d.name = "rmsnorm";
  d.description =
      "x * rsqrt(mean(x^2) + eps) * gamma (gamma broadcast by a stride-0 DMA): ScalarE square with fused sum, "
      "rsqrt, scale; VectorE gamma; pipelined: 4 tile sets, steps skewed across tiles";
  const RmsnormShape def;
  d.params = rows_cols_params(def.rows, def.cols);
  d.params.push_back(real_param("eps", def.eps, "rmsnorm epsilon"));
  d.from_params = [](const KernelParams& p) {
    const auto [rows, cols] = rows_cols_of(p);
    return RmsnormShape{rows, cols, static_cast<float>(p.real("eps"))};
  };
  d.to_params = [](const RmsnormShape& s) {
    return KernelParams{{"rows", s.rows}, {"cols", s.cols}, {"eps", static_cast<double>(s.eps)}};
  };
  d.describe = [](const RmsnormShape& s) { return rows_cols_text(s.rows, s.cols); };
  d.build = [](KernelBuilder& b, const RmsnormShape& s, const KernelContext& c, KernelIo& io) {
    const View x = io.add_input(b.hbm("x", s.rows, s.cols, c.dtype));
    const View g = io.add_input(b.hbm("gamma", 1, s.cols, c.dtype));
    const View y = b.hbm("y", s.rows, s.cols, c.dtype);
    const auto [lo, hi] = core_share(s.rows, c.core, c.cores);
    const View w = io.add_output(y, b.slice(y, lo, hi - lo, 0, s.cols));
    rmsnorm_kernel(b, b.slice(x, lo, hi - lo, 0, s.cols), g, w, s.eps, c.schedule);
  };
  d.inputs = [](const RmsnormShape& s, DType t, uint64_t seed) {
    SeededInputs in(seed, t);
    std::vector<float> x = in.uniform(static_cast<size_t>(s.rows * s.cols), -1, 1);
    return HostTensors{x, in.uniform(static_cast<size_t>(s.cols), 0.5f, 1.5f)};
  };
  d.check = [](const RmsnormShape& s, DType t, const HostTensors& in, const HostTensors& out) {
    CheckOutcome c;
    c.rule = "|y - ref| <= |ref| ((D + 12) 2^-24 + 2 u + u^2)";
    const double e = std::ldexp(1.0, -24), u = unit_roundoff(t);
    const double rel = (static_cast<double>(s.cols) + 12) * e + 2 * u + u * u;
    const ref::RefTensor normed = ref::rms_norm(as_ref(in[0], {s.rows, s.cols}), static_cast<double>(s.eps));
    for (int64_t i = 0; i < s.rows; ++i) {
      for (int64_t j = 0; j < s.cols; ++j) {
        const auto at = static_cast<size_t>(i * s.cols + j);
        const double ref = normed.v[at] * static_cast<double>(in[1][static_cast<size_t>(j)]);  // times the gain
        c.compare(static_cast<double>(out[0][at]), ref, std::fabs(ref) * rel);
      }
    }
    return c;
  };
  d.check_size = [](const RmsnormShape& s) { return elements_check_size(s.rows, s.cols); };
  d.hbm_bytes = [](const RmsnormShape& s, DType t) {
    return static_cast<double>(dtype_size(t) * (2 * s.rows * s.cols + s.cols));
  };
  d.batched = [](RmsnormShape s, int64_t g) {
    s.rows *= g;
    return s;
  };
  return d;
}

}  // namespace nanotrn::neuron
