// Running a registered kernel (see kernel_run.h). Not here: flag parsing (src/cli/kernel.cpp), the definitions
// (registry/).
#include "neuron/registry/kernel_run.h"

#include <cstdio>

#include "base/error.h"
#include "neuron/isa/builder.h"
#include "neuron/sim/executor.h"
#include "neuron/sim/timing.h"
#include "neuron/sim/trace.h"

namespace nanotrn::neuron {
namespace {

// One core's program of an SPMD launch and its HBM tensors.
struct Built {
  Program program;
  KernelIo io;
};

Built build(const KernelEntry& e, const KernelRunOptions& o, const std::any& shape, const NeuronCoreSpec& s, int c,
            int cores) {
  KernelBuilder b(s);
  Built out;
  e.build(b, shape, {.dtype = o.dtype, .schedule = o.schedule, .core = c, .cores = cores}, out.io);
  check(!out.io.outputs.empty(), "kernel '" + e.name + "' declared no output (KernelIo::add_output)");
  out.program = b.take();
  return out;
}

// The options' shape, or the definition's defaults when none is given.
std::any shape_for(const KernelEntry& e, const KernelRunOptions& o) {
  return o.shape.has_value() ? o.shape : e.default_shape();
}

const KernelEntry& checkable(const KernelRegistry& registry, const std::string& kernel) {
  const KernelEntry& e = registry.at(kernel);
  check(e.checkable(), "kernel '" + kernel + "' has no host reference: it can be timed, not checked");
  return e;
}

HostTensors execute(const Built& b, const HostTensors& inputs, uint64_t seed, const std::string& kernel) {
  check(inputs.size() == b.io.inputs.size(), "kernel '" + kernel + "' takes " + std::to_string(b.io.inputs.size()) +
                                                 " inputs; got " + std::to_string(inputs.size()));
  Executor ex(b.program, seed);
  for (size_t i = 0; i < b.io.inputs.size(); ++i) ex.set(b.io.inputs[i], inputs[i]);
  ex.run();
  HostTensors outs;
  for (const View& w : b.io.written) outs.push_back(ex.get(w));
  return outs;
}

// The programs of an SPMD launch of `e`, timed: the report run_kernel and time_kernel share.
struct Timed {
  std::vector<Built> built;
  std::vector<const Program*> programs;
  std::vector<TimingResult> timings;
};
Timed build_and_time(const KernelEntry& e, const KernelRunOptions& o, const NeuronCoreSpec& s) {
  Timed t;
  for (int c = 0; c < o.physical_cores; ++c) t.built.push_back(build(e, o, o.shape, s, c, o.physical_cores));
  for (const Built& b : t.built) t.programs.push_back(&b.program);
  t.timings = simulate_timing_spmd(t.programs, s);
  return t;
}

const NeuronCoreSpec& launch_spec(const KernelRunOptions& o) {
  const NeuronCoreSpec& s = spec_for(o.core);
  check(o.physical_cores >= 1 && static_cast<double>(o.physical_cores) <= s.max_physical_cores.value,
        "--lnc " + std::to_string(o.physical_cores) + ": NeuronCore-" + s.name + " launches on 1 to " +
            std::to_string(static_cast<int>(s.max_physical_cores.value)) + " physical cores [LNC]");
  return s;
}

}  // namespace

const std::vector<DType>& kernel_dtypes() {
  static const std::vector<DType> dtypes = {DType::bf16, DType::f8e4m3, DType::f32, DType::f16};
  return dtypes;
}

const std::vector<std::string>& kernel_schedule_names() {
  static const std::vector<std::string> names = {"naive", "pipelined"};
  return names;
}

DType kernel_dtype(const std::string& name) { return dtype_from_name(name, kernel_dtypes(), "kernel dtype"); }

Schedule kernel_schedule(const std::string& name) {
  if (name == kernel_schedule_names()[0]) return Schedule::naive;
  if (name == kernel_schedule_names()[1]) return Schedule::pipelined;
  throw Error("unknown schedule '" + name + "' (naive, pipelined)");
}

KernelRunResult run_kernel(const KernelRegistry& registry, const KernelRunOptions& options) {
  const KernelEntry& e = registry.at(options.kernel);
  KernelRunOptions o = options;
  o.shape = shape_for(e, options);
  const NeuronCoreSpec& s = launch_spec(o);
  if (o.check) {
    checkable(registry, o.kernel);
    if (!o.check_any_size && e.check_size) {
      const CheckSize size = e.check_size(o.shape);
      check(size.work <= size.limit, "--check compares with plain fp64 host loops: refused above " +
                                         std::to_string(static_cast<int64_t>(size.limit)) + " " + size.what +
                                         "; time larger sizes without --check");
    }
  }
  const Timed timed = build_and_time(e, o, s);
  const std::vector<Built>& built = timed.built;
  const std::vector<const Program*>& programs = timed.programs;
  const std::vector<TimingResult>& t = timed.timings;
  KernelRunResult r;
  r.report = make_report(programs, t, s, e.flops ? e.flops(o.shape) : 0);
  r.shape_text = e.describe(o.shape);
  r.params = e.to_params(o.shape);
  if (!o.trace_path.empty()) write_trace_file(o.trace_path, programs, t, s);
  if (o.check) {
    const HostTensors inputs = e.inputs(o.shape, o.dtype, o.seed);
    HostTensors outs;
    for (const View& w : built[0].io.outputs) outs.emplace_back(static_cast<size_t>(w.np * w.nf));
    for (const Built& b : built) {
      const HostTensors parts = execute(b, inputs, o.seed, o.kernel);
      for (size_t k = 0; k < parts.size(); ++k)
        std::copy(parts[k].begin(), parts[k].end(), outs[k].begin() + b.io.written[k].p0 * b.io.outputs[k].nf);
    }
    const CheckOutcome c = e.check(o.shape, o.dtype, inputs, outs);
    r.checked = true;
    r.max_abs_error = c.max_abs_error;
    r.error_bound = c.max_bound;
    r.failures = c.failures;
    r.check_passed = c.failures == 0;
    r.bound_rule = c.rule;
  }
  r.options = std::move(o);
  return r;
}

HostTensors check_inputs(const KernelRegistry& registry, const KernelRunOptions& o) {
  const KernelEntry& e = checkable(registry, o.kernel);
  return e.inputs(shape_for(e, o), o.dtype, o.seed);
}

CheckOutcome check_outputs(const KernelRegistry& registry, const KernelRunOptions& o, const HostTensors& inputs,
                           const HostTensors& outputs) {
  const KernelEntry& e = checkable(registry, o.kernel);
  return e.check(shape_for(e, o), o.dtype, inputs, outputs);
}

HostTensors run_kernel_outputs(const KernelRegistry& registry, const KernelRunOptions& o, const HostTensors& inputs) {
  const KernelEntry& e = registry.at(o.kernel);
  return execute(build(e, o, shape_for(e, o), spec_for(o.core), 0, 1), inputs, o.seed, o.kernel);
}

std::string kernel_run_text(const KernelRunResult& r) {
  const KernelRunOptions& o = r.options;
  std::string s = o.kernel + " " + r.shape_text + " " + std::string(dtype_name(o.dtype)) + ", " +
                  schedule_name(o.schedule) + " schedule (modelled, not measured)\n";
  s += report_text(r.report);
  s += "bound: " + bound_verdict(r.report).verdict + "\n";
  if (!o.trace_path.empty()) s += "trace written to " + o.trace_path + "\n";
  if (r.checked) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "check: %s, max |error| %.3g, largest bound %.3g (%zu elements past their bound; bound: %s)\n",
                  r.check_passed ? "PASS" : "FAIL", r.max_abs_error, r.error_bound, r.failures, r.bound_rule.c_str());
    s += line;
  }
  return s;
}

