// The vector_add kernel's definition (kernels/vector_add.h): out = a + b over [rows, cols] in SBUF tiles of
// [tile_rows, tile_cols] (tile_cols above cols is taken as cols); an SPMD launch splits the rows.
// Check: |out - (a + b)| <= u |a + b| (one rounding). Inputs uniform [-1, 1).
#include <algorithm>
#include <cmath>

#include "neuron/kernels/vector_add.h"
#include "neuron/registry/builtin_kernels.h"
#include "neuron/registry/check_support.h"
#include "neuron/registry/rows_params.h"
#include "ref/ops_ref.h"

namespace nanotrn::neuron {

KernelDefinition<VectorAddShape> vector_add_definition() {
  KernelDefinition<VectorAddShape> d;
  d.name = "vector_add";
  d.description =
      "out = a + b over [rows, cols] in SBUF tiles of [tile-rows, tile-cols] (CS149's vector_add_tiled: a vector "
      "as [n, 1] in [chunk, 1] tiles; vector_add_stream: [128, n / 128] in [128, free] tiles); naive as the "
      "assignment wrote it (one tile set, queue 0), pipelined double-buffered over 16 queues";
  const VectorAddShape def;
  d.params = rows_cols_params(def.rows, def.cols);
  d.params.push_back(int_param("tile_rows", def.tile_rows, "vector_add: partitions per SBUF tile (1..128)"));
  d.params.push_back(int_param("tile_cols", def.tile_cols, "vector_add: columns per SBUF tile (at most --cols)"));
  d.from_params = [](const KernelParams& p) {
    const auto [rows, cols] = rows_cols_of(p);
    return VectorAddShape{rows, cols, p.integer("tile_rows"), std::min(p.integer("tile_cols"), cols)};
  };
  d.to_params = [](const VectorAddShape& s) {
    return KernelParams{{"rows", s.rows}, {"cols", s.cols}, {"tile_rows", s.tile_rows}, {"tile_cols", s.tile_cols}};
  };
  d.describe = [](const VectorAddShape& s) { return rows_cols_text(s.rows, s.cols); };
  d.build = [](KernelBuilder& b, const VectorAddShape& s, const KernelContext& c, KernelIo& io) {
    const View a = io.add_input(b.hbm("a", s.rows, s.cols, c.dtype));
    const View x = io.add_input(b.hbm("b", s.rows, s.cols, c.dtype));
    const View y = b.hbm("out", s.rows, s.cols, c.dtype);
    const auto [lo, hi] = core_share(s.rows, c.core, c.cores);
    const View w = io.add_output(y, b.slice(y, lo, hi - lo, 0, s.cols));
    vector_add_kernel(b, b.slice(a, lo, hi - lo, 0, s.cols), b.slice(x, lo, hi - lo, 0, s.cols), w,
                      {.rows = s.tile_rows, .cols = s.tile_cols}, c.schedule);
  };
  d.inputs = [](const VectorAddShape& s, DType t, uint64_t seed) {
    SeededInputs in(seed, t);
    std::vector<float> a = in.uniform(static_cast<size_t>(s.rows * s.cols), -1, 1);
    return HostTensors{a, in.uniform(static_cast<size_t>(s.rows * s.cols), -1, 1)};
  };
  d.check = [](const VectorAddShape& s, DType t, const HostTensors& in, const HostTensors& out) {
    CheckOutcome c;
    c.rule = "|out - (a + b)| <= u_out |a + b| (one rounding)";
    const double u = unit_roundoff(t);
    const ref::RefTensor sum =
        ref::binary(as_ref(in[0], {s.rows, s.cols}), as_ref(in[1], {s.rows, s.cols}), ref::BinaryOp::add);
    for (size_t i = 0; i < sum.v.size(); ++i)
      c.compare(static_cast<double>(out[0][i]), sum.v[i], u * std::fabs(sum.v[i]));
    return c;
  };
  d.check_size = [](const VectorAddShape& s) { return elements_check_size(s.rows, s.cols); };
  d.hbm_bytes = [](const VectorAddShape& s, DType t) {
    return 3.0 * static_cast<double>(dtype_size(t) * s.rows * s.cols);
  };
  return d;
}

}  // namespace nanotrn::neuron
