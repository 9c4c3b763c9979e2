// Measured CPU arithmetic peak. See cpu_peak.h.
// Each kernel is a function compiled for its own ISA (GCC's target attribute) holding an inline-assembly loop body
// of independent accumulator chains (assembler .irp over the registers); it runs only after cpu_features() says the
// CPU executes it, so the binary's -march does not matter. Inputs are small finite values (1e-3, or 1.0 times and
// 1e-6 plus for the SSE pair): no chain overflows or goes subnormal over 1e10 steps.
#include "hw/cpu_peak.h"

#include <omp.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "base/error.h"

namespace nanotrn::hw {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

#if defined(__x86_64__)
const float kSmall = 1e-3f, kOne = 1.0f, kTiny = 1e-6f;

// 16 accumulator chains (zmm0-15) of one instruction fed from zmm16/zmm17, in a function compiled for its ISA.
#define NT_ZMM_PEAK_KERNEL(NAME, TARGET, INSN)                                                                       \
  __attribute__((target(TARGET))) void NAME(long iters) {                                                            \
    asm volatile("vbroadcastss %0, %%zmm16\n\tvbroadcastss %0, %%zmm17" : : "m"(kSmall) : "xmm16", "xmm17");         \
    for (long i = 0; i < iters; ++i)                                                                                 \
      asm volatile(".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t" INSN " %%zmm16, %%zmm17, %%zmm\\r\n\t.endr" :: \
                       : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",    \
                         "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");                                               \
    asm volatile("vzeroupper" ::: "xmm0");                                                                           \
  }
NT_ZMM_PEAK_KERNEL(fma_zmm, "avx512f", "vfmadd231ps")
NT_ZMM_PEAK_KERNEL(dpbf16_zmm, "avx512f,avx512bf16", "vdpbf16ps")
#undef NT_ZMM_PEAK_KERNEL

// VEX encodings name only ymm0-15: 14 accumulators, 2 inputs. Zen 3 / Zen 4 / Intel cores need >= 8 chains
// (FMA latency 4-5 cycles x 2 pipes).
__attribute__((target("avx2,fma"))) void fma_ymm(long iters) {
  asm volatile("vbroadcastss %0, %%ymm14\n\tvbroadcastss %0, %%ymm15" : : "m"(kSmall) : "xmm14", "xmm15");
  for (long i = 0; i < iters; ++i)
    asm volatile(".irp r,0,1,2,3,4,5,6,7,8,9,10,11,12,13\n\tvfmadd231ps %%ymm14, %%ymm15, %%ymm\\r\n\t.endr" ::
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
                       "xmm12", "xmm13");
  asm volatile("vzeroupper" ::: "xmm0");
}

// Baseline x86-64: 7 mulps chains (x 1.0) and 7 addps chains (+ 1e-6), for CPUs without FMA.
void mul_add_xmm(long iters) {
  asm volatile("movss %0, %%xmm14\n\tshufps $0, %%xmm14, %%xmm14\n\tmovss %1, %%xmm15\n\tshufps $0, %%xmm15, %%xmm15"
               :
               : "m"(kOne), "m"(kTiny)
               : "xmm14", "xmm15");
  for (long i = 0; i < iters; ++i)
    asm volatile(
        ".irp r,0,1,2,3,4,5,6\n\tmulps %%xmm14, %%xmm\\r\n\t.endr\n\t"
        ".irp r,7,8,9,10,11,12,13\n\taddps %%xmm15, %%xmm\\r\n\t.endr" ::
            : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
              "xmm13");
}

// 100 dependent adds per iteration: one per cycle, so adds per second = the clock.
void add_chain(long iters) {
  unsigned long x = 0;
  for (long i = 0; i < iters; ++i) asm volatile(".rept 100\n\taddq $1, %0\n\t.endr" : "+r"(x));
}
#endif

double flop_per_iter(PeakKernel k) {
  switch (k) {
    case PeakKernel::kFmaZmm:
      return 16 * 32.0;
    case PeakKernel::kFmaYmm:
      return 14 * 16.0;
    case PeakKernel::kSseMulAdd:
      return 14 * 4.0;
    case PeakKernel::kBf16DotZmm:
      return 16 * 64.0;
  }
  return 0.0;
}

// Wall time of `body` run on `threads` threads started together (timed between barriers).
template <typename Body>
double timed_parallel(int threads, Body body) {
  double t0 = 0, t1 = 0;
#pragma omp parallel num_threads(threads)
  {
#pragma omp barrier
#pragma omp master
    t0 = now();
    body();
#pragma omp barrier
#pragma omp master
    t1 = now();
  }
  return t1 - t0;
}

}  // namespace

std::string CpuFeatures::summary() const {
  std::string s;
  for (auto [on, name] : {std::pair{avx512f, "avx512f"},
                          {avx512_bf16, "avx512_bf16"},
                          {amx_bf16, "amx_bf16"},
                          {avx2, "avx2"},
                          {fma, "fma"},
                          {sse2, "sse2"}})
    if (on) s.append(s.empty() ? "" : " ").append(name);
  return s.empty() ? "none known" : s;
}

CpuFeatures cpu_features() {
  CpuFeatures f;
#if defined(__x86_64__)
  __builtin_cpu_init();
  f.sse2 = __builtin_cpu_supports("sse2");
  f.avx2 = __builtin_cpu_supports("avx2");
  f.fma = __builtin_cpu_supports("fma");
  f.avx512f = __builtin_cpu_supports("avx512f");
  f.avx512_bf16 = f.avx512f && __builtin_cpu_supports("avx512bf16");
  unsigned a = 0, b = 0, c = 0, d = 0;
  f.amx_bf16 = __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (d & (1u << 22)) != 0;
#endif
  return f;
}

std::string cpu_brand() {
#if defined(__x86_64__)
  unsigned regs[12] = {};
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000, &a, &b, &c, &d) == 0 || a < 0x80000004) return "unknown CPU";
  for (unsigned leaf = 0; leaf < 3; leaf++) {
    __get_cpuid(0x80000002 + leaf, &regs[4 * leaf], &regs[4 * leaf + 1], &regs[4 * leaf + 2], &regs[4 * leaf + 3]);
  }
  std::string brand(reinterpret_cast<const char*>(regs), sizeof regs);
  brand = brand.substr(0, brand.find('\0'));
  const size_t first = brand.find_first_not_of(' '), last = brand.find_last_not_of(' ');
  return first == std::string::npos ? "unknown CPU" : brand.substr(first, last - first + 1);
#else
  return "unknown CPU";
#endif
}

