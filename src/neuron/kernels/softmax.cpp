// The row-softmax tile kernel (see softmax.h). Not here: execution or timing.
#include "neuron/kernels/softmax.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace nanotrn::neuron {
namespace {

constexpr int64_t kP = 128;

struct Tiles {
  View x, e, y, negmax, sum, rsum;
};

Tiles make_tiles(KernelBuilder& b, int index, int64_t cols, DType t) {
  const std::string i = std::to_string(index);
  return {b.sbuf("x" + i, kP, cols, t),         b.sbuf("e" + i, kP, cols, DType::f32),
          b.sbuf("y" + i, kP, cols, t),         b.sbuf("negmax" + i, kP, 1, DType::f32),
          b.sbuf("sum" + i, kP, 1, DType::f32), b.sbuf("rsum" + i, kP, 1, DType::f32)};
}

// The three steps of one 128-row tile (rows [r0, r0 + rs) of x to y), issued separately so the pipelined schedule
// can skew them across tiles: load; VectorE -max; the rest (ScalarE exp + sum, VectorE reciprocal, the scaling on
// VectorE or ScalarE, the store).
struct Step {
  KernelBuilder& b;
  const View &x, &y;
  View v(const View& tile_view, int64_t rs, int64_t nf) const { return b.slice(tile_view, 0, rs, 0, nf); }
  void load(const Tiles& t, int64_t r0, int64_t rs, int q) const {
    b.dma_copy(v(t.x, rs, x.nf), b.slice(x, r0, rs, 0, x.nf), q);
  }
  void max(const Tiles& t, int64_t rs) const {
    b.reduce(v(t.negmax, rs, 1), v(t.x, rs, x.nf), AluOp::max, /*negate=*/true);
  }
  void rest(const Tiles& t, int64_t r0, int64_t rs, int q, bool scalar_multiply) const {
    const int64_t c = x.nf;
    ActArgs exp_args;
    exp_args.bias_vector = v(t.negmax, rs, 1);
    exp_args.reduce_into = v(t.sum, rs, 1);
    b.activation(v(t.e, rs, c), v(t.x, rs, c), Act::exp, exp_args);
    b.reciprocal(v(t.rsum, rs, 1), v(t.sum, rs, 1));
    if (scalar_multiply) {
      ActArgs scale_args;
      scale_args.scale_vector = v(t.rsum, rs, 1);
      b.activation(v(t.y, rs, c), v(t.e, rs, c), Act::copy, scale_args);
    } else {
      b.tensor_scalar(v(t.y, rs, c), v(t.e, rs, c), AluOp::multiply, v(t.rsum, rs, 1));
    }
    b.dma_copy(b.slice(y, r0, rs, 0, c), v(t.y, rs, c), q);
  }
};

}  // namespace

void softmax_kernel(KernelBuilder& b, const View& x, const View& y, Schedule schedule, std::source_location loc) {
  check_hbm_operands(b, "softmax_kernel", {x, y}, loc);
  const DType dt = dtype_of(b, x);
  check(y.np == x.np && y.nf == x.nf && dtype_of(b, y) == dt && dt != DType::i32,
        "[shape] softmax_kernel needs x and y [R, C] of one float dtype", loc);
  const auto row_bytes = x.nf * static_cast<int64_t>(2 * dtype_size(dt) + 4) + 64;
  const auto cap = static_cast<int64_t>(b.spec().sbuf_bytes_per_partition.value);
  // Pipelined: four rotating tile sets when they fit, else three (the skew below keeps three tiles in flight).
  const int sets = schedule == Schedule::naive ? 1 : 4 * row_bytes <= cap ? 4 : 3;
  check(sets * row_bytes <= cap,
        "[sbuf-capacity] softmax_kernel keeps whole rows in SBUF: C = " + std::to_string(x.nf) + " needs " +
            std::to_string(sets * row_bytes) + " B per partition",
        loc);
  Tiles t[4];
  for (int i = 0; i < sets; ++i) t[i] = make_tiles(b, i, x.nf, dt);
  const Step step{b, x, y};
  auto set = [&](const RowTile& r) -> const Tiles& { return t[r.index % sets]; };  // naive: one set
  auto queue = [](const RowTile& r, int first) { return r.naive ? 0 : first + static_cast<int>(r.index % 8); };
  // Pipelined: VectorE's max of the next tile runs while ScalarE exponentiates this one (in-order engine queues would
  // otherwise ping-pong).
  run_row_tiles(
      schedule, x.np, kP, [&](const RowTile& r) { step.load(set(r), r.row0, r.rows, queue(r, 0)); },
      [&](const RowTile& r) { step.max(set(r), r.rows); },
      [&](const RowTile& r) { step.rest(set(r), r.row0, r.rows, queue(r, 8), !r.naive && r.index % 2 == 1); });
}

}  // namespace nanotrn::neuron
