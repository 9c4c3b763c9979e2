// Smoke tests of neuron/registry/kernel_run.h, the library call behind `nanotrn kernel` (the CLI only parses flags):
// the kernel list, time_kernel (the predictor's call), a functional --check per dtype and schedule, the --check size
// refusal, the v3 4096^3 bf16 summary, the trace file and the JSON form. Not here: the binary itself, the timing
// model's numbers (timing_test.cpp).
#include "neuron/registry/kernel_run.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <string>

#include "base/error.h"

namespace nanotrn::neuron {
namespace {

TEST(NeuronKernelRun, ListsTheKernels) {
  const auto& list = builtin_kernels().entries();
  ASSERT_EQ(list.size(), 7u);
  EXPECT_EQ(list[0].name, "matmul");
  EXPECT_EQ(list[1].name, "transpose");
  EXPECT_EQ(list[2].name, "softmax");
  EXPECT_EQ(list[3].name, "rmsnorm");
  EXPECT_EQ(list[4].name, "vector_add");
  EXPECT_EQ(list[5].name, "attention");
  EXPECT_EQ(list[6].name, "attention_bwd");
  EXPECT_THROW(time_kernel("conv", RowsShape{1, 1}, DType::bf16, "v3"), Error);
}

TEST(NeuronKernelRun, TimeKernelIsThePredictorsOneLiner) {
  const Report r = time_kernel("softmax", RowsShape{512, 256}, DType::bf16, "v3");
  const KernelRunOptions o = kernel_options("softmax", RowsShape{512, 256});
  EXPECT_EQ(r.total_ns, run_kernel(o).report.total_ns);
  EXPECT_GT(r.total_ns, 0.0);
  double vector_busy = 0;
  for (const TrackUse& t : r.tracks)
    if (t.name == "Vector") vector_busy = t.busy_ns;
  EXPECT_GT(vector_busy, 0.0);
  const Report pair = time_kernel("matmul", MatmulShape{256, 128, 512}, DType::bf16, "v3", Schedule::pipelined, 2);
  EXPECT_EQ(pair.cores, 2u);
  EXPECT_THROW(time_kernel("matmul", RowsShape{256, 128}, DType::bf16, "v3"), Error);  // another kernel's shape
}

TEST(NeuronKernelRun, CheckPassesForEachDtypeAndSchedule) {
  struct Case {
    const char *dtype, *core, *schedule;
  };
  for (const Case& c : {Case{"bf16", "v3", "pipelined"}, Case{"fp8e4m3", "v4", "pipelined"}, Case{"f32", "v2", "naive"},
                        Case{"bf16", "v3", "naive"}}) {
    KernelRunOptions o = kernel_options("matmul", MatmulShape{.m = 136, .k = 200, .n = 96});  // ragged: two M tiles
    o.dtype = kernel_dtype(c.dtype);
    o.core = c.core;
    o.schedule = matmul_schedule(c.schedule);
    o.check = true;
    const KernelRunResult r = run_kernel(o);
    EXPECT_TRUE(r.checked);
    EXPECT_TRUE(r.check_passed) << c.dtype << " " << c.core << " " << c.schedule << ": " << kernel_run_text(r);
    EXPECT_LE(r.max_abs_error, r.error_bound);
    EXPECT_NE(kernel_run_text(r).find("check: PASS"), std::string::npos);
  }
}

TEST(NeuronKernelRun, VectorAddChecksInEveryTilingAndSchedule) {
  // CS149's layouts at a checkable size: a vector as [n, 1] in [chunk, 1] tiles (1 and 128 partitions), and as
  // [128, n / 128] in [128, free] tiles; ragged edges included (300 rows in 128-row tiles, 37 columns in 8).
  struct Case {
    int64_t rows, cols, tile_rows, tile_cols;
  };
  for (const Case& c : {Case{300, 1, 1, 1}, Case{300, 1, 128, 1}, Case{128, 37, 128, 2}, Case{128, 37, 128, 8},
                        Case{128, 37, 128, 37}}) {
    for (const char* schedule : {"naive", "pipelined"}) {
      for (const char* dtype : {"f32", "bf16"}) {
        KernelRunOptions o = kernel_options("vector_add", VectorAddShape{c.rows, c.cols, c.tile_rows, c.tile_cols});
        o.dtype = kernel_dtype(dtype);
        o.schedule = kernel_schedule(schedule);
        o.check = true;
        const KernelRunResult r = run_kernel(o);
        EXPECT_TRUE(r.check_passed) << c.rows << "x" << c.cols << " tiles " << c.tile_rows << "x" << c.tile_cols << " "
                                    << schedule << " " << dtype << ": " << kernel_run_text(r);
      }
    }
  }
  const KernelRunOptions wide = kernel_options("vector_add", VectorAddShape{256, 4, 129, 4});
  try {
    run_kernel(wide);
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[shape] vector_add_kernel: a tile of 129 x 4"), std::string::npos)
        << e.what();
  }
}

TEST(NeuronKernelRun, RefusesCheckAboveTheLimit) {
  KernelRunOptions o = kernel_options(
      "matmul",
      MatmulShape{1024, 1024, 2048});  // 2^31 multiply-adds: past the limit (refused before anything is built)
  o.check = true;
  try {
    run_kernel(o);
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1024^3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kernel_dtype("int4"), Error);
  EXPECT_THROW(matmul_schedule("fast"), Error);
  o.check = false;
  o.kernel = "conv";
  EXPECT_THROW(run_kernel(o), Error);
}

TEST(NeuronKernelRun, V3Matmul4096Summary) {
  const KernelRunOptions o = kernel_options("matmul", MatmulShape{4096, 4096, 4096});
  const KernelRunResult r = run_kernel(o);
  EXPECT_FALSE(r.checked);
  EXPECT_GE(r.report.peak_fraction, 0.85);
  EXPECT_DOUBLE_EQ(r.report.flops, 2.0 * 4096 * 4096 * 4096);
  const std::string text = kernel_run_text(r);
  for (const char* s : {"total time", "TFLOP/s", "% of TensorE peak", "GB/s", "SBUF high-water", "Tensor"})
    EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
  const nlohmann::json j = kernel_run_json(r);
  EXPECT_EQ(j.at("params").at("m").get<int64_t>(), 4096);
  EXPECT_EQ(j.at("dtype").get<std::string>(), "bf16");
  EXPECT_DOUBLE_EQ(j.at("report").at("peak_fraction").get<double>(), r.report.peak_fraction);
  EXPECT_FALSE(j.contains("check"));
}

TEST(NeuronKernelRun, WritesTheTrace) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("nanotrn_kernel_run_test_" + std::to_string(::getpid()) + ".json"))
          .string();
  KernelRunOptions o = kernel_options("matmul", MatmulShape{256, 256, 512});
  o.schedule = MatmulSchedule::naive;
  o.trace_path = path;
  const KernelRunResult r = run_kernel(o);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_GT(std::filesystem::file_size(path), 1000u);
  EXPECT_EQ(kernel_run_json(r).at("trace").get<std::string>(), path);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace nanotrn::neuron
