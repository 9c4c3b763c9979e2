// Measures this machine's arithmetic peak, the denominator of every "% of peak" in docs/PERFORMANCE.md: the effective
// core clock (a chain of dependent 1-cycle integer adds), fp32 FMA throughput (zmm and ymm vfmadd231ps) and bf16
// vdpbf16ps zmm throughput, each on 1 and 2 threads, with inline-asm loops of 16 independent accumulator chains.
// Deliberately NOT here: memory bandwidth, any GEMM, Google Benchmark (a plain program printing medians), and any use
// of /proc/cpuinfo's clock (a guest sees the fixed TSC rate there, not the boost clock it really runs at).
//
// Usage: peak_flops [REPS=7] [ITERS=20000000]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "others_cpu.h"

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// 100 dependent adds per iteration: one per cycle, so adds/second = clock.
void add_chain(long iters) {
  unsigned long x = 0;
  for (long i = 0; i < iters; ++i) asm volatile(".rept 100\n\taddq $1, %0\n\t.endr" : "+r"(x));
}

// 16 independent accumulators (zmm0..15 or ymm0..15) fed from zmm16/zmm17 (ymm14/15 for the VEX ymm form, which
// cannot name registers above 15: 14 accumulators there). Zen 4: FMA latency 4 x 2 pipes needs >= 8 chains.
#define NT_ACC16(INS, R)                                                                                            \
  INS " %%" R "16, %%" R "17, %%" R "0\n\t" INS " %%" R "16, %%" R "17, %%" R "1\n\t" INS " %%" R "16, %%" R        \
      "17, %%" R "2\n\t" INS " %%" R "16, %%" R "17, %%" R "3\n\t" INS " %%" R "16, %%" R "17, %%" R "4\n\t" INS    \
      " %%" R "16, %%" R "17, %%" R "5\n\t" INS " %%" R "16, %%" R "17, %%" R "6\n\t" INS " %%" R "16, %%" R        \
      "17, %%" R "7\n\t" INS " %%" R "16, %%" R "17, %%" R "8\n\t" INS " %%" R "16, %%" R "17, %%" R "9\n\t" INS    \
      " %%" R "16, %%" R "17, %%" R "10\n\t" INS " %%" R "16, %%" R "17, %%" R "11\n\t" INS " %%" R "16, %%" R      \
      "17, %%" R "12\n\t" INS " %%" R "16, %%" R "17, %%" R "13\n\t" INS " %%" R "16, %%" R "17, %%" R "14\n\t" INS \
      " %%" R "16, %%" R "17, %%" R "15\n\t"
#define NT_ACC14_YMM(INS)                                                                                           \
  INS " %%ymm14, %%ymm15, %%ymm0\n\t" INS " %%ymm14, %%ymm15, %%ymm1\n\t" INS " %%ymm14, %%ymm15, %%ymm2\n\t" INS   \
      " %%ymm14, %%ymm15, %%ymm3\n\t" INS " %%ymm14, %%ymm15, %%ymm4\n\t" INS " %%ymm14, %%ymm15, %%ymm5\n\t" INS   \
      " %%ymm14, %%ymm15, %%ymm6\n\t" INS " %%ymm14, %%ymm15, %%ymm7\n\t" INS " %%ymm14, %%ymm15, %%ymm8\n\t" INS   \
      " %%ymm14, %%ymm15, %%ymm9\n\t" INS " %%ymm14, %%ymm15, %%ymm10\n\t" INS " %%ymm14, %%ymm15, %%ymm11\n\t" INS \
      " %%ymm14, %%ymm15, %%ymm12\n\t" INS " %%ymm14, %%ymm15, %%ymm13\n\t"
#define NT_CLOBBERS                                                                                                   \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", \
      "xmm14", "xmm15", "xmm16", "xmm17"

enum Kind { kFmaZmm, kFmaYmm, kBf16Zmm };
const char* const kKindName[] = {"fp32 vfmadd231ps zmm", "fp32 vfmadd231ps ymm", "bf16 vdpbf16ps zmm"};

// FLOP per loop iteration: zmm FMA 16 lanes x 2, ymm FMA 8 x 2, vdpbf16ps zmm 32 products + 32 adds.
double flop_per_iter(Kind kind) { return kind == kFmaZmm ? 16 * 32.0 : kind == kFmaYmm ? 14 * 16.0 : 16 * 64.0; }

void kernel(Kind kind, long iters) {
  // Small finite inputs (1e-3): the accumulators never overflow or go denormal over 1e9 steps.
  static const float kInput = 1e-3f;
  asm volatile(
      "vbroadcastss %0, %%zmm16\n\tvbroadcastss %0, %%zmm17\n\tvmovaps %%ymm16, %%ymm14\n\tvmovaps %%ymm17, %%ymm15"
      :
      : "m"(kInput)
      : NT_CLOBBERS);
  for (long i = 0; i < iters; ++i) {
    if (kind == kFmaZmm) {
      asm volatile(NT_ACC16("vfmadd231ps", "zmm")::: NT_CLOBBERS);
    } else if (kind == kFmaYmm) {
      asm volatile(NT_ACC14_YMM("vfmadd231ps")::: NT_CLOBBERS);
    } else {
      asm volatile(NT_ACC16("vdpbf16ps", "zmm")::: NT_CLOBBERS);
    }
  }
  asm volatile("vzeroupper" ::: NT_CLOBBERS);
}

// Runs `body` on `threads` threads started together; returns the wall time of the slowest (all are timed between
// barriers, so the aggregate rate is total work / wall time).
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 7;
  const long iters = argc > 2 ? std::atol(argv[2]) : 20000000;
  const nanotrn::bench::OthersCpu others;
  std::printf("peak_flops: %d reps, %ld iterations per rep, medians (min-max)\n", reps, iters);
  std::printf("%-8s %-24s %12s %18s %16s\n", "threads", "measure", "median", "min-max", "per core");
  for (int threads = 1; threads <= 2; ++threads) {
    std::vector<double> ghz;
    for (int r = 0; r < reps; ++r) {
      const long n = iters / 10;
      const double t = timed_parallel(threads, [n] { add_chain(n); });
      ghz.push_back(100.0 * n / t / 1e9);  // per thread: each thread ran its own chain in the same wall time
    }
    std::printf("%-8d %-24s %8.3f GHz %8.3f-%.3f GHz %12s\n", threads, "clock (dep. add chain)", median(ghz),
                *std::min_element(ghz.begin(), ghz.end()), *std::max_element(ghz.begin(), ghz.end()), "");
    for (Kind kind : {kFmaZmm, kFmaYmm, kBf16Zmm}) {
      std::vector<double> gf;
      for (int r = 0; r < reps; ++r) {
        const double t = timed_parallel(threads, [kind, iters] { kernel(kind, iters); });
        gf.push_back(threads * flop_per_iter(kind) * iters / t / 1e9);
      }
      const double med = median(gf);
      std::printf("%-8d %-24s %7.1f GFLOP/s %7.1f-%.1f %9.1f GFLOP/s  = %.1f FLOP/cycle/core at %.3f GHz\n", threads,
                  kKindName[kind], med, *std::min_element(gf.begin(), gf.end()),
                  *std::max_element(gf.begin(), gf.end()), med / threads, med / threads / median(ghz), median(ghz));
    }
  }
  const double o = others.fraction();
  std::printf("others_cpu %.3f (fraction of all CPUs used by other processes during the run)%s\n", o,
              o > 0.03 ? ": NOT QUIET, the numbers above are too low; run again" : "");
  return 0;
}
