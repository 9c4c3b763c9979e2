// The library side of `nanotrn kernel`, and the entry point for anything that prices a kernel (the step-time
// predictor): the registered tile kernels and one call that builds a kernel for a core (or an SPMD core pair),
// times it, summarises it (report.h), optionally writes its trace and optionally checks it functionally against
// host math (kernel_check.h).
//
//   KernelRunOptions o;  o.kernel = "softmax";  o.rows = 4096;  o.cols = 2048;  o.dtype = DType::bf16;  o.core = "v3";
//   KernelRunResult r = run_kernel(o);   r.report.total_ns;  r.report.tracks[i].name / busy_ns;  kernel_run_json(r)
//   Report t = time_kernel("matmul", {4096, 4096, 4096}, DType::bf16, "v3");   // the predictor's one-liner
//
// Kernels (kernel_list()): matmul (C[M,N] = A_T[K,M]^T B[K,N], fp32 out; shape m, k, n), transpose (y = x^T;
// rows, cols of x), softmax (row softmax; rows, cols), rmsnorm (rows x cols, gamma [1, cols]; eps), vector_add
// (a + b over rows x cols in tiles of tile_rows x tile_cols; kernels/vector_add.h), attention (fused
// attention of `heads` stacked heads under options.variant's mask; seq, head_dim, heads; kernels/attention.h),
// attention_bwd (its backward dq, dk, dv; kernels/attention_backward.h). Each has a naive and a
// pipelined schedule. physical_cores = 2 launches the kernel SPMD on a v3/v4 core pair (LNC=2), the rows (matmul: M;
// attention: whole heads) split in two halves, the cores sharing HBM bandwidth.
// --check (options.check): seeded inputs (kernel_check.h), the functional executor on every core, each output
// element compared with the host reference against its stated bound. Refused (Error) above kMaxCheckMacs
// multiply-adds (matmul; attention: heads T^2 d) / kMaxCheckElements elements (the others), since the host
// references are plain fp64 loops.
// Not here: flag parsing (src/cli/kernel.cpp), the host references themselves (kernel_check.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dtype/dtype.h"
#include "neuron/kernels/attention_mask.h"
#include "neuron/kernels/schedule.h"
#include "neuron/report.h"

namespace nanotrn::neuron {

struct KernelInfo {
  std::string name, description, parameters;
};
std::vector<KernelInfo> kernel_list();

// The limits keep a check to seconds: the fast executor runs a 1024^3 bf16 matmul in about 0.2 s
// (bench/executor_bench.cpp), the whole `kernel run matmul --m 1024 --k 1024 --n 1024 --check` takes 12.6 s, nearly
// all of it the fp64 host reference (2-vCPU Zen 3).
inline constexpr int64_t kMaxCheckMacs = int64_t{1024} * 1024 * 1024;
inline constexpr int64_t kMaxCheckElements = int64_t{1} << 24;

struct KernelRunOptions {
  std::string kernel = "matmul";
  int64_t m = 512, k = 512, n = 512;              // matmul
  int64_t rows = 512, cols = 512;                 // transpose, softmax, rmsnorm, vector_add
  int64_t tile_rows = 128, tile_cols = 512;       // vector_add's SBUF tile
  float eps = 1e-6f;                              // rmsnorm
  int64_t seq = 1024, head_dim = 128, heads = 1;  // attention, attention_bwd: T, d, stacked (batch, head) pairs
  AttentionVariant variant;                       // attention, attention_bwd: the mask
  DType dtype = DType::bf16;                      // HBM tensors and on-chip compute dtype (matmul output: fp32)
  std::string core = "v3";
  int physical_cores = 1;  // 2: SPMD on a core pair (LNC=2), v3/v4
  Schedule schedule = Schedule::pipelined;
  std::string trace_path;  // empty: no trace file
  bool check = false;
  bool check_any_size = false;  // skip the kMaxCheck* limits (a QA grid that budgets its own time)
  uint64_t seed = 1;
};

struct KernelRunResult {
  KernelRunOptions options;
  Report report;
  bool checked = false, check_passed = false;
  double max_abs_error = 0, error_bound = 0;  // error_bound: the largest per-element bound
  size_t failures = 0;                        // elements past their bound
  std::string bound_rule;                     // the stated bound, in words
};

// "bf16", "fp8e4m3" (or "f8e4m3"), "f32" (or "fp32"), "f16"; throws nanotrn::Error for anything else.
DType kernel_dtype(const std::string& name);
Schedule kernel_schedule(const std::string& name);  // "naive" | "pipelined"
inline Schedule matmul_schedule(const std::string& name) { return kernel_schedule(name); }

// Throws nanotrn::Error for an unknown kernel / core, bad sizes, an SPMD width the core lacks, or --check above
// its limit.
KernelRunResult run_kernel(const KernelRunOptions& options);
// Builds the kernel of `options` on one core (physical_cores ignored), runs the functional executor on `inputs`
// (make_check_inputs / make_attention_backward_inputs order) and returns its outputs (attention_bwd: dq, dk, dv).
std::vector<std::vector<float>> run_kernel_outputs(const KernelRunOptions& options,
                                                   const std::vector<std::vector<float>>& inputs);

std::string kernel_run_text(const KernelRunResult& r);
nlohmann::json kernel_run_json(const KernelRunResult& r);

// For the predictor: the modelled time (report.total_ns) and per-engine busy times (report.tracks) of one kernel.
// shape: matmul {m, k, n}; attention, attention_bwd {heads, seq, head_dim} (causal) or {heads, seq, head_dim,
// window} (sliding window); vector_add {rows, cols, tile_rows, tile_cols}; the others {rows, cols}.
Report time_kernel(const std::string& kernel, const std::vector<int64_t>& shape, DType dtype, const std::string& core,
                   Schedule schedule = Schedule::pipelined, int physical_cores = 1);

}  // namespace nanotrn::neuron
