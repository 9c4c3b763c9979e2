// The RMSNorm tile kernel (see rmsnorm.h). Not here: execution or timing.
#include "neuron/kernels/rmsnorm.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace nanotrn::neuron {
namespace {

constexpr int64_t kP = 128;

struct Tiles {
  View x, sq, xn, y, ss, ms, rstd;
};

Tiles make_tiles(KernelBuilder& b, int index, int64_t cols, DType t) {
  const std::string i = std::to_string(index);
  // xn in the tensor dtype: an all-bf16 SBUF multiply with gamma runs at 1 element / cycle [ISA-2025-10].
  return {b.sbuf("x" + i, kP, cols, t),         b.sbuf("sq" + i, kP, cols, DType::f32),
          b.sbuf("xn" + i, kP, cols, t),        b.sbuf("y" + i, kP, cols, t),
          b.sbuf("ss" + i, kP, 1, DType::f32),  b.sbuf("ms" + i, kP, 1, DType::f32),
          b.sbuf("rstd" + i, kP, 1, DType::f32)};
}

// The steps of one 128-row tile (rows [r0, r0 + rs)), issued separately so the pipelined schedule can skew them
// across tiles: load; ScalarE square + sum; the rest (mean + eps, rsqrt, scale, gamma, store).
struct Step {
  KernelBuilder& b;
  const View &g, &x, &y;
  float eps;
  View v(const View& tile_view, int64_t rs, int64_t nf) const { return b.slice(tile_view, 0, rs, 0, nf); }
  void load(const Tiles& t, int64_t r0, int64_t rs, int q) const {
    b.dma_copy(v(t.x, rs, x.nf), b.slice(x, r0, rs, 0, x.nf), q);
  }
  void squares(const Tiles& t, int64_t rs) const {
    ActArgs sq_args;
    sq_args.reduce_into = v(t.ss, rs, 1);
    b.activation(v(t.sq, rs, x.nf), v(t.x, rs, x.nf), Act::square, sq_args);
  }
  void rest(const Tiles& t, int64_t r0, int64_t rs, int q) const {
    const int64_t d = x.nf;
    b.tensor_scalar(v(t.ms, rs, 1), v(t.ss, rs, 1), AluOp::multiply, 1.0f / static_cast<float>(d), AluOp::add, eps);
    b.activation(v(t.rstd, rs, 1), v(t.ms, rs, 1), Act::rsqrt);
    ActArgs scale_args;
    scale_args.scale_vector = v(t.rstd, rs, 1);
    b.activation(v(t.xn, rs, d), v(t.x, rs, d), Act::copy, scale_args);
    b.tensor_tensor(v(t.y, rs, d), v(t.xn, rs, d), b.slice(g, 0, rs, 0, d), AluOp::multiply);
    b.dma_copy(b.slice(y, r0, rs, 0, d), v(t.y, rs, d), q);
  }
};

}  // namespace

void rmsnorm_kernel(KernelBuilder& b, const View& x, const View& gamma, const View& y, float eps, Schedule schedule,
                    std::source_location loc) {
  check_hbm_operands(b, "rmsnorm_kernel", {x, y, gamma}, loc);
  const DType dt = dtype_of(b, x);
  check(y.np == x.np && y.nf == x.nf && gamma.np == 1 && gamma.nf == x.nf && dtype_of(b, y) == dt && dt != DType::i32,
        "[shape] rmsnorm_kernel needs x, y [R, D] of one float dtype and gamma [1, D]", loc);
  const auto esize = static_cast<int64_t>(dtype_size(dt));
  const int64_t fixed = x.nf * (esize + static_cast<int64_t>(dtype_size(dtype_of(b, gamma))));
  const int64_t per_set = x.nf * (3 * esize + 4) + 64;
  const auto cap = static_cast<int64_t>(b.spec().sbuf_bytes_per_partition.value);
  // Pipelined: four rotating tile sets when they fit, else three (the skew below keeps three tiles in flight).
  const int sets = schedule == Schedule::naive ? 1 : fixed + 4 * per_set <= cap ? 4 : 3;
  check(fixed + sets * per_set <= cap,
        "[sbuf-capacity] rmsnorm_kernel keeps whole rows in SBUF: D = " + std::to_string(x.nf) + " needs " +
            std::to_string(fixed + sets * per_set) + " B per partition",
        loc);
  // gamma broadcast to all partitions: a stride-0 access pattern over its one row.
  const View g = b.sbuf("gamma", kP, x.nf, dt);
  b.dma_copy(g, b.pattern(gamma, 0, kP, 1, x.nf), schedule == Schedule::naive ? 0 : 15);
  Tiles t[4];
  for (int i = 0; i < sets; ++i) t[i] = make_tiles(b, i, x.nf, dt);
  const Step step{b, g, x, y, eps};
  auto set = [&](const RowTile& r) -> const Tiles& { return t[r.index % sets]; };  // naive: one set
  auto queue = [](const RowTile& r, int first) { return r.naive ? 0 : first + static_cast<int>(r.index % 7); };
  run_row_tiles(
      schedule, x.np, kP, [&](const RowTile& r) { step.load(set(r), r.row0, r.rows, queue(r, 0)); },
      [&](const RowTile& r) { step.squares(set(r), r.rows); },
      [&](const RowTile& r) { step.rest(set(r), r.row0, r.rows, queue(r, 8)); });
}

}  // namespace nanotrn::neuron
