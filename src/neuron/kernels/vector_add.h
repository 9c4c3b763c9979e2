// The vector-add tile kernel of Stanford CS149's Trainium assignment (hardware-facts addendum): out = a + b over
// HBM tensors [R, C] of one float dtype, moved through SBUF in tiles of [tile_rows, tile_cols] (tile_rows <= 128
// partitions) and added on VectorE: tensor_scalar with a per-partition operand when tile_cols == 1 (the
// assignment's `vector_add_tiled`), tensor_tensor otherwise (`vector_add_stream`). A vector of n elements is the
// tensor [n, 1] for the row-chunk form (tiles [chunk, 1]) or [128, n / 128] for the streamed form (tiles
// [128, free]): the same bytes, two layouts.
//
//   KernelBuilder b(spec_for("v3"));
//   View a = b.hbm("a", 128, 200, DType::f32), x = b.hbm("b", 128, 200, DType::f32), o = b.hbm("out", 128, 200, ...);
//   vector_add_kernel(b, a, x, o, {.rows = 128, .cols = 200}, Schedule::naive);
//
// Schedules:
//   naive      the assignment's loop as written: per tile, load a and b (queue 0), add, store (queue 0); one set of
//              tiles, so each tile waits for the previous store;
//   pipelined  two tile sets, loads over queues 0-7 and stores over 8-15, so the next tile's loads overlap the
//              current tile's add and store.
// Tiles iterate row blocks, then column blocks within each; ragged edges use smaller tiles.
// Throws nanotrn::Error "[shape]" for non-HBM or mismatched operands or a tile outside 1..128 x 1..C.
#pragma once

#include <cstdint>
#include <source_location>

#include "neuron/isa/builder.h"
#include "neuron/kernels/schedule.h"

namespace nanotrn::neuron {

struct AddTile {
  int64_t rows = 128, cols = 1;
};

void vector_add_kernel(KernelBuilder& b, const View& a, const View& x, const View& out, AddTile tile, Schedule schedule,
                       std::source_location loc = std::source_location::current());

}  // namespace nanotrn::neuron
