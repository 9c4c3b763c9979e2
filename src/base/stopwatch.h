// Elapsed wall time for progress lines and stage summaries (steady clock, so a clock change does not bend it).
//   const auto t0 = std::chrono::steady_clock::now();  ...;  double s = seconds_since(t0);
// Not here: benchmarking (bench/ uses Google Benchmark) or the modelled device clock (recipe/clock.h).
#pragma once

#include <chrono>

namespace nanotrn {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace nanotrn