nlohmann::json kernel_run_json(const KernelRunResult& r) {
  const KernelRunOptions& o = r.options;
  nlohmann::json j = {{"kernel", o.kernel},
                      {"dtype", std::string(dtype_name(o.dtype))},
                      {"core", o.core},
                      {"physical_cores", o.physical_cores},
                      {"schedule", schedule_name(o.schedule)},
                      {"shape", r.shape_text},
                      {"report", report_json(r.report)},
                      {"bound", hw::bound_json(bound_verdict(r.report))}};
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, v] : r.params.values()) std::visit([&, n = name](const auto& x) { params[n] = x; }, v);
  j["params"] = params;
  if (!o.trace_path.empty()) j["trace"] = o.trace_path;
  if (r.checked)
    j["check"] = {{"passed", r.check_passed},
                  {"max_abs_error", r.max_abs_error},
                  {"bound", r.error_bound},
                  {"bound_rule", r.bound_rule},
                  {"failures", r.failures}};
  return j;
}

Report time_kernel(const KernelEntry& kernel, std::any shape, DType dtype, const std::string& core, Schedule schedule,
                   int physical_cores) {
  KernelRunOptions o;
  o.kernel = kernel.name;
  o.shape = shape.has_value() ? std::move(shape) : kernel.default_shape();
  o.dtype = dtype;
  o.core = core;
  o.schedule = schedule;
  o.physical_cores = physical_cores;
  const NeuronCoreSpec& s = launch_spec(o);
  const Timed t = build_and_time(kernel, o, s);
  return make_report(t.programs, t.timings, s, kernel.flops ? kernel.flops(o.shape) : 0);
}

Report time_kernel(const std::string& kernel, std::any shape, DType dtype, const std::string& core, Schedule schedule,
                   int physical_cores) {
  KernelRunOptions o;
  o.kernel = kernel;
  o.shape = std::move(shape);
  o.dtype = dtype;
  o.core = core;
  o.schedule = schedule;
  o.physical_cores = physical_cores;
  return run_kernel(o).report;
}

}  // namespace nanotrn::neuron
