#include "engine/engine.h"

#include <omp.h>

#include "base/error.h"
#include "base/host_threads.h"

namespace nanotrn {

Engine::Engine(EngineOptions options)
    : allocator_(std::make_shared<CachingAllocator>()),
      gemm_(std::make_unique<Gemm>(GemmKernel::kJitGemm, options.bf16)) {
  check(options.num_threads >= 0, "Engine: num_threads must be >= 0, got " + std::to_string(options.num_threads));
  if (options.num_threads > 0) {
    omp_set_num_threads(options.num_threads);
    return;
  }
  // The OpenMP default: OMP_NUM_THREADS, or all cores. The environment is checked as train.threads is, before the
  // first parallel region would try to start that many threads.
  check(omp_get_max_threads() <= max_host_threads(), "OMP_NUM_THREADS=" + std::to_string(omp_get_max_threads()) +
                                                         " is more threads than nanotrn runs on this machine "
                                                         "(at most " +
                                                         std::to_string(max_host_threads()) +
                                                         ", 4 x its hardware threads); unset it or use --set "
                                                         "train.threads=N");
}

int Engine::num_threads() const { return omp_get_max_threads(); }

}  // namespace nanotrn
