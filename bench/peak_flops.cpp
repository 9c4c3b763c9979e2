// Measures this machine's arithmetic peak, the denominator of every "% of peak" in docs/PERFORMANCE.md: the effective
// core clock and every peak kernel this CPU executes (hw/cpu_peak.h: fp32 FMA zmm / ymm, the SSE mul+add fallback,
// bf16 vdpbf16ps zmm), each on 1 and 2 threads. The kernels are chosen at run time from cpuid, so the program runs on
// any x86-64 CPU whatever it was compiled for; the trainer's "% of peak" measures with the same functions.
// Deliberately NOT here: memory bandwidth, any GEMM, Google Benchmark (a plain program printing medians), and any use
// of /proc/cpuinfo's clock (a guest sees the fixed TSC rate there, not the boost clock it really runs at).
//
// Usage: peak_flops [REPS=7] [ITERS=20000000]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "hw/cpu_peak.h"
#include "others_cpu.h"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nanotrn::hw;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 7;
  const long iters = argc > 2 ? std::atol(argv[2]) : 20000000;
  const nanotrn::bench::OthersCpu others;
  const CpuFeatures f = cpu_features();
  std::printf("peak_flops: CPU features %s; %d reps, %ld iterations per rep, medians (min-max)\n", f.summary().c_str(),
              reps, iters);
  std::printf("%-8s %-24s %12s %18s %16s\n", "threads", "measure", "median", "min-max", "per core");
  std::vector<double> ghz;
  for (int r = 0; r < reps; ++r) ghz.push_back(measure_clock_ghz(iters / 10));
  const double clock = median(ghz);
  std::printf("%-8d %-24s %8.3f GHz %8.3f-%.3f GHz\n", 1, "clock (dep. add chain)", clock,
              *std::min_element(ghz.begin(), ghz.end()), *std::max_element(ghz.begin(), ghz.end()));
  for (int threads = 1; threads <= 2; ++threads) {
    for (PeakKernel kernel : available_peak_kernels(f)) {
      std::vector<double> gf;
      for (int r = 0; r < reps; ++r) gf.push_back(run_peak_kernel(kernel, threads, iters));
      const double med = median(gf);
      std::printf("%-8d %-24s %7.1f GFLOP/s %7.1f-%.1f %9.1f GFLOP/s  = %.1f FLOP/cycle/core at %.3f GHz\n", threads,
                  peak_kernel_name(kernel), med, *std::min_element(gf.begin(), gf.end()),
                  *std::max_element(gf.begin(), gf.end()), med / threads, med / threads / clock, clock);
    }
  }
  const double o = others.fraction();
  std::printf("others_cpu %.3f (fraction of all CPUs used by other processes during the run)%s\n", o,
              o > 0.03 ? ": NOT QUIET, the numbers above are too low; run again" : "");
  return 0;
}