std::string describe_cpu() { return cpu_brand() + " (" + cpu_features().summary() + ")"; }

std::string amx_verdict(bool cpu_has_amx, const std::string& bf16_kernel) {
  if (!cpu_has_amx) return "no AMX on this CPU (Intel Sapphire Rapids and later have it; AMD Zen 4 and 5 do not)";
  if (bf16_kernel.find("amx") != std::string::npos) return "used: " + bf16_kernel;
  return "not used: the bf16 matmuls run " + bf16_kernel +
         " (oneDNN's gemm:jit kernels, the engine's measured choice on AVX2 and AVX-512, have no AMX path; its brgemm "
         "kernels do: GemmKernel::kBrgemm in gemm/gemm.h, not measured on an AMX machine here)";
}

const char* peak_kernel_name(PeakKernel k) {
  switch (k) {
    case PeakKernel::kFmaZmm:
      return "fp32 vfmadd231ps zmm";
    case PeakKernel::kFmaYmm:
      return "fp32 vfmadd231ps ymm";
    case PeakKernel::kSseMulAdd:
      return "fp32 mulps+addps xmm";
    case PeakKernel::kBf16DotZmm:
      return "bf16 vdpbf16ps zmm";
  }
  return "?";
}

bool peak_kernel_available(PeakKernel k, const CpuFeatures& f) {
  switch (k) {
    case PeakKernel::kFmaZmm:
      return f.avx512f;
    case PeakKernel::kFmaYmm:
      return f.avx2 && f.fma;
    case PeakKernel::kSseMulAdd:
      return f.sse2;
    case PeakKernel::kBf16DotZmm:
      return f.avx512_bf16;
  }
  return false;
}

