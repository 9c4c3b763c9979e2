// Shared pieces of the GEMM library comparison (bench/gemm_bench_{onednn,openblas,blis}.cpp): the shape set, operand
// buffers, the measured peak used for "% of peak", a spot check of each library's result, and registration of one
// Google Benchmark per (variant, shape, threads) with GFLOP/s and % of peak counters.
// Deliberately NOT here: any library call (each library lives in its own executable, so OpenBLAS and BLIS, which both
// export cblas_* symbols, never link together), and timing code of our own (Google Benchmark times every run).
#pragma once

#include <benchmark/benchmark.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hw/cpu_peak.h"

#include "others_cpu.h"

namespace nanotrn::bench {

// Row-major C[m,n] = op(A)[m,k] op(B)[k,n]; trans_x means the operand is stored transposed (A as k x m, B as n x k).
struct Shape {
  std::string name;
  int64_t m, k, n;
  bool trans_a, trans_b;
};

// The peer set of shared/bench/gemm_shapes.txt (squares and the D=512 block, there called fwd_NN ...), plus the
// same five GEMMs of a D -> 4D MLP linear layer for D = 256 and 768, all on 4096 tokens:
//   fwd_NN   Y = X W        4096 x D x 4D     (W stored [in, out])
//   fwd_NT   Y = X W^T      4096 x D x 4D     (W stored [out, in], as nn.Linear)
//   bwdX_NN  dX = dY W      4096 x 4D x D     (W stored [out, in]); also the shape of the 4D -> D projection forward
//   bwdW_TN  dW = dY^T X    4D x 4096 x D     (gradient of W stored [out, in])
//   bwdWt_TN dW = X^T dY    D x 4096 x 4D     (gradient of W stored [in, out])
inline std::vector<Shape> shapes() {
  std::vector<Shape> s = {{"sq512", 512, 512, 512, false, false},
                          {"sq1024", 1024, 1024, 1024, false, false},
                          {"sq2048", 2048, 2048, 2048, false, false}};
  const int64_t t = 4096;
  for (int64_t d : {256, 512, 768}) {
    std::string p = "d";  // (not "d" + to_string(d): GCC 12 -O3 emits a false -Wrestrict for that, PR105329)
    p += std::to_string(d);
    p += '_';
    s.push_back({p + "fwd_NN", t, d, 4 * d, false, false});
    s.push_back({p + "fwd_NT", t, d, 4 * d, false, true});
    s.push_back({p + "bwdX_NN", t, 4 * d, d, false, false});
    s.push_back({p + "bwdW_TN", 4 * d, t, d, true, false});
    s.push_back({p + "bwdWt_TN", d, t, 4 * d, true, false});
  }
  return s;
}

// The arithmetic peak of this CPU for fp32 or bf16 products on `threads` threads, measured once per process with the
// kernels of bench/peak_flops (hw/cpu_peak.h): vdpbf16ps where the CPU has AVX512_BF16, else the widest fp32 FMA.
inline double peak_gflops(bool bf16, int threads) {
  using namespace nanotrn;
  static const double per_thread[2] = {
      hw::measure_arithmetic_peak(hw::peak_kernel_for(DType::f32, hw::cpu_features(), false), 1, 0.2).gflops,
      hw::measure_arithmetic_peak(hw::peak_kernel_for(DType::bf16, hw::cpu_features(), true), 1, 0.2).gflops};
  return per_thread[bf16 ? 1 : 0] * threads;
}

inline uint16_t to_bf16(float f) {  // round to nearest even, finite inputs
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}
inline float from_bf16(uint16_t h) { return std::bit_cast<float>(static_cast<uint32_t>(h) << 16); }

// Dense operands for one shape (ld = stored row length), values uniform in [-0.5, 0.5]; the bf16 copies hold the
// rounded values and `a`/`b` are overwritten with them so that the spot check compares like with like.
struct Operands {
  int64_t lda, ldb, ldc;
  std::vector<float> a, b, c;
  std::vector<uint16_t> ah, bh;
};

inline std::unique_ptr<Operands> make_operands(const Shape& s, bool bf16) {
  auto op = std::make_unique<Operands>();
  op->lda = s.trans_a ? s.m : s.k;
  op->ldb = s.trans_b ? s.k : s.n;
  op->ldc = s.n;
  uint64_t state = 0x9E3779B97F4A7C15ULL;  // xorshift64: fast enough that setup does not dominate the run time
  auto uniform = [&state] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return static_cast<float>(state >> 40) * 0x1p-24f - 0.5f;
  };
  op->a.resize(s.m * s.k);
  op->b.resize(s.k * s.n);
  op->c.assign(s.m * s.n, 0.0f);
  for (auto& x : op->a) x = uniform();
  for (auto& x : op->b) x = uniform();
  if (bf16) {
    op->ah.resize(op->a.size());
    op->bh.resize(op->b.size());
    for (std::size_t i = 0; i < op->a.size(); ++i) op->ah[i] = to_bf16(op->a[i]), op->a[i] = from_bf16(op->ah[i]);
    for (std::size_t i = 0; i < op->b.size(); ++i) op->bh[i] = to_bf16(op->b[i]), op->b[i] = from_bf16(op->bh[i]);
  }
  return op;
}

