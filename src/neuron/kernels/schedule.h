// The two schedules every shipped tile kernel comes in, and the small helpers they share.
//   naive      single buffers, every DMA on queue 0: each step waits for the previous one, nothing overlaps;
//   pipelined  multi-buffered tiles, loads and stores spread over DMA queues, work split across engines, so the
//              next tile's DMA overlaps the current tile's compute.
// Not here: the kernels (matmul.h, transpose.h, softmax.h, rmsnorm.h).
#pragma once

#include <cstdint>

namespace nanotrn::neuron {

enum class Schedule { naive, pipelined };
using MatmulSchedule = Schedule;

inline const char* schedule_name(Schedule s) { return s == Schedule::naive ? "naive" : "pipelined"; }
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The row-tile driver of the three-stage kernels (softmax, rmsnorm): each tile is loaded, gets a middle stage on one
// engine and is finished on others. naive: tile after tile. pipelined (skewed): iteration i loads tile i + 2, runs
// the middle stage of tile i + 1 and finishes tile i, so neighbouring tiles' stages overlap across the in-order engine
// queues. Each callback gets the tile index and whether the schedule is naive (which means DMA queue 0).
template <typename Load, typename Middle, typename Finish>
void run_row_tiles(Schedule schedule, int64_t tiles, Load&& load, Middle&& middle, Finish&& finish) {
  const bool naive = schedule == Schedule::naive;
  if (naive) {
    for (int64_t i = 0; i < tiles; ++i) {
      load(i, naive);
      middle(i, naive);
      finish(i, naive);
    }
    return;
  }
  load(0, naive);
  if (tiles > 1) load(1, naive);
  middle(0, naive);
  for (int64_t i = 0; i < tiles; ++i) {
    if (i + 2 < tiles) load(i + 2, naive);
    if (i + 1 < tiles) middle(i + 1, naive);
    finish(i, naive);
  }
}

}  // namespace nanotrn::neuron
