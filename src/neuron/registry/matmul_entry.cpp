// The matmul kernel's definition (kernels/matmul.h): C[M, N] fp32 = A_T[K, M]^T B[K, N]; an SPMD launch splits M.
// Check: fp32 accumulation of exact products, |c - ref| <= (K + 2) e sum_k |a b| (check_support.h), inputs
// uniform [-1, 1).
#include <cmath>
#include <string>

#include "neuron/kernels/matmul.h"
#include "neuron/registry/builtin_kernels.h"
#include "neuron/registry/check_support.h"
#include "ref/ops_ref.h"

namespace nanotrn::neuron {

KernelDefinition<MatmulShape> matmul_definition() {
  KernelDefinition<MatmulShape> d;
  d.name = "matmul";
  d.description =
      "C[M,N] fp32 = A_T[K,M]^T @ B[K,N]; naive (no overlap, no reuse) and pipelined (blocked, operands resident "
      "in SBUF, double-buffered DMAs over 16 queues; fp8 double-row on v3/v4)";
  const MatmulShape def;
  d.params = {int_param("m", def.m, "M (rows of C)"), int_param("k", def.k, "K (contraction)"),
              int_param("n", def.n, "N (columns of C)")};
  d.from_params = [](const KernelParams& p) {
    const MatmulShape s{p.integer("m"), p.integer("k"), p.integer("n")};
    check(s.m > 0 && s.k > 0 && s.n > 0, "kernel sizes must be positive");
    return s;
  };
  d.to_params = [](const MatmulShape& s) { return KernelParams{{"m", s.m}, {"k", s.k}, {"n", s.n}}; };
  d.describe = [](const MatmulShape& s) {
    return std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n);
  };
  d.build = [](KernelBuilder& b, const MatmulShape& s, const KernelContext& c, KernelIo& io) {
    const View at = io.add_input(b.hbm("a_t", s.k, s.m, c.dtype));
    const View bm = io.add_input(b.hbm("b", s.k, s.n, c.dtype));
    const View cm = b.hbm("c", s.m, s.n, DType::f32);
    const auto [lo, hi] = core_share(s.m, c.core, c.cores);
    const View w = io.add_output(cm, b.slice(cm, lo, hi - lo, 0, s.n));
    matmul_kernel(b, b.slice(at, 0, s.k, lo, hi - lo), bm, w, c.dtype, c.schedule);
  };
  d.inputs = [](const MatmulShape& s, DType t, uint64_t seed) {
    SeededInputs in(seed, t);
    std::vector<float> a = in.uniform(static_cast<size_t>(s.k * s.m), -1, 1);
    return HostTensors{a, in.uniform(static_cast<size_t>(s.k * s.n), -1, 1)};
  };
  d.check = [](const MatmulShape& s, DType, const HostTensors& in, const HostTensors& out) {
    CheckOutcome c;
    c.rule = "|c - ref| <= (K + 2) 2^-24 sum_k |a b|";
    const double e = std::ldexp(1.0, -24);
    const ref::MatmulRef r =
        ref::matmul_with_magnitude(as_ref(in[0], {s.k, s.m}), as_ref(in[1], {s.k, s.n}), /*ta=*/true, /*tb=*/false);
    for (size_t i = 0; i < r.product.v.size(); ++i)
      c.compare(static_cast<double>(out[0][i]), r.product.v[i], static_cast<double>(s.k + 2) * e * r.magnitude.v[i]);
    return c;
  };
  d.check_size = [](const MatmulShape& s) {
    return CheckSize{static_cast<double>(s.m) * static_cast<double>(s.k) * static_cast<double>(s.n),
                     static_cast<double>(kMaxCheckMacs),
                     "multiply-adds (1024^3; got " + std::to_string(s.m) + "x" + std::to_string(s.k) + "x" +
                         std::to_string(s.n) + ")"};
  };
  d.flops = [](const MatmulShape& s) {
    return 2 * static_cast<double>(s.m) * static_cast<double>(s.k) * static_cast<double>(s.n);
  };
  d.hbm_bytes = [](const MatmulShape& s, DType t) {
    const auto in = static_cast<double>(dtype_size(t)) * static_cast<double>(s.k * (s.m + s.n));
    return in + 4 * static_cast<double>(s.m * s.n);
  };
  d.batched = [](MatmulShape s, int64_t g) {  // g products of one K and N stacked along M
    s.m *= g;
    return s;
  };
  return d;
}

}  // namespace nanotrn::neuron