// Compares a few elements of C (= op(A) op(B), alpha 1, beta 0) with an fp64 dot product; returns "" or an error.
inline std::string spot_check(const Shape& s, const Operands& op) {
  const int64_t pts[][2] = {{0, 0}, {s.m - 1, s.n - 1}, {s.m / 2, s.n / 3}, {s.m / 3, s.n - 1}};
  for (const auto& pt : pts) {
    const int64_t i = pt[0], j = pt[1];
    double ref = 0, mag = 0;
    for (int64_t p = 0; p < s.k; ++p) {
      const double x = s.trans_a ? op.a[p * op.lda + i] : op.a[i * op.lda + p];
      const double y = s.trans_b ? op.b[j * op.ldb + p] : op.b[p * op.ldb + j];
      ref += x * y;
      mag += std::fabs(x * y);
    }
    const double got = op.c[i * op.ldc + j];
    if (!(std::fabs(got - ref) <= 1e-6 * s.k * mag + 1e-30)) {
      return "wrong result at C(" + std::to_string(i) + "," + std::to_string(j) + "): " + std::to_string(got) + " vs " +
             std::to_string(ref);
    }
  }
  return "";
}

// A prepared GEMM: `call` runs it once on `op`; `label` names the kernel the library dispatched to.
struct Prepared {
  std::unique_ptr<Operands> op;
  std::function<void()> call;
  std::string label;
};

// A library variant: `set_threads` configures the library's thread count; `prepare` builds operands and any
// per-shape state (e.g. a oneDNN primitive) outside the timed loop.
struct Variant {
  std::string name;
  bool bf16;
  std::function<void(int)> set_threads;
  std::function<Prepared(const Shape&)> prepare;
};

// Registers `variant` x shapes() x {1, 2} threads as "<variant>/<shape>/t<threads>".
inline void register_variant(const Variant& v) {
  for (const Shape& s : shapes()) {
    for (int threads : {1, 2}) {
      const std::string name = v.name + "/" + s.name + "/t" + std::to_string(threads);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [v, s, threads](benchmark::State& state) {
                                     v.set_threads(threads);
                                     Prepared p = v.prepare(s);
                                     p.call();  // warm-up: JIT, first touch, thread pool start
                                     if (std::string err = spot_check(s, *p.op); !err.empty()) {
                                       state.SkipWithError(err.c_str());
                                       return;
                                     }
                                     const OthersCpu others;
                                     for (auto _ : state) p.call();
                                     state.counters["others_cpu"] = others.fraction();
                                     const double gflop = 2.0 * s.m * s.n * s.k / 1e9;
                                     using C = benchmark::Counter;
                                     state.counters["GFLOP"] = C(gflop, C::kIsIterationInvariantRate);
                                     state.counters["pct_of_peak"] =
                                         C(100.0 * gflop / peak_gflops(v.bf16, threads), C::kIsIterationInvariantRate);
                                     state.SetLabel(p.label);
                                   })
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace nanotrn::bench

// main() of each bench executable: registers the given variants, then runs Google Benchmark.
#define NANOTRN_GEMM_BENCH_MAIN(...)                                           \
  int main(int argc, char** argv) {                                            \
    for (const auto& v : {__VA_ARGS__}) ::nanotrn::bench::register_variant(v); \
    benchmark::Initialize(&argc, argv);                                        \
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;          \
    benchmark::RunSpecifiedBenchmarks();                                       \
    benchmark::Shutdown();                                                     \
    return 0;                                                                  \
  }
