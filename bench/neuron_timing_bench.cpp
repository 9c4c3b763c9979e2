// Timing-only speed of the software NeuronCore: simulate_timing (neuron/timing.h) on v3 bf16 matmul programs built
// once by kernels/matmul.h (naive and pipelined schedules); program building is not timed. items_per_second is
// simulated instructions per second on one thread (the target: >= 20 M/s).
//
//   ./neuron_timing_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <cstdint>

#include "neuron/builder.h"
#include "neuron/kernels/matmul.h"
#include "neuron/machine.h"
#include "neuron/timing.h"

namespace {

using namespace nanotrn::neuron;
using nanotrn::DType;

Program build_matmul(int64_t m, int64_t k, int64_t n, MatmulSchedule sched) {
  KernelBuilder b(spec_for("v3"));
  View at = b.hbm("a_t", k, m, DType::bf16), bm = b.hbm("b", k, n, DType::bf16), c = b.hbm("c", m, n, DType::f32);
  matmul_kernel(b, at, bm, c, DType::bf16, sched);
  return b.take();
}

void BM_SimulateTiming(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const auto sched = state.range(3) == 0 ? MatmulSchedule::naive : MatmulSchedule::pipelined;
  const Program p = build_matmul(m, k, n, sched);
  const NeuronCoreSpec& s = spec_for("v3");
  for (auto _ : state) {
    TimingResult t = simulate_timing(p, s);
    benchmark::DoNotOptimize(t.total_ns);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(p.instructions.size()));
  state.counters["instructions"] = static_cast<double>(p.instructions.size());
}

// Args: M, K, N, schedule (0 naive, 1 pipelined).
BENCHMARK(BM_SimulateTiming)
    ->ArgNames({"M", "K", "N", "pipelined"})
    ->Args({4096, 4096, 4096, 0})
    ->Args({4096, 4096, 4096, 1})
    ->Args({8192, 4096, 8192, 0})
    ->Args({8192, 4096, 8192, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
