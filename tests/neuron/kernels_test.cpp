// Tests of the shipped tile kernels (transpose, softmax, rmsnorm, and matmul's fp8 double-row path) through
// run_kernel: functional results against fp64 host math on random data within the bounds their definitions state
// (registry/), on ragged shapes, both schedules, several dtypes and cores, one core and an SPMD pair; and the timing
// property each pipelined schedule exists for (faster than naive, whose compute engines wait on DMA). Not here: the
// matmul kernel's own tests (matmul_kernel_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/error.h"
#include "neuron/isa/builder.h"
#include "neuron/kernels/matmul.h"
#include "neuron/registry/kernel_run.h"

namespace nanotrn::neuron {
namespace {

KernelRunOptions options(const std::string& kernel, int64_t rows, int64_t cols, DType t, const std::string& core,
                         Schedule sched) {
  KernelRunOptions o = kernel == "rmsnorm" ? kernel_options(kernel, RmsnormShape{rows, cols})
                                           : kernel_options(kernel, RowsShape{rows, cols});
  o.dtype = t;
  o.core = core;
  o.schedule = sched;
  return o;
}

TEST(NeuronKernels, MatchHostMathWithinTheirBounds) {
  for (const char* kernel : {"transpose", "softmax", "rmsnorm"})
    for (Schedule sched : {Schedule::naive, Schedule::pipelined})
      for (DType t : {DType::bf16, DType::f32})
        for (const char* core : {"v2", "v3"}) {
          KernelRunOptions o = options(kernel, 200, 300, t, core, sched);  // ragged: 128 + 72 rows
          o.check = true;
          o.seed = 7;
          const KernelRunResult r = run_kernel(o);
          SCOPED_TRACE(testing::Message() << kernel << " " << schedule_name(sched) << " " << dtype_name(t) << " "
                                          << core << ": " << r.bound_rule);
          EXPECT_TRUE(r.checked);
          EXPECT_TRUE(r.check_passed) << r.failures << " failures, max error " << r.max_abs_error;
          if (std::string(kernel) == "transpose") {
            EXPECT_EQ(r.max_abs_error, 0.0);  // exact
          } else {
            EXPECT_GT(r.error_bound, 0.0);
          }
        }
}

TEST(NeuronKernels, SpmdPairAndWideShapes) {
  for (const char* kernel : {"transpose", "softmax", "rmsnorm"}) {
    KernelRunOptions o = options(kernel, 300, 640, DType::bf16, "v3", Schedule::pipelined);
    o.physical_cores = 2;
    o.check = true;
    const KernelRunResult r = run_kernel(o);
    EXPECT_TRUE(r.check_passed) << kernel << ": " << r.failures << " failures";
    EXPECT_EQ(r.report.cores, 2u);
  }
  KernelRunOptions o = options("softmax", 256, 64, DType::bf16, "v2", Schedule::naive);
  o.physical_cores = 2;
  EXPECT_THROW(run_kernel(o), Error);  // no LNC=2 on Trn1
}

TEST(NeuronKernels, Fp8MatmulUsesDoubleRowAndMatches) {
  KernelRunOptions o = kernel_options("matmul", MatmulShape{.m = 128, .k = 384, .n = 256});  // K: one double-row
                                                                                             // pair, one single tile
  o.dtype = DType::f8e4m3;
  o.core = "v3";
  o.check = true;
  const KernelRunResult r = run_kernel(o);
  EXPECT_TRUE(r.check_passed) << r.failures;
  KernelBuilder b(spec_for("v3"));
  View at = b.hbm("a_t", 384, 128, DType::f8e4m3), bm = b.hbm("b", 384, 256, DType::f8e4m3);
  View c = b.hbm("c", 128, 256, DType::f32);
  matmul_kernel(b, at, bm, c, DType::f8e4m3, Schedule::pipelined);
  size_t double_row = 0, single = 0;
  for (const Instruction& ins : b.program().instructions)
    if (ins.op == Opcode::matmul) ++(ins.double_row ? double_row : single);
  EXPECT_EQ(double_row, 1u);
  EXPECT_EQ(single, 1u);
}

TEST(NeuronKernels, CheckCountsElementsPastTheBound) {
  const KernelRunOptions o = options("softmax", 4, 8, DType::f32, "v3", Schedule::naive);
  const std::vector<std::vector<float>> in = check_inputs(o);
  std::vector<float> y(32);
  for (int i = 0; i < 4; ++i) {
    double mx = -1e30, sum = 0;
    for (int j = 0; j < 8; ++j) mx = std::max(mx, double(in[0][static_cast<size_t>(i * 8 + j)]));
    for (int j = 0; j < 8; ++j) sum += std::exp(in[0][static_cast<size_t>(i * 8 + j)] - mx);
    for (int j = 0; j < 8; ++j)
      y[static_cast<size_t>(i * 8 + j)] =
          static_cast<float>(std::exp(in[0][static_cast<size_t>(i * 8 + j)] - mx) / sum);
  }
  EXPECT_EQ(check_outputs(o, in, {y}).failures, 0u);
  y[5] *= 1.001f;  // far past (C + 8 + 2 spread) 2^-24 relative
  EXPECT_EQ(check_outputs(o, in, {y}).failures, 1u);
}

TEST(NeuronKernels, PipelinedBeatsNaiveWhoseEnginesWaitOnDma) {
  for (const char* kernel : {"transpose", "softmax", "rmsnorm"}) {
    const KernelRunResult n = run_kernel(options(kernel, 2048, 2048, DType::bf16, "v3", Schedule::naive));
    const KernelRunResult p = run_kernel(options(kernel, 2048, 2048, DType::bf16, "v3", Schedule::pipelined));
    std::printf("%s 2048x2048 bf16 v3: naive %.1f us, pipelined %.1f us\n", kernel, n.report.total_ns / 1e3,
                p.report.total_ns / 1e3);
    EXPECT_LT(p.report.total_ns, 0.7 * n.report.total_ns) << kernel;
    // Naive: compute engines spend a fifth or more of the run waiting on loads (DMA queue 0).
    double compute_on_dma = 0;
    for (const StallSum& s : n.report.stall_sums)
      if (s.track.rfind("DMA", 0) != 0 && s.cause_track == "DMA q0") compute_on_dma += s.stall_ns;
    EXPECT_GT(compute_on_dma, 0.2 * n.report.total_ns) << kernel;
  }
}

}  // namespace
}  // namespace nanotrn::neuron
