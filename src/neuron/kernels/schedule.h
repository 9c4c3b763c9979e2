// The two schedules every shipped tile kernel comes in, and the small helpers they share.
//   naive      single buffers, every DMA on queue 0: each step waits for the previous one, nothing overlaps;
//   pipelined  multi-buffered tiles, loads and stores spread over DMA queues, work split across engines, so the
//              next tile's DMA overlaps the current tile's compute.
// Not here: the kernels (matmul.h, transpose.h, softmax.h, rmsnorm.h, attention.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <source_location>
#include <string>

#include "base/error.h"
#include "neuron/isa/builder.h"

namespace nanotrn::neuron {

enum class Schedule { naive, pipelined };
using MatmulSchedule = Schedule;

inline const char* schedule_name(Schedule s) { return s == Schedule::naive ? "naive" : "pipelined"; }
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The element type of the tensor or tile a view is in.
inline DType dtype_of(const KernelBuilder& b, const View& v) {
  return b.program().buffers.at(static_cast<size_t>(v.buffer)).dtype;
}
// A kernel's operands must be HBM tensors: nanotrn::Error "[shape] <kernel> operands must be HBM tensors" at `loc`
// (the kernel call's line) otherwise.
inline void check_hbm_operands(const KernelBuilder& b, const char* kernel, std::initializer_list<View> operands,
                               std::source_location loc) {
  for (const View& v : operands)
    if (b.program().buffers.at(static_cast<size_t>(v.buffer)).memory != Memory::hbm)
      throw Error(std::string("[shape] ") + kernel + " operands must be HBM tensors", loc);
}

// One tile of rows of a row-tile kernel: its index, first row and row count, and whether the schedule is naive
// (which means DMA queue 0).
struct RowTile {
  int64_t index, row0, rows;
  bool naive;
};

// The row-tile driver of the three-stage kernels (softmax, rmsnorm) over `rows` rows in tiles of `tile_rows`: each
// tile is loaded, gets a middle stage on one engine and is finished on others. naive: tile after tile. pipelined
// (skewed): iteration i loads tile i + 2, runs the middle stage of tile i + 1 and finishes tile i, so neighbouring
// tiles' stages overlap across the in-order engine queues. Each callback gets the RowTile.
template <typename Load, typename Middle, typename Finish>
void run_row_tiles(Schedule schedule, int64_t rows, int64_t tile_rows, Load&& load, Middle&& middle, Finish&& finish) {
  const bool naive = schedule == Schedule::naive;
  const int64_t tiles = ceil_div(rows, tile_rows);
  auto tile = [&](int64_t i) { return RowTile{i, i * tile_rows, std::min(tile_rows, rows - i * tile_rows), naive}; };
  if (naive) {
    for (int64_t i = 0; i < tiles; ++i) {
      load(tile(i));
      middle(tile(i));
      finish(tile(i));
    }
    return;
  }
  if (tiles > 0) load(tile(0));
  if (tiles > 1) load(tile(1));
  if (tiles > 0) middle(tile(0));
  for (int64_t i = 0; i < tiles; ++i) {
    if (i + 2 < tiles) load(tile(i + 2));
    if (i + 1 < tiles) middle(tile(i + 1));
    finish(tile(i));
  }
}

}  // namespace nanotrn::neuron
