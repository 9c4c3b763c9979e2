// `nanotrn kernel` library side (see kernel_run.h). Not here: flag parsing (src/cli/kernel.cpp).
#include "neuron/kernel_run.h"

#include <cmath>
#include <cstdio>
#include <random>

#include "base/error.h"
#include "dtype/convert.h"
#include "neuron/builder.h"
#include "neuron/executor.h"
#include "neuron/timing.h"
#include "neuron/trace.h"

namespace nanotrn::neuron {

std::vector<KernelInfo> kernel_list() {
  return {{"matmul",
           "C[M,N] fp32 = A_T[K,M]^T @ B[K,N]; schedules naive (no overlap, no reuse) and pipelined (blocked, "
           "operands resident in SBUF, double-buffered DMAs over 16 queues)",
           "--m --k --n --dtype bf16|fp8e4m3|f32 --core v2|v3|v4 --schedule naive|pipelined"}};
}

DType kernel_dtype(const std::string& name) {
  if (name == "bf16") return DType::bf16;
  if (name == "fp8e4m3" || name == "f8e4m3") return DType::f8e4m3;
  if (name == "f32" || name == "fp32") return DType::f32;
  throw Error("unknown kernel dtype '" + name + "' (bf16, fp8e4m3, f32)");
}

MatmulSchedule matmul_schedule(const std::string& name) {
  if (name == "naive") return MatmulSchedule::naive;
  if (name == "pipelined") return MatmulSchedule::pipelined;
  throw Error("unknown matmul schedule '" + name + "' (naive, pipelined)");
}

KernelRunResult run_kernel(const KernelRunOptions& o) {
  check(o.kernel == "matmul", "unknown kernel '" + o.kernel + "' (see `nanotrn kernel list`)");
  check(o.m > 0 && o.k > 0 && o.n > 0, "kernel sizes must be positive");
  const double macs = static_cast<double>(o.m) * static_cast<double>(o.k) * static_cast<double>(o.n);
  check(!o.check || macs <= static_cast<double>(kMaxCheckMacs),
        "--check runs the functional executor, which is slow: refused above 256^3 = " + std::to_string(kMaxCheckMacs) +
            " multiply-adds (got " + std::to_string(o.m) + "x" + std::to_string(o.k) + "x" + std::to_string(o.n) +
            "); time larger sizes without --check");
  const NeuronCoreSpec& s = spec_for(o.core);
  KernelBuilder b(s);
  const View at = b.hbm("a_t", o.k, o.m, o.dtype), bm = b.hbm("b", o.k, o.n, o.dtype);
  const View c = b.hbm("c", o.m, o.n, DType::f32);
  matmul_kernel(b, at, bm, c, o.dtype, o.schedule);
  const Program p = b.take();
  const TimingResult t = simulate_timing(p, s);
  KernelRunResult r;
  r.options = o;
  r.report = make_report(p, t, s, 2 * macs);
  if (!o.trace_path.empty()) write_trace_file(o.trace_path, p, t, s);
  if (o.check) {
    std::mt19937 g(static_cast<std::mt19937::result_type>(o.seed));
    std::uniform_real_distribution<float> d(-1, 1);
    std::vector<float> va(static_cast<size_t>(o.k * o.m)), vb(static_cast<size_t>(o.k * o.n));
    for (float& x : va) x = round_to(o.dtype, d(g));
    for (float& x : vb) x = round_to(o.dtype, d(g));
    Executor ex(p, o.seed);
    ex.set(at, va);
    ex.set(bm, vb);
    ex.run();
    const std::vector<float> got = ex.get(c);
    const double gamma = static_cast<double>(o.k + 2) * std::ldexp(1.0, -24);
    r.checked = true;
    for (int64_t i = 0; i < o.m; ++i)
      for (int64_t j = 0; j < o.n; ++j) {
        double ref = 0, mag = 0;
        for (int64_t kk = 0; kk < o.k; ++kk) {
          const double prod =
              static_cast<double>(va[static_cast<size_t>(kk * o.m + i)]) * vb[static_cast<size_t>(kk * o.n + j)];
          ref += prod;
          mag += std::fabs(prod);
        }
        const double err = std::fabs(static_cast<double>(got[static_cast<size_t>(i * o.n + j)]) - ref);
        r.max_abs_error = std::max(r.max_abs_error, err);
        r.error_bound = std::max(r.error_bound, gamma * mag);
        if (!(err <= gamma * mag)) ++r.failures;
      }
    r.check_passed = r.failures == 0;
  }
  return r;
}

std::string kernel_run_text(const KernelRunResult& r) {
  const KernelRunOptions& o = r.options;
  std::string s = o.kernel + " " + std::to_string(o.m) + "x" + std::to_string(o.k) + "x" + std::to_string(o.n) + " " +
                  std::string(dtype_name(o.dtype)) + ", " +
                  (o.schedule == MatmulSchedule::naive ? "naive" : "pipelined") +
                  " schedule (modelled, not measured)\n";
  s += report_text(r.report);
  if (!o.trace_path.empty()) s += "trace written to " + o.trace_path + "\n";
  if (r.checked) {
    char line[256];
    std::snprintf(line, sizeof line, "check: %s, max |error| %.3g, bound %.3g (%zu elements past their bound)\n",
                  r.check_passed ? "PASS" : "FAIL", r.max_abs_error, r.error_bound, r.failures);
    s += line;
  }
  return s;
}

nlohmann::json kernel_run_json(const KernelRunResult& r) {
  const KernelRunOptions& o = r.options;
  nlohmann::json j = {{"kernel", o.kernel},
                      {"m", o.m},
                      {"k", o.k},
                      {"n", o.n},
                      {"dtype", std::string(dtype_name(o.dtype))},
                      {"core", o.core},
                      {"schedule", o.schedule == MatmulSchedule::naive ? "naive" : "pipelined"},
                      {"report", report_json(r.report)}};
  if (!o.trace_path.empty()) j["trace"] = o.trace_path;
  if (r.checked)
    j["check"] = {{"passed", r.check_passed},
                  {"max_abs_error", r.max_abs_error},
                  {"bound", r.error_bound},
                  {"failures", r.failures}};
  return j;
}

}  // namespace nanotrn::neuron
