// The SwiGLU gate's definition (swiglu_definition.h).
// Check: out against silu(g) u in fp64 on the same (dtype-rounded) inputs, element by element, within
//   |out - ref| <= (u_out + 8 e) |ref| + 2^-126,   e = 2^-24,
// from the roundings the kernel makes: silu in fp32 as x / (1 + exp(-x)) (exp within 1 ulp, the sum and the quotient
// each rounded: at most 4 e relative), the fp32 product (e), the output rounding (u_out); 8 e leaves a factor 2 of
// margin, and 2^-126 covers products that underflow fp32. A kernel that skipped the silu, or multiplied by g instead
// of u, misses this bound by orders of magnitude. Inputs uniform in [-4, 4).
#include "swiglu_definition.h"

#include <cmath>

#include "neuron/registry/check_support.h"
#include "swiglu_kernel.h"

namespace example {

using namespace nanotrn::neuron;

KernelDefinition<SwigluShape> swiglu_definition() {
  KernelDefinition<SwigluShape> d;
  d.name = "swiglu";
  d.description = "out = silu(g) * u over [rows, cols] (a Llama MLP's gate): ScalarE silu, VectorE product";
  const SwigluShape def;
  d.params = {int_param("rows", def.rows, "rows of g, u, out"), int_param("cols", def.cols, "columns of g, u, out"),
              int_param("chunk", def.chunk, "swiglu: columns per SBUF tile")};
  d.from_params = [](const KernelParams& p) {
    const SwigluShape s{p.integer("rows"), p.integer("cols"), p.integer("chunk")};
    nanotrn::check(s.rows > 0 && s.cols > 0 && s.chunk > 0, "swiglu: rows, cols and chunk must be positive");
    return s;
  };
  d.to_params = [](const SwigluShape& s) {
    return KernelParams{{"rows", s.rows}, {"cols", s.cols}, {"chunk", s.chunk}};
  };
  d.describe = [](const SwigluShape& s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); };
  d.build = [](KernelBuilder& b, const SwigluShape& s, const KernelContext& c, KernelIo& io) {
    const View g = io.add_input(b.hbm("g", s.rows, s.cols, c.dtype));
    const View u = io.add_input(b.hbm("u", s.rows, s.cols, c.dtype));
    const View out = b.hbm("out", s.rows, s.cols, c.dtype);
    const auto [lo, hi] = core_share(s.rows, c.core, c.cores);  // an SPMD launch splits the rows
    const View mine = io.add_output(out, b.slice(out, lo, hi - lo, 0, s.cols));
    swiglu_kernel(b, b.slice(g, lo, hi - lo, 0, s.cols), b.slice(u, lo, hi - lo, 0, s.cols), mine, c.schedule, s.chunk);
  };
  d.inputs = [](const SwigluShape& s, nanotrn::DType t, uint64_t seed) {
    SeededInputs in(seed, t);  // nanotrn's: uniform values rounded to the dtype
    const auto n = static_cast<size_t>(s.rows * s.cols);
    std::vector<float> g = in.uniform(n, -4, 4);
    return HostTensors{g, in.uniform(n, -4, 4)};
  };
  d.check = [](const SwigluShape& s, nanotrn::DType t, const HostTensors& in, const HostTensors& out) {
    CheckOutcome c;
    c.rule = "|out - silu(g) u| <= (u_out + 8 * 2^-24) |ref| + 2^-126";
    const double rel = unit_roundoff(t) + 8 * std::ldexp(1.0, -24), tiny = std::ldexp(1.0, -126);
    for (size_t i = 0; i < static_cast<size_t>(s.rows * s.cols); ++i) {
      const double g = in[0][i], u = in[1][i], ref = g / (1 + std::exp(-g)) * u;
      c.compare(out[0][i], ref, rel * std::fabs(ref) + tiny);
    }
    return c;
  };
  // silu (an exp, an add, a divide) and the product: 4 FLOPs an element, for the report's TFLOP/s (a sliver of
  // TensorE's peak: an element-wise kernel is bound by DMA or ScalarE, which the report's verdict names).
  d.flops = [](const SwigluShape& s) { return 4.0 * static_cast<double>(s.rows * s.cols); };
  d.hbm_bytes = [](const SwigluShape& s, nanotrn::DType t) {  // g, u in; out out
    return 3.0 * static_cast<double>(s.rows * s.cols) * static_cast<double>(nanotrn::dtype_size(t));
  };
  return d;
}

}  // namespace example
