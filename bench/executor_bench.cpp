// Speed of the software NeuronCore's functional executor (neuron/sim/executor.h) on programs built once by the shipped
// tile kernels: the fast path beside the reference path it matches bit for bit, in one run, so their ratio survives
// a loaded machine. Building and filling the program are not timed; items_per_second is multiply-adds per second.
//   Executor/fast/...       ExecutorMode::fast (bulk operands, vectorised matmul rows, OpenMP over M)
//   Executor/reference/...  ExecutorMode::reference (element by element through the checked load / rounding store)
// Arguments: kernel (0 matmul bf16 pipelined M = K = N = size; 1 attention forward, 1 head, T = size, d 128), size.
//
//   ./executor_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>

#include "neuron/isa/builder.h"
#include "neuron/isa/machine.h"
#include "neuron/kernels/attention.h"
#include "neuron/kernels/matmul.h"
#include "neuron/sim/executor.h"

namespace {

using namespace nanotrn::neuron;
using nanotrn::DType;

struct Built {
  Program program;
  std::vector<View> inputs;
  double macs = 0;
};

Built build(int64_t kind, int64_t n) {
  KernelBuilder b(spec_for("v3"));
  Built out;
  if (kind == 0) {
    const View a = b.hbm("a_t", n, n, DType::bf16), x = b.hbm("b", n, n, DType::bf16);
    matmul_kernel(b, a, x, b.hbm("c", n, n, DType::f32), DType::bf16, Schedule::pipelined);
    out.inputs = {a, x};
    out.macs = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  } else {
    const View q = b.hbm("q_t", 128, n, DType::bf16), k = b.hbm("k_t", 128, n, DType::bf16);
    const View v = b.hbm("v", n, 128, DType::bf16);
    attention_kernel(b, q, k, v, b.hbm("o", n, 128, DType::bf16), 1, Schedule::pipelined);
    out.inputs = {q, k, v};
    out.macs = 2.0 * 128 * static_cast<double>(n) * static_cast<double>(n + 1) / 2;
  }
  out.program = b.take();
  return out;
}

template <ExecutorMode kMode>
void BM_Executor(benchmark::State& state) {
  const Built built = build(state.range(0), state.range(1));
  std::mt19937 g(1);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<std::vector<float>> values;
  for (const View& v : built.inputs) {
    values.emplace_back(static_cast<size_t>(v.np * v.nf));
    for (float& x : values.back()) x = u(g);
  }
  for (auto _ : state) {
    Executor ex(built.program, 1, kMode);
    for (size_t i = 0; i < built.inputs.size(); ++i) ex.set(built.inputs[i], values[i]);
    ex.run();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * built.macs));
}

}  // namespace

BENCHMARK(BM_Executor<ExecutorMode::fast>)
    ->Name("Executor/fast")
    ->Args({0, 256})
    ->Args({0, 1024})
    ->Args({1, 1024})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Executor<ExecutorMode::reference>)
    ->Name("Executor/reference")
    ->Args({0, 256})
    ->Args({0, 1024})
    ->Args({1, 1024})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

BENCHMARK_MAIN();
