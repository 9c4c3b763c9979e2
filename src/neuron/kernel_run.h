// The library side of `nanotrn kernel`: the registered tile kernels and one call that builds a kernel for a core,
// times it, summarises it (report.h), optionally writes its trace and optionally checks it functionally against
// an fp64 host product. The CLI (src/cli/kernel.cpp) only parses flags and prints what this returns.
//
//   KernelRunOptions o;  o.m = o.k = o.n = 4096;  o.dtype = DType::bf16;  o.core = "v3";
//   KernelRunResult r = run_kernel(o);   std::cout << kernel_run_text(r);   kernel_run_json(r).dump();
//
// --check (options.check): inputs uniform in [-1, 1) from a seeded std::mt19937, rounded to the dtype when set;
// the reference is the fp64 product of the rounded inputs; an element passes when |c - ref| <= (K + 2) 2^-24
// sum_k |a b| (fp32 accumulation of exact products; fp32 inputs add one product rounding). Refused (Error) above
// kMaxCheckMacs multiply-adds, since the executor runs every element in scalar C++.
// Not here: kernels other than matmul, timing of the host reference.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dtype/dtype.h"
#include "neuron/kernels/matmul.h"
#include "neuron/report.h"

namespace nanotrn::neuron {

struct KernelInfo {
  std::string name, description, parameters;
};
std::vector<KernelInfo> kernel_list();

inline constexpr int64_t kMaxCheckMacs = int64_t{256} * 256 * 256;

struct KernelRunOptions {
  std::string kernel = "matmul";
  int64_t m = 512, k = 512, n = 512;
  DType dtype = DType::bf16;  // HBM inputs and the on-chip compute dtype; the output is fp32
  std::string core = "v3";
  MatmulSchedule schedule = MatmulSchedule::pipelined;
  std::string trace_path;  // empty: no trace file
  bool check = false;
  uint64_t seed = 1;
};

struct KernelRunResult {
  KernelRunOptions options;
  Report report;
  bool checked = false, check_passed = false;
  double max_abs_error = 0, error_bound = 0;  // error_bound: the largest per-element bound
  size_t failures = 0;                        // elements past their bound
};

// "bf16", "fp8e4m3" (or "f8e4m3"), "f32" (or "fp32"); throws nanotrn::Error for anything else.
DType kernel_dtype(const std::string& name);
MatmulSchedule matmul_schedule(const std::string& name);  // "naive" | "pipelined"

// Throws nanotrn::Error for an unknown kernel / core, bad sizes, or --check above kMaxCheckMacs.
KernelRunResult run_kernel(const KernelRunOptions& options);
std::string kernel_run_text(const KernelRunResult& r);
nlohmann::json kernel_run_json(const KernelRunResult& r);

}  // namespace nanotrn::neuron
