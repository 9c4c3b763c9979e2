// The host CPU's arithmetic peak, measured: inline-assembly loops of independent multiply-add chains on each vector
// ISA the CPU has, chosen at run time (never an illegal instruction, whatever the build's -march). This is the
// denominator of every "% of peak" nanotrn prints (bench train, the trainer's progress line) and of
// bench/peak_flops, which prints every kernel.
//
//   const CpuFeatures f = cpu_features();                 // what this CPU executes (cpuid)
//   ArithmeticPeak p = measure_arithmetic_peak(peak_kernel_for(DType::f32, f, false), threads, 0.2);
//   double pct = 100 * achieved_gflops / p.gflops;
//
// Kernels, widest first:
//   fp32 FMA zmm   16 chains of vfmadd231ps zmm (AVX-512F)          32 FLOP per instruction
//   fp32 FMA ymm   14 chains of vfmadd231ps ymm (AVX2 + FMA)         16 FLOP per instruction
//   fp32 SSE       8 mulps + 8 addps chains on xmm (any x86-64)       4 FLOP per instruction
//   bf16 dot zmm   16 chains of vdpbf16ps zmm (AVX512_BF16)          64 FLOP per instruction
// Deliberately NOT here: memory bandwidth, GEMM efficiency (gemm/probe.h measures what a GEMM reaches), non-x86 CPUs
// (there every kernel is unavailable and measure_arithmetic_peak throws).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dtype/dtype.h"

namespace nanotrn::hw {

struct CpuFeatures {
  bool sse2 = false, avx2 = false, fma = false, avx512f = false, avx512_bf16 = false;
  bool amx_bf16 = false;  // Intel AMX tiles with bf16 dot products (Sapphire Rapids and later; cpuid leaf 7 EDX 22)
  std::string summary() const;  // e.g. "avx2 fma" or "avx512f avx512_bf16 avx2 fma"
};
CpuFeatures cpu_features();
// The CPU's brand string from cpuid (leaves 0x80000002..4: "AMD EPYC 9R14 96-Core Processor"), "unknown CPU" when
// it has none; for run headers beside CpuFeatures::summary().
std::string cpu_brand();
// "<brand> (<features summary>)": the host line of run headers.
std::string describe_cpu();

// Whether this CPU's bf16 matmuls use AMX, for `nanotrn info`: from the CPU's flag and the bf16 GEMM's own account of
// the kernel it runs (Bf16Support::reason, which names oneDNN's implementation and ISA, e.g. "... on ISA
// avx512_core_amx"). "no AMX on this CPU ...", "used: ..." or "not used: ..." with why.
std::string amx_verdict(bool cpu_has_amx, const std::string& bf16_kernel);

enum class PeakKernel { kFmaZmm, kFmaYmm, kSseMulAdd, kBf16DotZmm };
const char* peak_kernel_name(PeakKernel k);  // "fp32 vfmadd231ps zmm", ...
bool peak_kernel_available(PeakKernel k, const CpuFeatures& f);
std::vector<PeakKernel> available_peak_kernels(const CpuFeatures& f);

// The kernel that bounds products of `dtype` on this CPU: for f32 the widest fp32 kernel; for bf16 vdpbf16ps when
// the CPU has it and the GEMM runs bf16 natively (bf16_native), else the fp32 kernel (emulated bf16 multiplies in
// f32). Throws when the CPU has none of them.
PeakKernel peak_kernel_for(DType dtype, const CpuFeatures& f, bool bf16_native);

// GFLOP/s of `k` on `threads` threads started together (all threads' work over the wall time of the slowest), for
// `iters` loop iterations per thread. Throws when the CPU lacks the kernel's ISA.
double run_peak_kernel(PeakKernel k, int threads, long iters);
// The effective core clock in GHz: a chain of dependent 1-cycle integer adds (a guest's /proc/cpuinfo shows only
// the TSC rate).
double measure_clock_ghz(long iters);

struct ArithmeticPeak {
  double gflops = 0.0;  // all `threads` together
  PeakKernel kernel = PeakKernel::kSseMulAdd;
  int threads = 0;
  std::string describe() const;  // "234.0 GFLOP/s (fp32 vfmadd231ps ymm, 2 threads, measured)"
};
// The best of short runs (5-10 ms each) of `k` on `threads` threads, lasting about `seconds` in all. With
// `settle_after`, the runs stop early once that many seconds are spent and the best is settled (peak_settled): on an
// idle machine the trainer's probe then takes about 0.04 s instead of 0.2 s (its ~0.4 CPU-seconds on 2 threads were
// half of what a short `nanotrn train` cost), and on a busy one it still runs its `seconds` in search of a quiet run.
ArithmeticPeak measure_arithmetic_peak(PeakKernel k, int threads, double seconds,
                                       std::optional<double> settle_after = std::nullopt);
// Whether the best of `gflops` (successive runs) is settled: at least kSettledRuns of the runs lie within
// kSettledSpread of it, so a quiet run has been seen more than once.
inline constexpr int kSettledRuns = 3;
inline constexpr double kSettledSpread = 0.01;
bool peak_settled(const std::vector<double>& gflops);

}  // namespace nanotrn::hw
