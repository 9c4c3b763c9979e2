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

}  // namespace nanotrn::neuron
