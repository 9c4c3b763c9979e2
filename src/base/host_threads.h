// The most threads nanotrn runs on this machine: 4 x its hardware threads. libgomp starts every thread of a parallel
// region up front, each with its own stack; a mistyped count (100000) exhausts memory or the process's mappings and
// crashes inside the runtime (SIGSEGV). Beyond a few threads per core nothing gets faster, so 4 x the cores is a
// generous ceiling no sane setting reaches. One rule for every way a thread count arrives: a recipe's train.threads
// (recipe/recipe_ranges.h) and the OpenMP environment (OMP_NUM_THREADS, checked by engine/engine.h).
//
//   max_host_threads();   // 8 on a 2-core machine
#pragma once

#include <algorithm>
#include <thread>

namespace nanotrn {

inline int max_host_threads() { return 4 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

}  // namespace nanotrn
