// The CPU peak kernels: the features they dispatch on against /proc/cpuinfo (the kernel's own reading of cpuid),
// each available kernel running (no illegal instruction on any CPU), unavailable ones refused by name, and the choice
// of the kernel that bounds a dtype. The GFLOP/s themselves are measured in bench/peak_flops, not asserted here.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "base/error.h"
#include "hw/cpu_peak.h"
#include "support/cpuinfo.h"

namespace nanotrn::hw {
namespace {

TEST(CpuPeak, FeaturesAgreeWithProcCpuinfo) {
  const testing_support::CpuinfoFlags flags = testing_support::read_cpuinfo_flags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags line on this system (not Linux)";
  const auto has = [&flags](const char* f) { return flags.has(f); };
  const CpuFeatures f = cpu_features();
  EXPECT_EQ(f.sse2, has("sse2"));
  EXPECT_EQ(f.avx2, has("avx2"));
  EXPECT_EQ(f.fma, has("fma"));
  EXPECT_EQ(f.avx512f, has("avx512f"));
  EXPECT_EQ(f.avx512_bf16, has("avx512_bf16"));
  EXPECT_EQ(f.amx_bf16, has("amx_bf16"));
  RecordProperty("features", f.summary());
}

// `info`'s AMX line: the CPU's flag and the kernel the bf16 GEMM names (oneDNN's implementation strings).
TEST(CpuPeak, AmxVerdictFollowsTheFlagAndTheKernel) {
  EXPECT_EQ(amx_verdict(false, "oneDNN gemm:jit bf16 matmul on ISA avx512_core_bf16").rfind("no AMX on this CPU", 0),
            0u);
  EXPECT_EQ(amx_verdict(true, "oneDNN brg:avx512_core_amx bf16 matmul on ISA avx512_core_amx"),
            "used: oneDNN brg:avx512_core_amx bf16 matmul on ISA avx512_core_amx");
  const std::string jit = amx_verdict(true, "oneDNN gemm:jit bf16 matmul on ISA avx512_core_bf16");
  EXPECT_EQ(jit.rfind("not used: the bf16 matmuls run oneDNN gemm:jit", 0), 0u) << jit;
}

TEST(CpuPeak, EveryAvailableKernelRunsAndTheOthersAreRefused) {
  const CpuFeatures f = cpu_features();
  for (PeakKernel k : {PeakKernel::kFmaZmm, PeakKernel::kFmaYmm, PeakKernel::kSseMulAdd, PeakKernel::kBf16DotZmm}) {
    SCOPED_TRACE(peak_kernel_name(k));
    if (peak_kernel_available(k, f)) {
      const double gflops = run_peak_kernel(k, 1, 10000);
      EXPECT_TRUE(std::isfinite(gflops) && gflops > 0.0) << gflops;
    } else {
      try {
        run_peak_kernel(k, 1, 10000);
        ADD_FAILURE() << "ran a kernel the CPU lacks";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(peak_kernel_name(k)), std::string::npos) << e.what();
      }
    }
  }
  const std::vector<PeakKernel> ks = available_peak_kernels(f);
  EXPECT_FALSE(ks.empty()) << "every x86-64 CPU has SSE2";
}

TEST(CpuPeak, TheBoundingKernelFollowsDtypeAndBf16Path) {
  CpuFeatures zen3;
  zen3.sse2 = zen3.avx2 = zen3.fma = true;
  CpuFeatures zen4 = zen3;
  zen4.avx512f = zen4.avx512_bf16 = true;
  CpuFeatures old;
  old.sse2 = true;
  EXPECT_EQ(peak_kernel_for(DType::f32, zen3, false), PeakKernel::kFmaYmm);
  EXPECT_EQ(peak_kernel_for(DType::bf16, zen3, false), PeakKernel::kFmaYmm);  // emulated bf16 multiplies in f32
  EXPECT_EQ(peak_kernel_for(DType::f32, zen4, true), PeakKernel::kFmaZmm);
  EXPECT_EQ(peak_kernel_for(DType::bf16, zen4, true), PeakKernel::kBf16DotZmm);
  EXPECT_EQ(peak_kernel_for(DType::bf16, zen4, false), PeakKernel::kFmaZmm);  // oneDNN capped: bf16 emulated
  EXPECT_EQ(peak_kernel_for(DType::f32, old, false), PeakKernel::kSseMulAdd);
  EXPECT_THROW(peak_kernel_for(DType::f32, CpuFeatures{}, false), Error);
  EXPECT_THROW(peak_kernel_for(DType::f16, zen4, true), Error);
}

TEST(CpuPeak, ABestIsSettledOnceThreeRunsAgreeWithinOnePercent) {
  EXPECT_FALSE(peak_settled({}));
  EXPECT_FALSE(peak_settled({200.0, 200.0}));                // two runs are not three
  EXPECT_FALSE(peak_settled({200.0, 150.0, 197.9, 120.0}));  // 197.9 is 1.05 % below the best
  EXPECT_TRUE(peak_settled({150.0, 198.1, 200.0, 120.0, 199.5}));
  EXPECT_FALSE(peak_settled({100.0, 100.0, 100.0, 205.0}));  // a later, better run unsettles the earlier agreement
}

TEST(CpuPeak, MeasuredPeakNamesItsKernelAndThreads) {
  const PeakKernel k = peak_kernel_for(DType::f32, cpu_features(), false);
  const ArithmeticPeak p = measure_arithmetic_peak(k, 2, 0.0);
  EXPECT_GT(measure_arithmetic_peak(k, 1, 0.05, 0.0).gflops, 0.0);  // stops at its first settled best
  EXPECT_EQ(p.kernel, k);
  EXPECT_EQ(p.threads, 2);
  EXPECT_GT(p.gflops, 0.0);
  EXPECT_NE(p.describe().find(peak_kernel_name(k)), std::string::npos) << p.describe();
  EXPECT_GT(measure_clock_ghz(100000), 0.0);
}

}  // namespace
}  // namespace nanotrn::hw
