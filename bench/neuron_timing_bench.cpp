// Timing-only speed of the software NeuronCore on v3 programs built once by the shipped tile kernels (bf16 matmul
// naive / pipelined, softmax pipelined); building a program is not timed. items_per_second is instructions per second
// on one thread.
//   SimulateTiming           simulate_timing on a program from KernelBuilder::take(), which carries its dependencies
//                            (as a compiled Neuron program carries its semaphores) and its compact encoding (as a
//                            NEFF carries packed instructions): the ">= 20 M/s" figure.
//   FindDependencies         the dependency search take() runs once per program (neuron/isa/dependencies.h).
//   EncodeProgram            the encoding take() makes once per program (neuron/isa/encoding.h).
//   SimulateTimingUnprepared simulate_timing on the same program without either: search + encoding + simulation.
//   BuildProgram             recording the kernel (KernelBuilder, every hardware rule checked) and take() (search +
//                            encoding): what `nanotrn kernel run` pays before timing.
//   SimulateTimingReference  simulate_timing_reference, the straightforward model the fast one matches bit for bit; its
//                            ratio to the others survives a loaded machine: compare them in one run.
//
//   ./neuron_timing_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>

#include "neuron/isa/builder.h"
#include "neuron/isa/dependencies.h"
#include "neuron/isa/encoding.h"
#include "neuron/isa/machine.h"
#include "neuron/kernels/matmul.h"
#include "neuron/kernels/softmax.h"
#include "neuron/sim/timing.h"

namespace {

using namespace nanotrn::neuron;
using nanotrn::DType;

// kind: 0 matmul naive, 1 matmul pipelined (M, K, N); 2 softmax pipelined (rows = M, cols = N).
Program build(int64_t kind, int64_t m, int64_t k, int64_t n) {
  KernelBuilder b(spec_for("v3"));
  if (kind == 2) {
    View x = b.hbm("x", m, n, DType::bf16), y = b.hbm("y", m, n, DType::bf16);
    softmax_kernel(b, x, y, Schedule::pipelined);
    return b.take();
  }
  View at = b.hbm("a_t", k, m, DType::bf16), bm = b.hbm("b", k, n, DType::bf16), c = b.hbm("c", m, n, DType::f32);
  matmul_kernel(b, at, bm, c, DType::bf16, kind == 0 ? Schedule::naive : Schedule::pipelined);
  return b.take();
}

enum class Mode { prepared, unprepared, reference };

template <Mode kMode>
void BM_Timing(benchmark::State& state) {
  Program p = build(state.range(0), state.range(1), state.range(2), state.range(3));
  if (kMode != Mode::prepared) {
    p.dep_list.clear();
    p.dep_begin.clear();
    p.encoded.clear();
  }
  const NeuronCoreSpec& s = spec_for("v3");
  for (auto _ : state) {
    TimingResult t = kMode == Mode::reference ? simulate_timing_reference(p, s) : simulate_timing(p, s);
    benchmark::DoNotOptimize(t.total_ns);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(p.instructions.size()));
  state.counters["instructions"] = static_cast<double>(p.instructions.size());
}

void BM_Dependencies(benchmark::State& state) {
  const Program p = build(state.range(0), state.range(1), state.range(2), state.range(3));
  std::vector<uint32_t> deps, begin;
  for (auto _ : state) {
    find_dependencies(p, deps, begin);
    benchmark::DoNotOptimize(deps.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(p.instructions.size()));
}

void BM_Encode(benchmark::State& state) {
  const Program p = build(state.range(0), state.range(1), state.range(2), state.range(3));
  std::vector<EncodedInstruction> enc;
  for (auto _ : state) {
    encode_program(p, enc);
    benchmark::DoNotOptimize(enc.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(p.instructions.size()));
}

void BM_Build(benchmark::State& state) {
  size_t n = 0;
  for (auto _ : state) {
    const Program p = build(state.range(0), state.range(1), state.range(2), state.range(3));
    n = p.instructions.size();
    benchmark::DoNotOptimize(p.instructions.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}

// Args: kind (0 matmul naive, 1 matmul pipelined, 2 softmax pipelined), M, K, N.
void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"kind", "M", "K", "N"})
      ->Args({0, 4096, 4096, 4096})
      ->Args({1, 4096, 4096, 4096})
      ->Args({0, 8192, 4096, 8192})
      ->Args({1, 8192, 4096, 8192})
      ->Args({2, 65536, 0, 1024})
      ->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_Timing<Mode::prepared>)->Name("SimulateTiming")->Apply(shapes);
BENCHMARK(BM_Dependencies)->Name("FindDependencies")->Apply(shapes);
BENCHMARK(BM_Encode)->Name("EncodeProgram")->Apply(shapes);
BENCHMARK(BM_Build)->Name("BuildProgram")->Apply(shapes);
BENCHMARK(BM_Timing<Mode::unprepared>)->Name("SimulateTimingUnprepared")->Apply(shapes);
BENCHMARK(BM_Timing<Mode::reference>)
    ->Name("SimulateTimingReference")
    ->ArgNames({"kind", "M", "K", "N"})
    ->Args({0, 4096, 4096, 4096})
    ->Args({1, 4096, 4096, 4096})
    ->Args({2, 65536, 0, 1024})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
