// Running a registered tile kernel (registry/kernel_registry.h): build it for a core (or an SPMD core pair), time it,
// summarise it (report.h), optionally write its trace and optionally check it functionally against its fp64
// reference. The library side of `nanotrn kernel`, and the entry point for anything that prices a kernel (the
// step-time predictor, the QA grids).
//
//   KernelRunOptions o = kernel_options("softmax", RowsShape{.rows = 4096, .cols = 2048});   // registry/shapes.h
//   o.dtype = DType::bf16;  o.core = "v3";
//   KernelRunResult r = run_kernel(o);   r.report.total_ns;  r.report.tracks[i].name / busy_ns;  kernel_run_json(r)
//   Report t = time_kernel("matmul", MatmulShape{4096, 4096, 4096}, DType::bf16, "v3");   // the predictor's call
//   run_kernel(my_registry, kernel_options("scale", ScaleShape{...}));                    // your own kernels
//
// physical_cores = 2 launches the kernel SPMD on a v3/v4 core pair (LNC=2): each core's program writes its share of
// the outputs (the definition's build splits the work), the cores sharing HBM bandwidth.
// --check (options.check): the definition's seeded inputs, the functional executor on every core, each output
// element compared with the definition's fp64 reference against its stated bound. Refused (Error) when the
// definition has no check, or above its check_size limit unless check_any_size.
// Not here: flag parsing (src/cli/kernel.cpp), the definitions and their references (registry/).
#pragma once

#include <any>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dtype/dtype.h"
#include "neuron/kernels/schedule.h"
#include "neuron/registry/kernel_registry.h"
#include "neuron/registry/shapes.h"
#include "neuron/sim/report.h"

namespace nanotrn::neuron {

struct KernelRunOptions {
  std::string kernel = "matmul";
  std::any shape{};           // the kernel's typed shape (registry/shapes.h); empty: the definition's defaults
  DType dtype = DType::bf16;  // HBM tensors and on-chip compute dtype (matmul output: fp32)
  std::string core = "v3";
  int physical_cores = 1;  // 2: SPMD on a core pair (LNC=2), v3/v4
  Schedule schedule = Schedule::pipelined;
  std::string trace_path;  // empty: no trace file
  bool check = false;
  bool check_any_size = false;  // skip the check_size limit (a QA grid that budgets its own time)
  uint64_t seed = 1;
};

template <class Shape>
KernelRunOptions kernel_options(std::string kernel, Shape shape) {
  KernelRunOptions o;
  o.kernel = std::move(kernel);
  o.shape = std::move(shape);
  return o;
}

// The options' shape as the kernel's type, to read or change it; nanotrn::Error when it holds another type.
template <class Shape>
Shape& shape_of(KernelRunOptions& o) {
  if (Shape* s = std::any_cast<Shape>(&o.shape)) return *s;
  throw_shape_mismatch(o.kernel, typeid(Shape), o.shape);
}
template <class Shape>
const Shape& shape_of(const KernelRunOptions& o) {
  return shape_of<Shape>(o.kernel, o.shape);
}

struct KernelRunResult {
  KernelRunOptions options;  // with the shape filled in
  Report report;
  bool checked = false, check_passed = false;
  double max_abs_error = 0, error_bound = 0;  // error_bound: the largest per-element bound
  size_t failures = 0;                        // elements past their bound
  std::string bound_rule;                     // the stated bound, in words
  std::string shape_text;                     // the definition's describe()
  KernelParams params;                        // the definition's to_params()
};

// A tile kernel's input dtype: bf16, f8e4m3, f32 or f16, under any of dtype_from_name's names ("fp8e4m3", "fp32",
// "fp16"); throws nanotrn::Error for any other dtype or name.
DType kernel_dtype(const std::string& name);
Schedule kernel_schedule(const std::string& name);  // "naive" | "pipelined"
// What those two accept, for help texts: the dtypes by their canonical names, the schedules by name.
const std::vector<DType>& kernel_dtypes();
const std::vector<std::string>& kernel_schedule_names();
inline Schedule matmul_schedule(const std::string& name) { return kernel_schedule(name); }

// Throws nanotrn::Error for an unknown kernel / core, a shape of another type, sizes the kernel refuses, an SPMD
// width the core lacks, or --check above its limit.
KernelRunResult run_kernel(const KernelRegistry& registry, const KernelRunOptions& options);
inline KernelRunResult run_kernel(const KernelRunOptions& options) { return run_kernel(builtin_kernels(), options); }

// The definition's seeded --check inputs for `options` (its input order), its check of whole outputs, and the
// functional executor's outputs of one core's program (physical_cores ignored) on given inputs: the three steps of
// --check, for tests that alter one of them.
HostTensors check_inputs(const KernelRegistry& registry, const KernelRunOptions& options);
CheckOutcome check_outputs(const KernelRegistry& registry, const KernelRunOptions& options, const HostTensors& inputs,
                           const HostTensors& outputs);
HostTensors run_kernel_outputs(const KernelRegistry& registry, const KernelRunOptions& options,
                               const HostTensors& inputs);
inline HostTensors check_inputs(const KernelRunOptions& o) { return check_inputs(builtin_kernels(), o); }
inline CheckOutcome check_outputs(const KernelRunOptions& o, const HostTensors& in, const HostTensors& out) {
  return check_outputs(builtin_kernels(), o, in, out);
}
inline HostTensors run_kernel_outputs(const KernelRunOptions& o, const HostTensors& in) {
  return run_kernel_outputs(builtin_kernels(), o, in);
}

std::string kernel_run_text(const KernelRunResult& r);
nlohmann::json kernel_run_json(const KernelRunResult& r);

// For the predictor: the modelled time (report.total_ns) and per-engine busy times (report.tracks) of one kernel of
// the shipped registry on `shape` (the kernel's type in registry/shapes.h).
Report time_kernel(const std::string& kernel, std::any shape, DType dtype, const std::string& core,
                   Schedule schedule = Schedule::pipelined, int physical_cores = 1);
// The same for a kernel the caller already holds (the predictor's lowering hands it the registry entry).
Report time_kernel(const KernelEntry& kernel, std::any shape, DType dtype, const std::string& core,
                   Schedule schedule = Schedule::pipelined, int physical_cores = 1);

}  // namespace nanotrn::neuron
