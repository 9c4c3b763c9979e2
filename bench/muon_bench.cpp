// Benchmark of Muon's Newton-Schulz orthogonalisation (optim/muon.h, muon_orthogonalize_batched) on the stacks a
// training step runs: config b (depth 6, width 384: 24 matrices of 384 x 384, 6 of 1536 x 384, 6 of 384 x 1536) and
// config c (depth 8, width 512), 5 Polar-Express iterations, fp32 and bf16 (native where oneDNN has a bf16 matmul,
// else the emulation), on the threads OpenMP gives (OMP_NUM_THREADS).
// Counters: GFLOP/s by the plain algorithm's count (three full products per iteration: X X^T, A A, B X; the same
// numerator for both variants, so a variant that skips FLOPs shows more than it computes) and the % of the measured
// arithmetic peak of the threads (hw/cpu_peak.h: vfmadd231ps, or vdpbf16ps for native bf16).
// The peer in the same run: NewtonSchulzGram::kFull, every product a full GEMM (the algorithm before the symmetric
// Gram products); kSymmetric (the plain iteration by block-rows) and kAuto (the default: the polynomial iteration on
// the MLP stacks in f32) beside it. Deliberately NOT here: correctness (tests/optim/muon_test.cpp), the rest of Muon's
// step.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gemm/gemm.h"
#include "hw/cpu_peak.h"
#include "optim/muon.h"

namespace {

using nanotrn::DType;

struct Stack {
  int64_t count, rows, cols;
};

// Config b and c's Muon stacks (model/config.h: q, k, v, o per layer; the MLP's up and down projections).
std::vector<Stack> stacks(int64_t depth, int64_t width) {
  return {{4 * depth, width, width}, {depth, 4 * width, width}, {depth, width, 4 * width}};
}

// Nominal FLOPs of `steps` iterations: per matrix, X X^T (2 s s l), A A (2 s^3) and B X (2 s s l); s the short side.
double nominal_flops(const std::vector<Stack>& st, int steps) {
  double f = 0;
  for (const Stack& s : st) {
    const double a = static_cast<double>(std::min(s.rows, s.cols)), l = static_cast<double>(std::max(s.rows, s.cols));
    f += static_cast<double>(s.count) * (4.0 * a * a * l + 2.0 * a * a * a);
  }
  return f * steps;
}

double peak_gflops(DType dtype, bool native_bf16) {
  const nanotrn::hw::CpuFeatures f = nanotrn::hw::cpu_features();
  const auto k = nanotrn::hw::peak_kernel_for(dtype, f, native_bf16);
  return nanotrn::hw::measure_arithmetic_peak(k, omp_get_max_threads(), 0.2).gflops;
}

const char* mode_label(nanotrn::NewtonSchulzGram mode, DType dtype) {
  switch (mode) {
    case nanotrn::NewtonSchulzGram::kAuto:
      return dtype == DType::f32 ? ", auto (the default: polynomial for the MLP stacks)"
                                 : ", auto (the default: symmetric Gram products in bf16)";
    case nanotrn::NewtonSchulzGram::kPolynomial:
      return ", polynomial";
    case nanotrn::NewtonSchulzGram::kSymmetric:
      return ", symmetric Gram products";
    case nanotrn::NewtonSchulzGram::kFull:
      return ", full products (peer)";
  }
  return "";
}

void BM_NewtonSchulz(benchmark::State& state) {
  const int64_t depth = state.range(0), width = state.range(1);
  const DType dtype = state.range(2) == 0 ? DType::f32 : DType::bf16;
  const auto gram = static_cast<nanotrn::NewtonSchulzGram>(state.range(3));
  nanotrn::Gemm gemm;
  const std::vector<Stack> st = stacks(depth, width);
  std::vector<std::vector<float>> x0, x;
  std::mt19937 gen(7);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (const Stack& s : st) {
    std::vector<float> v(static_cast<size_t>(s.count * s.rows * s.cols));
    for (float& e : v) e = nd(gen);
    double sumsq = 0;  // scaled to Frobenius norm 1 per matrix, as Muon's normalisation leaves it
    for (float e : v) sumsq += static_cast<double>(e) * e;
    const auto inv = static_cast<float>(1.0 / std::sqrt(sumsq / static_cast<double>(s.count)));
    for (float& e : v) e *= inv;
    x0.push_back(std::move(v));
  }
  nanotrn::NewtonSchulzScratch scratch;  // one for every stack, kept between steps, as Muon keeps it
  for (auto _ : state) {
    state.PauseTiming();
    x = x0;
    state.ResumeTiming();
    for (size_t i = 0; i < st.size(); i++)
      nanotrn::muon_orthogonalize_batched(gemm, x[i].data(), st[i].count, st[i].rows, st[i].cols,
                                          nanotrn::MuonCoefficients::polar_express, 5, dtype, gram, &scratch);
    benchmark::DoNotOptimize(x.data());
  }
  const double flops = nominal_flops(st, 5);
  const bool native = dtype == DType::bf16 && gemm.bf16_support().path == nanotrn::Bf16Path::kNative;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_GFLOP/s"] = peak_gflops(dtype, native);
  state.SetLabel(std::string(nanotrn::dtype_name(dtype)) + (native || dtype == DType::f32 ? "" : " emulated") +
                 mode_label(gram, dtype));
}

// Args: depth, width, dtype (0 f32, 1 bf16), products (NewtonSchulzGram: 0 auto, 2 symmetric, 3 full; auto is the
// symmetric iteration in bf16).
BENCHMARK(BM_NewtonSchulz)
    ->ArgsProduct({{6}, {384}, {0}, {0, 2, 3}})
    ->ArgsProduct({{6}, {384}, {1}, {0, 3}})
    ->ArgsProduct({{8}, {512}, {0}, {0, 2, 3}})
    ->ArgsProduct({{8}, {512}, {1}, {0, 3}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
