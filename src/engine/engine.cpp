#include "engine/engine.h"

#include <omp.h>

#include "base/error.h"

namespace nanotrn {

Engine::Engine(EngineOptions options)
    : allocator_(std::make_shared<CachingAllocator>()), gemm_(std::make_unique<Gemm>()) {
  check(options.num_threads >= 0, "Engine: num_threads must be >= 0, got " + std::to_string(options.num_threads));
  if (options.num_threads > 0) omp_set_num_threads(options.num_threads);
}

int Engine::num_threads() const { return omp_get_max_threads(); }

}  // namespace nanotrn