std::vector<PeakKernel> available_peak_kernels(const CpuFeatures& f) {
  std::vector<PeakKernel> ks;
  for (PeakKernel k : {PeakKernel::kFmaZmm, PeakKernel::kFmaYmm, PeakKernel::kSseMulAdd, PeakKernel::kBf16DotZmm})
    if (peak_kernel_available(k, f)) ks.push_back(k);
  return ks;
}

PeakKernel peak_kernel_for(DType dtype, const CpuFeatures& f, bool bf16_native) {
  check(dtype == DType::f32 || dtype == DType::bf16, "peak_kernel_for: dtype must be f32 or bf16");
  if (dtype == DType::bf16 && bf16_native && f.avx512_bf16) return PeakKernel::kBf16DotZmm;
  // The widest is never slower: Zen 4 double-pumps zmm (the same FLOP/cycle as ymm), Zen 5 runs it at full width (2x).
  for (PeakKernel k : {PeakKernel::kFmaZmm, PeakKernel::kFmaYmm, PeakKernel::kSseMulAdd})
    if (peak_kernel_available(k, f)) return k;
  throw Error("peak: this CPU has none of the measured vector ISAs (" + f.summary() + ")");
}

double run_peak_kernel(PeakKernel k, int threads, long iters) {
  check(threads >= 1 && iters >= 1, "run_peak_kernel: threads and iters must be >= 1");
  check(peak_kernel_available(k, cpu_features()), std::string("run_peak_kernel: this CPU cannot run ") +
                                                      peak_kernel_name(k) + " (" + cpu_features().summary() + ")");
#if defined(__x86_64__)
  void (*fn)(long) = k == PeakKernel::kFmaZmm       ? fma_zmm
                     : k == PeakKernel::kFmaYmm     ? fma_ymm
                     : k == PeakKernel::kBf16DotZmm ? dpbf16_zmm
                                                    : mul_add_xmm;
  const double t = timed_parallel(threads, [fn, iters] { fn(iters); });
  return threads * flop_per_iter(k) * static_cast<double>(iters) / t * 1e-9;
#else
  return 0.0;
#endif
}

double measure_clock_ghz(long iters) {
  check(iters >= 1, "measure_clock_ghz: iters must be >= 1");
#if defined(__x86_64__)
  const double t0 = now();
  add_chain(iters);
  return 100.0 * static_cast<double>(iters) / (now() - t0) * 1e-9;
#else
  throw Error("measure_clock_ghz: x86-64 only");
#endif
}

std::string ArithmeticPeak::describe() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.1f GFLOP/s (%s, %d thread%s, measured)", gflops, peak_kernel_name(kernel), threads,
                threads == 1 ? "" : "s");
  return buf;
}

bool peak_settled(const std::vector<double>& gflops) {
  if (gflops.empty()) return false;
  const double best = *std::max_element(gflops.begin(), gflops.end());
  const auto close =
      std::count_if(gflops.begin(), gflops.end(), [&](double g) { return g >= best * (1.0 - kSettledSpread); });
  return close >= kSettledRuns;
}

ArithmeticPeak measure_arithmetic_peak(PeakKernel k, int threads, double seconds, std::optional<double> settle_after) {
  // 5-10 ms per run; the best run is the one least disturbed by other processes.
  constexpr long kIters = 2000000;
  ArithmeticPeak p{0.0, k, threads};
  run_peak_kernel(k, threads, kIters / 10);  // wake the cores and the vector units
  std::vector<double> runs;
  double spent = 0.0;
  do {
    const double t0 = now();
    runs.push_back(run_peak_kernel(k, threads, kIters));
    spent += now() - t0;
    if (settle_after && spent >= *settle_after && peak_settled(runs)) break;
  } while (spent < seconds);
  p.gflops = *std::max_element(runs.begin(), runs.end());
  return p;
}

}  // namespace nanotrn::hw
